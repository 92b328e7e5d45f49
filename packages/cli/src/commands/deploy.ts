import path from "node:path";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { Option, type Command } from "commander";
import { SkillValidationError } from "@skillport/core";
import {
  MAX_APP_ENTRYPOINT_BYTES,
  Workspace,
  type DeployEvent,
  type DeployResult,
  type EntrypointOutcome,
} from "@skillport/runtime";
import type { SandboxKind } from "@skillport/sandbox";
import { CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { parseSeconds } from "../options.js";
import { displayWidth, padEndColumns } from "../text-width.js";
import { formatDiagnostics, requireDirectoryOrAbsent } from "../package-io.js";

interface DeployCommandOptions {
  workspace: string;
  json?: boolean;
  timeout?: string;
  sandbox: SandboxKind | "auto";
  network?: boolean;
  entrypoints: boolean;
  stateDir?: string;
  appEntrypoint?: string;
  allowNet?: string;
  allowEnv?: string;
}

/** `skillport deploy <package…> --workspace <dir>`: FastGPT-style deploy into projects/<versionId>/ plus entrypoints. */
export function registerDeploy(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("deploy")
    .description("deploy packages (archives or package directories) into a workspace and run their entrypoint.sh once")
    .argument("<package...>", "zip/tar/tgz/.skill archives or package directories; exactly these stay deployed")
    .requiredOption("-w, --workspace <dir>", "workspace directory (created if missing)")
    .option("--timeout <seconds>", "entrypoint timeout, 1-600 seconds (default 30)")
    .addOption(
      new Option("--sandbox <kind>", "where entrypoints run")
        .choices(["auto", "bubblewrap", "process"])
        .default("auto"),
    )
    .option("--network", "allow network access to entrypoints (e.g. pip install)")
    .option("--no-entrypoints", "deploy only; do not run entrypoint.sh")
    .option(
      "--allow-net <destinations>",
      "least-privilege entrypoints: each runs under intersection(this, its version's skills' declarations), network only through the egress proxy ('none', 'public', or host[:port] entries; 'private:' prefix for loopback/private)",
    )
    .option(
      "--allow-env <names>",
      "least-privilege entrypoints: variables of this process they may receive when their skills declare them",
    )
    .option(
      "--state-dir <dir>",
      "host-only state folder (lock, manifests, entrypoint records); outside the workspace (default: .<name>.skillport-state beside it)",
    )
    .option(
      "--app-entrypoint <file>",
      "app startup script (at most 16 KiB), run once per sha256 before the packages' entrypoints",
    )
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  skillport deploy pkg.zip --workspace /tmp/ws\n  skillport deploy examples/package --workspace /tmp/ws --network --json",
    )
    .action(async (packages: string[], options: DeployCommandOptions) => {
      const timeout = parseSeconds(options.timeout, "--timeout");
      const root = path.resolve(io.cwd, options.workspace);
      const appEntrypoint =
        options.appEntrypoint === undefined
          ? undefined
          : await readAppEntrypoint(path.resolve(io.cwd, options.appEntrypoint));
      // Least-privilege runs (decision 0364): loaded only when asked for.
      const leastPrivilege =
        options.allowNet === undefined && options.allowEnv === undefined
          ? undefined
          : (await import("./exec-policy.js")).operatorPolicy(options);
      if (leastPrivilege !== undefined && options.network)
        throw new CliError(
          "--network gives entrypoints the whole network; with --allow-net or --allow-env leave it out",
        );
      await requireDirectoryOrAbsent(root, "--workspace", options.workspace);
      await mkdir(root, { recursive: true });
      const ws = new Workspace(root, {
        sandbox: options.sandbox,
        entrypointTimeout: timeout,
        network: options.network ?? false,
        stateDir: options.stateDir === undefined ? undefined : path.resolve(io.cwd, options.stateDir),
        appEntrypoint,
        ...(leastPrivilege !== undefined && { leastPrivilege: leastPrivilege.operator, env: leastPrivilege.env }),
      });
      const sources = packages.map((p) => path.resolve(io.cwd, p));
      const progress = (io.progress ?? io.color) && !options.json ? progressPrinter(io) : undefined;
      let result: DeployResult;
      try {
        result = await ws.deploy(sources, { onEvent: progress, runEntrypoints: options.entrypoints });
      } catch (error) {
        if (!(error instanceof SkillValidationError)) throw error;
        // A package directory that does not pass the layout check: show every finding, deploy nothing.
        io.stderr(formatDiagnostics(error.diagnostics, io));
        throw new CliError(`${error.message}; nothing deployed`, EXIT_PROBLEMS);
      }
      const report = await result.initialization;
      const scan = await ws.scanSkills(result.versions.map((v) => v.versionId));
      const sandbox = options.entrypoints ? await ws.sandbox() : undefined;
      const rel = (p: string) => path.relative(root, p).split(path.sep).join("/");
      const skills = scan.skills.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        versionId: s.versionId,
        directory: rel(s.directory),
        skillMd: rel(s.skillMdPath),
      }));
      if (options.json) {
        printJson(io, {
          workspace: options.workspace,
          versions: result.versions,
          removed: result.removed,
          entrypoints: report.outcomes,
          stateProblems: report.stateProblems,
          skills,
          diagnostics: scan.diagnostics,
          sandbox: sandbox ? { kind: sandbox.kind, isolates: sandbox.isolates } : null,
        });
      } else {
        const c = colors(io);
        const lines: string[] = [];
        for (const v of result.versions)
          lines.push(
            `${v.status === "deployed" ? c.green("deployed") : c.dim("present ")} ${v.versionId}  ${c.dim(v.label)}`,
          );
        for (const v of result.removed) lines.push(`${c.yellow("removed ")} ${v}`);
        for (const o of report.outcomes) {
          lines.push(formatOutcome(o, io));
          for (const f of o.record?.findings ?? []) lines.push(c.yellow(`  finding: ${f.code} ${f.message}`));
        }
        for (const p of report.stateProblems) lines.push(c.yellow(`warning: ${p}`));
        if (sandbox && !sandbox.isolates)
          lines.push(c.yellow("warning: entrypoints ran without isolation (sandbox 'process')"));
        // One table: an 8-column label, then the skills' ids padded to one width so their SKILL.md paths line up.
        const idWidth = Math.max(0, ...skills.map((s) => displayWidth(s.id)));
        if (skills.length === 0) lines.push(`skills   ${c.dim("(none found)")}`);
        skills.forEach((s, i) =>
          lines.push(
            `${i === 0 ? "skills   " : " ".repeat(9)}${c.bold(padEndColumns(s.id, idWidth))}  ${c.dim(s.skillMd)}`,
          ),
        );
        io.stdout(lines.join("\n") + "\n");
        // What the scan of the deployed skills found (a skill catalogs will leave out, an unreadable SKILL.md…).
        for (const d of scan.diagnostics)
          io.stderr(`${c.yellow(d.severity)}  ${d.file ?? ""}: ${d.message} (${d.code})\n`);
      }
      if (report.failed) setExit(EXIT_PROBLEMS);
    });
}

