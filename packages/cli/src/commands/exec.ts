import path from "node:path";
import { stat } from "node:fs/promises";
import { Option, type Command } from "commander";
// The light entries: a command in a sandbox must not load the deploy, provider or parser modules (decision 0202).
import { Workspace } from "@skillport/runtime";
import { shellQuote, type SandboxKind } from "@skillport/sandbox";
import { CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { parseSeconds } from "../options.js";

interface ExecCommandOptions {
  workspace?: string;
  queue?: string;
  tenant: string;
  package?: string;
  packages?: string;
  prefix: string;
  sandbox: SandboxKind | "auto";
  timeout?: string;
  cwd?: string;
  network?: boolean;
  json?: boolean;
  skill?: string;
  allowNet?: string;
  allowEnv?: string;
  trace?: boolean;
}

/** `skillport exec --workspace <dir> -- <command…>`: run a command the way an agent's shell tool does. */
export function registerExec(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("exec")
    .description(
      "run a shell command in a workspace sandbox and print the agent observation (merged, tail-truncated output)",
    )
    .argument(
      "<command...>",
      "one argument: a shell command string (as an agent sends it); several: an argv, run as given",
    )
    .option("-w, --workspace <dir>", "workspace directory (must exist); or --queue")
    .option("--queue <url>", "run on the runner pool at this NATS address instead (nats://127.0.0.1:4222)")
    .option("--tenant <name>", "with --queue: whose job it is (fair share per tenant)", "default")
    .option("--package <dir|archive>", "with --queue: run in this package's version (put into --packages first)")
    .option(
      "--packages <dir|url>",
      "with --queue: the package store the runners read (a folder of <versionId>.zip, or a registry URL)",
    )
    .option("--prefix <name>", "with --queue: subject and stream prefix", "skillport")
    .addOption(
      new Option("--sandbox <kind>", "sandbox backend").choices(["auto", "bubblewrap", "process"]).default("auto"),
    )
    .option("--timeout <seconds>", "1-600 seconds (default 30)")
    .option("--cwd <dir>", "working directory relative to the workspace")
    .option("--network", "allow network access")
    .option(
      "--skill <dir>",
      "run under this skill's least-privilege declaration (metadata skillport.*) intersected with --allow-net/--allow-env",
    )
    .option(
      "--allow-net <destinations>",
      "with --skill: destinations a skill may declare (host[:port][/path], comma-separated), or 'public'; default none",
    )
    .option(
      "--allow-env <names>",
      "with --skill: variables of this process a skill may receive when it declares them (comma-separated); default none",
    )
    .option("--trace", "record what the command did (strace -f): processes, files written, direct connection attempts")
    .option("--json", "print the result as JSON")
    // `exec -w ws ls -la`: the command's own options need `--` before the command; say so where commander stops.
    .configureOutput({
      outputError: (text, write) =>
        write(
          text.replace(
            /^(error: unknown option '([^']*)')\n$/,
            "$1 (a command with options of its own goes after --: skillport exec -w <dir> -- <command> $2)\n",
          ),
        ),
    })
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
      const command = words.length === 1 ? words[0]! : words.map(shellQuote).join(" ");
      if (options.queue !== undefined) {
        if (options.workspace !== undefined)
          throw new CliError("--workspace and --queue exclude each other: a queued job runs in a runner's workspace");
        const { execOnQueue } = await import("./exec-queue.js");
        setExit(await execOnQueue(io, command, { ...options, queue: options.queue, timeout }));
        return;
      }
      if (options.workspace === undefined) throw new CliError("exec needs --workspace <dir> (or --queue <url>)");
      const root = path.resolve(io.cwd, options.workspace);
      const info = await stat(root).catch(() => undefined);
      if (!info?.isDirectory()) throw new CliError(`workspace ${JSON.stringify(options.workspace)} is not a directory`);
      if (options.skill === undefined && (options.allowNet !== undefined || options.allowEnv !== undefined))
        throw new CliError("--allow-net and --allow-env apply to a --skill run");
      if (options.skill !== undefined && options.network)
        throw new CliError("--network gives the whole network; with --skill use --allow-net");
      // Loaded only for a --skill run: the plain exec path must not load the parser (decision 0202).
      const skillRun =
        options.skill === undefined
          ? undefined
          : await (await import("./exec-policy.js")).skillLeastPrivilege(path.resolve(io.cwd, options.skill), options);
      // One command, then exit: no launcher is prepared for a next run that never comes.
      const ws = new Workspace(root, {
        sandbox: options.sandbox,
        network: options.network ?? false,
        prewarm: "first",
        ...(skillRun?.policy.maxMemoryBytes !== undefined && { maxMemoryBytes: skillRun.policy.maxMemoryBytes }),
      });
      const leastPrivilege =
        skillRun !== undefined
          ? { ...skillRun, trace: options.trace ?? false }
          : options.trace
            ? { policy: (await import("./exec-policy.js")).undeclaredPolicy(), trace: true }
            : undefined;
      const result = await ws.exec(command, {
        timeout,
        cwd: options.cwd,
        ...(skillRun !== undefined && { env: skillRun.env }),
        ...(leastPrivilege !== undefined && { leastPrivilege }),
      });
      if (options.json) {
        const { tail: _tail, ...rest } = result;
        printJson(io, rest);
      } else {
        for (const w of result.warnings) io.stderr(colors(io).yellow(`warning: ${w}\n`));
        for (const f of result.record?.findings ?? [])
          io.stderr(colors(io).yellow(`finding: ${f.code} ${f.message}\n`));
        io.data(
          result.observation.endsWith("\n") || result.observation === ""
            ? result.observation
            : result.observation + "\n",
        );
      }
      if (result.timedOut || result.exitCode !== 0) setExit(EXIT_PROBLEMS);
    });
}
