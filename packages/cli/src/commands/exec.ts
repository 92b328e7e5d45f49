import path from "node:path";
import { stat } from "node:fs/promises";
import { Option, type Command } from "commander";
// The light entries: a command in a sandbox must not load the deploy, provider or parser modules (decision 0202).
import { Workspace } from "@skillport/runtime";
import { shellQuote, type SandboxKind } from "@skillport/sandbox";
import { CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { parseSeconds } from "../options.js";

interface ExecCommandOptions {
  workspace: string;
  sandbox: SandboxKind | "auto";
  timeout?: string;
  cwd?: string;
  network?: boolean;
  json?: boolean;
}

/** `skillport exec --workspace <dir> -- <command…>`: run a command the way an agent's shell tool does. */
export function registerExec(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("exec")
    .description("run a shell command in a workspace sandbox and print the agent observation (merged, tail-truncated output)")
    .argument("<command...>", "one argument: a shell command string (as an agent sends it); several: an argv, run as given")
    .requiredOption("-w, --workspace <dir>", "workspace directory (must exist)")
    .addOption(new Option("--sandbox <kind>", "sandbox backend").choices(["auto", "bubblewrap", "process"]).default("auto"))
    .option("--timeout <seconds>", "1-600 seconds (default 30)")
    .option("--cwd <dir>", "working directory relative to the workspace")
    .option("--network", "allow network access")
    .option("--json", "print the result as JSON")
    // `exec -w ws ls -la`: the command's own options need `--` before the command; say so where commander stops.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^(error: unknown option '([^']*)')\n$/, "$1 (a command with options of its own goes after --: skillport exec -w <dir> -- <command> $2)\n")) })
    .addHelpText(
      "after",
      [
        "",
        "One argument is a command string run by bash -c, as FastGPT and agents send it; several arguments are an argv,",
        "each word passed through exactly as given (quoted for the shell, so spaces and quotes survive):",
        "  skillport exec -w /tmp/ws -- 'echo a > f && cat f'        # a shell command string",
        "  skillport exec -w /tmp/ws -- sh -c 'echo a > f && cat f'  # an argv: sh gets its -c string intact",
        "  skillport exec -w /tmp/ws --cwd projects/<versionId> -- bash skills/x/scripts/run.sh",
      ].join("\n"),
    )
    .action(async (words: string[], options: ExecCommandOptions) => {
      const timeout = parseSeconds(options.timeout, "--timeout");
      const root = path.resolve(io.cwd, options.workspace);
      const info = await stat(root).catch(() => undefined);
      if (!info?.isDirectory()) throw new CliError(`workspace ${JSON.stringify(options.workspace)} is not a directory`);
      // One command, then exit: no launcher is prepared for a next run that never comes.
      const ws = new Workspace(root, { sandbox: options.sandbox, network: options.network ?? false, prewarm: "first" });
      const result = await ws.exec(words.length === 1 ? words[0]! : words.map(shellQuote).join(" "), { timeout, cwd: options.cwd });
      if (options.json) {
        const { tail: _tail, ...rest } = result;
        printJson(io, rest);
      } else {
        for (const w of result.warnings) io.stderr(colors(io).yellow(`warning: ${w}\n`));
        io.data(result.observation.endsWith("\n") || result.observation === "" ? result.observation : result.observation + "\n");
      }
      if (result.timedOut || result.exitCode !== 0) setExit(EXIT_PROBLEMS);
    });
}
