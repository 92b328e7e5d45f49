import path from "node:path";
import type { Command } from "commander";
import { SkillValidationError } from "@skillport/core";
import { exportSkill } from "@skillport/pack";
import { writeFileAtomic } from "@skillport/fs";
import { displayPath, CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { formatDiagnostics, requireDirectory, size, requireNotDirectory, withFsErrors } from "../package-io.js";

interface ExportCommandOptions {
  output?: string;
  json?: boolean;
  includeSecrets?: boolean;
  followLinks?: boolean;
}

/** `skillport export <skill-dir>`: one skill as a `.skill` file (a zip with one folder named after the skill). */
export function registerExport(program: Command, io: CliOutput, _setExit: (code: number) => void): void {
  program
    .command("export")
    .description(
      "export one skill directory as a .skill file (deterministic zip, one top-level folder named after the skill)",
    )
    .argument("<skill-dir>", "the skill directory (holding SKILL.md)")
    .option("-o, --output <file>", "file to write (default: <name>.skill in the current directory)")
    .option("--json", "print the result as JSON")
    .option("--include-secrets", "also export files that look like credentials - dangerous")
    .option(
      "--follow-links",
      "accepted for compatibility: links that stay inside the skill are always followed, links leaving it always refused",
    )
    .addHelpText("after", "\nExamples:\n  skillport export examples/package/skills/word-stats -o word-stats.skill")
    .action(async (dir: string, options: ExportCommandOptions) => {
      const root = path.resolve(io.cwd, dir);
      await requireDirectory(root, dir);
      const requested = options.output === undefined ? undefined : path.resolve(io.cwd, options.output);
      if (requested !== undefined)
        await requireNotDirectory(
          requested,
          "--output",
          options.output ?? "",
          `${options.output}/${path.basename(root)}.skill`,
        );
      const result = await withFsErrors(
        () =>
          exportSkill(root, {
            includeSecrets: options.includeSecrets,
            followLinks: options.followLinks,
            skipAbsolute: requested,
          }),
        io.cwd,
      ).catch((error: unknown) => {
        if (error instanceof SkillValidationError) {
          io.stderr(formatDiagnostics(error.diagnostics, io));
          throw new CliError(`${dir}: ${error.message}; nothing written`, EXIT_PROBLEMS);
        }
        throw error;
      });
      if (options.includeSecrets)
        io.stderr(
          colors(io).red("WARNING: --include-secrets: files that look like credentials may be in the export\n"),
        );
      const out = requested ?? path.resolve(io.cwd, `${result.name}.skill`);
      await withFsErrors(() => writeFileAtomic(out, result.archive), io.cwd);
      const shown = displayPath(out, io.cwd);
      if (options.json) {
        printJson(io, {
          name: result.name,
          output: shown,
          versionId: result.versionId,
          digest: result.digest,
          bytes: result.archive.byteLength,
          files: result.files.length,
          excluded: result.excluded,
        });
        return;
      }
      io.stdout(
        `${colors(io).green("exported")} ${result.name} (${result.files.length} files) to ${shown} (${size(result.archive.byteLength)})\n`,
      );
    });
}
