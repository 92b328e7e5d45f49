import { z } from "zod";
import { MAX_RUN_TIMEOUT_MS, runUnderPolicy, type RunRequest, type RunResult } from "@skillport/sandbox";
import type { EffectivePolicy } from "@skillport/core";
import { defineTool, messageOf, type Tool, type ToolResult } from "../tool.js";
import type { CodeExecutionHost } from "./tool-host.js";
import type { WorkSpace } from "./work-space.js";
import { checkShellCommand, DEFAULT_ALLOWED_COMMANDS } from "./shell-policy.js";

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
      const space = exec.space(context.sessionId);
      const verdict = checkShellCommand(command, { allowedCommands: allowed, workDir: space.workDir });
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
  let stdout = result.stdout;
  let stderr = result.stderr;
  if (result.stdoutTruncated)
    stdout = `[stdout truncated: the last ${maxBytes} of ${result.stdoutBytes} bytes]\n${stdout}`;
  if (result.stderrTruncated)
    stderr = `[stderr truncated: the last ${maxBytes} of ${result.stderrBytes} bytes]\n${stderr}`;
  const notes: string[] = [];
  if (result.timedOut) notes.push(`TimeoutError: the command ran longer than ${seconds} seconds and was stopped.`);
  if (result.outputLimitExceeded) notes.push("Error: the command printed too much output and was stopped.");
  if (result.aborted) notes.push("Error: the command was cancelled.");
  if (notes.length > 0) stderr = stderr === "" ? notes.join("\n") : `${stderr}\n${notes.join("\n")}`;
  const code = result.timedOut || result.aborted ? -1 : (result.exitCode ?? -1);
  return shellResult(code, stdout, stderr, result.timedOut || result.aborted || result.outputLimitExceeded, {
    sandbox: result.sandbox,
    isolates: result.isolates,
    warnings: result.warnings,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    ...(result.egress !== undefined && { egress: result.egress }),
  });
}

/** `<returncode>…</returncode><stdout>…</stdout><stderr>…</stderr>`, upstream's format. */
function shellResult(
  code: number,
  stdout: string,
  stderr: string,
  isError: boolean,
  details?: Record<string, unknown>,
): ToolResult {
  const text = `<returncode>${code}</returncode><stdout>${stdout}</stdout><stderr>${stderr}</stderr>`;
  return details
    ? { content: [{ type: "text", text }], isError, details }
    : { content: [{ type: "text", text }], isError };
}
