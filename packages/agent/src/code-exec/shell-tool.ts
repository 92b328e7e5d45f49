import { z } from "zod";
import { MAX_RUN_TIMEOUT_MS, runUnderPolicy, type RunRequest, type RunResult } from "@skillport/sandbox";
import type { EffectivePolicy } from "@skillport/core";
import { defineTool, messageOf, type Tool, type ToolResult } from "../tool.js";
import type { CodeExecutionHost } from "./tool-host.js";
import type { WorkSpace } from "./work-space.js";
import { checkShellCommand, DEFAULT_ALLOWED_COMMANDS } from "./shell-policy.js";
import {
  returnCodeText,
  runResultText,
  type RemoteCodeRunner,
  type RemoteRunRequest,
  type RemoteRunResult,
  type RunOutcome,
} from "@skillport/core/internal";

/** Stands for the runner's working folder when a remote command's redirections are checked. */
const REMOTE_WORK_DIR = "/skillport-remote-work";

export const SHELL_TOOL = "execute_shell_command";

export interface ShellApprovalRequest {
  command: string;
  /** Why the policy did not allow it on its own. */
  problems: readonly string[];
  /** The parser could not read the command (the approver sees text no check has understood). */
  syntaxError: boolean;
  sessionId: string;
}

export interface ShellOptions {
  /** Program names allowed. Default upstream's: python, python3, node, nodejs. `"any"` allows every command. */
  allowedCommands?: readonly string[] | "any";
  /** Asked about every command the policy does not allow; true runs it. Without it, such commands are refused. */
  approve?: (request: ShellApprovalRequest) => boolean | Promise<boolean>;
  /** Default timeout when the model gives none. Default 300 s (upstream's). */
  timeoutSeconds?: number;
  /** Longest timeout a model may ask for. Default 600 s (the sandbox's limit). */
  maxTimeoutSeconds?: number;
  /** Tail of stdout and of stderr kept in the result, in bytes. Default 64 KiB each. */
  maxOutputBytes?: number;
  /** Extra environment variables for commands. */
  env?: Record<string, string>;
}

const input = z.object({
  command: z.string().describe("The shell command to execute"),
  timeout: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The maximum time (in seconds) allowed for the command to run"),
});

/** `execute_shell_command(command, timeout?)`: bash in the sandbox, after the parsed command passes the policy. */
export function createShellTool(exec: CodeExecutionHost, options: ShellOptions): Tool {
  const allowed = options.allowedCommands ?? DEFAULT_ALLOWED_COMMANDS;
  const maxTimeout = Math.min(options.maxTimeoutSeconds ?? MAX_RUN_TIMEOUT_MS / 1000, MAX_RUN_TIMEOUT_MS / 1000);
  const defaultTimeout = Math.min(options.timeoutSeconds ?? 300, maxTimeout);
  const maxBytes = options.maxOutputBytes ?? 64 * 1024;
  return defineTool({
    name: SHELL_TOOL,
    description:
      "Execute the given command and return its return code, standard output and standard error within " +
      "<returncode></returncode>, <stdout></stdout> and <stderr></stderr> tags. Commands run in a sandbox, in the work directory.",
    input,
    handler: async ({ command, timeout }, context) => {
      if (command.trim() === "")
        return shellResult(-1, "", "Error: missing required argument 'command' (it must not be blank)", true);
      const remote = exec.settings.remote;
      // A remote command's folder is the runner's: redirections are checked against a stand-in of it.
      const workDir = remote === undefined ? exec.space(context.sessionId).workDir : REMOTE_WORK_DIR;
      const verdict = checkShellCommand(command, { allowedCommands: allowed, workDir });
      if (!verdict.ok) {
        const approved = options.approve
          ? await options.approve({
              command,
              problems: verdict.problems,
              syntaxError: verdict.syntax,
              sessionId: context.sessionId,
            })
          : false;
        if (!approved) {
          const why = verdict.problems.join("; ");
          return shellResult(
            -1,
            "",
            `Error: command refused: ${why}${options.approve ? " (and not approved)" : ""}`,
            true,
          );
        }
      }
      const seconds = Math.min(timeout ?? defaultTimeout, maxTimeout);
      if (remote !== undefined)
        return runRemotely(remote, {
          sessionId: context.sessionId,
          run: { kind: "shell", command },
          timeoutSeconds: seconds,
          ...(options.env && { env: options.env }),
          ...(context.signal && { signal: context.signal }),
        });
      const space = exec.space(context.sessionId);
      return runInSandbox(space, ["bash", "-c", command], seconds, maxBytes, context.signal, options.env);
    },
  });
}

/**
 * Runs argv in the session's sandbox, in its work dir, and formats upstream's result; never throws. No host write into
 * that work dir runs meanwhile (decision 0230).
 */
export async function runInSandbox(
  space: WorkSpace,
  argv: string[],
  seconds: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
  env: Record<string, string> | undefined,
  policy: EffectivePolicy | undefined = space.policy,
): Promise<ToolResult> {
  let result: RunResult;
  try {
    result = await space.run((sandbox) => {
      const request: RunRequest = {
        command: argv,
        cwd: space.workDir,
        timeoutMs: seconds * 1000,
        maxStdoutBytes: maxBytes,
        maxStderrBytes: maxBytes,
        ...(signal && { signal }),
        ...((env || space.env) && { env: { ...space.env, ...env } }),
      };
      // Under a skill's (or a deployed version's) least-privilege policy: proxy, declared variables and folders.
      return policy === undefined ? sandbox.run(request) : runUnderPolicy(sandbox, request, policy);
    });
  } catch (error) {
    return shellResult(-1, "", `Error: the command could not be run: ${messageOf(error)}`, true);
  }
  const outcome: RunOutcome = {
    ...result,
    ...(result.stdoutTruncated && { stdoutCut: { kept: maxBytes, total: result.stdoutBytes } }),
    ...(result.stderrTruncated && { stderrCut: { kept: maxBytes, total: result.stderrBytes } }),
  };
  return formatRun(outcome, seconds, {
    sandbox: result.sandbox,
    isolates: result.isolates,
    warnings: result.warnings,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    ...(result.egress !== undefined && { egress: result.egress }),
  });
}

/** Runs on the remote runner (a pool) and formats the same result as a local run; never throws. */
export async function runRemotely(runner: RemoteCodeRunner, request: RemoteRunRequest): Promise<ToolResult> {
  let result: RemoteRunResult;
  try {
    result = await runner.run(request);
  } catch (error) {
    return shellResult(-1, "", `Error: the command could not be run: ${messageOf(error)}`, true);
  }
  if (result.failure !== undefined)
    return shellResult(-1, "", `Error: the command could not be run: ${result.failure}`, true);
  return formatRun(result, request.timeoutSeconds, {
    sandbox: result.sandbox,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
  });
}

/** Upstream's result from a run, local or remote (the one format: `runResultText`), with the run's details. */
function formatRun(result: RunOutcome, seconds: number, details: Record<string, unknown>): ToolResult {
  const { text, isError } = runResultText(result, seconds);
  return { content: [{ type: "text", text }], isError, details };
}

/** A run that did not happen: `-1`, the reason in stderr. */
function shellResult(code: number, stdout: string, stderr: string, isError: boolean): ToolResult {
  return { content: [{ type: "text", text: returnCodeText(code, stdout, stderr) }], isError };
}
