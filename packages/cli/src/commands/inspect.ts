import path from "node:path";
import { stat } from "node:fs/promises";
import { Option, type Command } from "commander";
import { PROFILE_NAMES, type ProfileName } from "@skillport/core";
import { inspectPackage, DEFAULT_PACKAGE_PROFILE, type PackageInspection } from "@skillport/pack";
import { CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { formatDiagnostics, size, withFsErrors } from "../package-io.js";

interface InspectCommandOptions {
  json?: boolean;
  profile: ProfileName;
}

/** `skillport inspect <package>`: what a package archive (or workspace) holds, without writing anything. */
export function registerInspect(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("inspect")
    .description(
      "show a package's versionId, digest, files, skills and exclusions (archive or workspace; exit 1 on layout errors)",
    )
    .argument("<package>", "package archive (.zip, .tar, .tar.gz, .skill) or workspace directory")
    .option("--json", "print the manifest as JSON")
    .addOption(
      new Option("-p, --profile <profile>", "SKILL.md rule profile")
        .choices(PROFILE_NAMES)
        .default(DEFAULT_PACKAGE_PROFILE),
    )
    .addHelpText(
      "after",
      "\nExamples:\n  skillport inspect /tmp/example.zip\n  skillport inspect examples/package --json",
    )
    .action(async (target: string, options: InspectCommandOptions) => {
      const absolute = path.resolve(io.cwd, target);
      if (!(await stat(absolute).catch(() => undefined))) throw new CliError(`${target}: no such file or directory`);
      const report = await withFsErrors(() => inspectPackage(absolute, { profile: options.profile }), io.cwd);
      if (options.json) printJson(io, report);
      else {
        io.stdout(inspectionText(report, io));
        if (report.diagnostics.length > 0) io.stderr(formatDiagnostics(report.diagnostics, io));
      }
      if (!report.valid) setExit(EXIT_PROBLEMS);
    });
}

function inspectionText(report: PackageInspection, io: CliOutput): string {
  const c = colors(io);
  const lines = [
    `${c.bold("package")}   ${report.source}, ${report.files.length} files, ${size(report.totalBytes)}`,
    `versionId ${c.bold(report.versionId)}`,
    `digest    ${report.digest}`,
    `skills    ${report.skills.length}`,
    ...report.skills.map((s) => `  ${c.cyan(s.name)}  ${s.path}  ${c.dim(s.description)}`),
    "files",
    ...report.files.map(
      (f) => `  ${f.mode.toString(8)}  ${String(f.size).padStart(9)}  ${f.path}  ${c.dim(f.sha256.slice(0, 12))}`,
    ),
  ];
  if (report.excluded.length > 0) {
    lines.push(report.source === "directory" ? "excluded" : "dropped");
    for (const e of report.excluded) lines.push(`  ${e.path}  ${c.dim(e.reason)}`);
  }
  return lines.join("\n") + "\n";
}
