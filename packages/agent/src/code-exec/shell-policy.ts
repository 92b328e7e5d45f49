import path from "node:path";
import { isInside } from "@skillport/fs";
import { assignmentProblem, builtinProblem, CHANGES_DIRECTORY, isBuiltin } from "./shell-builtins.js";
import { parseShell, ShellSyntaxError, type ShellParse } from "./shell-parse.js";

/** Upstream's default allow-list: interpreters for skill scripts. The default instructions only suggest these. */
export const DEFAULT_ALLOWED_COMMANDS: readonly string[] = Object.freeze(["python", "python3", "node", "nodejs"]);

/** Device files a redirection may always name. */
const SAFE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin"]);

export interface ShellPolicy {
  /** Command names allowed (matched exactly, paths included: `./run.sh` must be listed as `./run.sh`); `"any"` allows all. */
  allowedCommands: readonly string[] | "any";
  /** Absolute real path of the work directory: redirections must stay inside it. */
  workDir: string;
}

export type ShellVerdict =
  { ok: true; parse: ShellParse } | { ok: false; syntax: boolean; problems: string[]; parse: ShellParse | undefined };

/**
 * Checks a command string against the policy on its PARSED form: every command bash may start — in pipelines,
 * lists, subshells, `$( … )`, backticks, process substitutions and here-documents — must be a plain word on the
 * allow-list; a bash builtin must be one whose arguments the policy understands (shell-builtins.ts), whatever the
 * list says; every redirection must name a plain path inside the work directory (or /dev/null and friends); no
 * assignment may touch bash's own variables (PATH, IFS, BASH_ENV, RANDOM…) or LD_*. Text the parser does not model
 * (every evaluating expansion and arithmetic context included) is refused: an allow-list of syntax (decision 0235).
 */
export function checkShellCommand(command: string, policy: ShellPolicy): ShellVerdict {
  let parse: ShellParse;
  try {
    parse = parseShell(command);
  } catch (error) {
    if (error instanceof ShellSyntaxError)
      return {
        ok: false,
        syntax: true,
        problems: [`cannot check this command: ${error.message} (at character ${error.offset + 1})`],
        parse: undefined,
      };
    throw error;
  }
  const problems: string[] = [];
  if (parse.commands.length === 0 && parse.assignments.length === 0) problems.push("no command to run");
  for (const command of parse.commands) {
    const { name, raw } = command;
    const builtin = name !== undefined && isBuiltin(name) ? builtinProblem({ ...command, name }) : undefined;
    if (name === undefined)
      problems.push(
        `command ${JSON.stringify(raw)} is not a plain program name (it holds an expansion, a glob or braces)`,
      );
    else if (builtin !== undefined) problems.push(builtin);
    else if (policy.allowedCommands !== "any" && !policy.allowedCommands.includes(name)) {
      problems.push(
        `command ${JSON.stringify(name)} is not allowed (allowed: ${policy.allowedCommands.join(", ") || "none"})`,
      );
    }
  }
  const moves = parse.commands.find(
    (command) => command.name !== undefined && CHANGES_DIRECTORY.has(command.name),
  )?.name;
  for (const redirect of parse.redirects) {
    if (!redirect.opensFile) continue;
    if (redirect.target === undefined) problems.push(`redirection '${redirect.op}' must name a plain file path`);
    else if (moves !== undefined && !path.isAbsolute(redirect.target)) {
      problems.push(
        `redirection '${redirect.op} ${redirect.target}' is relative in a command that runs '${moves}'; use an absolute path in the work directory`,
      );
    } else if (
      !SAFE_DEVICES.has(redirect.target) &&
      !isInside(policy.workDir, path.resolve(policy.workDir, redirect.target))
    ) {
      problems.push(`redirection '${redirect.op} ${redirect.target}' leaves the work directory`);
    }
  }
  for (const name of parse.assignments) {
    const problem = assignmentProblem(name);
    if (problem !== undefined) problems.push(problem);
  }
  const unique = [...new Set(problems)];
  return unique.length === 0 ? { ok: true, parse } : { ok: false, syntax: false, problems: unique, parse };
}
