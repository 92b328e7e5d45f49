import path from "node:path";
import type { Command } from "commander";
import { SkillExistsError, SkillValidationError } from "@skillport/core";
import { importSkill } from "@skillport/pack";
import { displayPath, CliError, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { formatDiagnostics, requireDirectoryOrAbsent, requireFile, withFsErrors } from "../package-io.js";

interface ImportCommandOptions {
  into: string;
  force?: boolean;
  json?: boolean;
}

/** `skillport import <archive> --into <skills-dir>`: a `.skill` (or zipped skill folder) into a skills directory. */
export function registerImport(program: Command, io: CliOutput, _setExit: (code: number) => void): void {
  program
    .command("import")
    .description(
      "import a .skill file or a zipped skill folder into a skills directory (validated; never overwrites without --force)",
    )
    .argument("<archive>", ".skill, .zip, .tar or .tar.gz holding one skill")
    .requiredOption("--into <skills-dir>", "the skills directory to add the skill to")
    .option("--force", "replace a skill of the same name")
    .option("--json", "print the result as JSON")
    .addHelpText("after", "\nExamples:\n  skillport import word-stats.skill --into .agents/skills")
    .action(async (archive: string, options: ImportCommandOptions) => {
      const source = path.resolve(io.cwd, archive);
      await requireFile(source, archive);
      const into = path.resolve(io.cwd, options.into);
      await requireDirectoryOrAbsent(into, "--into", options.into);
      const result = await withFsErrors(() => importSkill(source, into, { force: options.force }), io.cwd).catch(
        (error: unknown) => {
          if (error instanceof SkillExistsError) {
            throw new CliError(
              `skill ${error.skillIds.map((id) => JSON.stringify(id)).join(", ")} already exists in ${options.into}; pass --force to replace it`,
            );
          }
          if (error instanceof SkillValidationError) {
            io.stderr(formatDiagnostics(error.diagnostics, io));
            throw new CliError(`${archive}: ${error.message}; nothing written`, EXIT_PROBLEMS);
          }
          throw error;
        },
      );
      const shown = displayPath(result.dir, io.cwd);
      if (options.json) {
        printJson(io, {
          name: result.name,
          dir: shown,
          files: result.files.length,
          replaced: result.replaced,
          dropped: result.dropped,
        });
        return;
      }
      io.stdout(
        `${colors(io).green(result.replaced ? "replaced" : "imported")} ${result.name} (${result.files.length} files) into ${shown}\n`,
      );
    });
}