function formatOutcome(o: EntrypointOutcome, io: CliOutput): string {
  const c = colors(io);
  const target = o.target === "app" ? "app startup script" : `entrypoint ${o.target}`;
  const took = o.durationMs === undefined ? "" : c.dim(` (${(o.durationMs / 1000).toFixed(1)} s)`);
  switch (o.status) {
    case "ran":
      return `${c.green("ran     ")} ${target}${took}`;
    case "skipped":
      return `${c.dim("skipped ")} ${target}: ${o.reason ?? ""}`;
    case "absent":
      return `${c.dim("none    ")} ${target}: ${o.reason ?? ""}`;
    default: {
      const tail = (o.stderrTail || o.stdoutTail || "").trimEnd().split("\n").slice(-5);
      return [
        `${c.red("FAILED  ")} ${target}: ${o.reason ?? o.status}${took}`,
        ...tail.filter(Boolean).map((l) => c.dim(`  | ${l}`)),
      ].join("\n");
    }
  }
}

function progressPrinter(io: CliOutput): (event: DeployEvent) => void {
  const c = colors(io);
  return (event) => {
    if (event.type === "version-unpacking") io.stderr(c.dim(`unpacking ${event.label}...\n`));
    else if (event.type === "entrypoint-start")
      io.stderr(c.dim(`running ${event.target === "app" ? "app startup script" : `entrypoint ${event.target}`}...\n`));
    else if (event.type === "state-problem") io.stderr(c.yellow(`warning: ${event.message}\n`));
  };
}

/** The app startup script file: a regular file of at most 16 KiB (judged before reading), UTF-8. */
async function readAppEntrypoint(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    throw new CliError(`--app-entrypoint: ${JSON.stringify(path.basename(file))} is not a readable file`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new CliError(`--app-entrypoint: ${JSON.stringify(path.basename(file))} is not a regular file`);
    if (info.size > MAX_APP_ENTRYPOINT_BYTES)
      throw new CliError(
        `--app-entrypoint: the script is ${info.size} bytes; the limit is ${MAX_APP_ENTRYPOINT_BYTES / 1024} KiB`,
      );
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
