import path from "node:path";
import { Option, type Command } from "commander";
import { PROFILE_NAMES, type ProfileName } from "@skillport/core";
// Leaf entries only: packing must not load the skill provider, the registry or search (decision 0202).
import { ExclusionRules, packDirectory, DEFAULT_PACKAGE_PROFILE, type PackResult } from "@skillport/pack";
import { writeFileAtomic } from "@skillport/fs";
import { displayPath, colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { formatDiagnostics, requireDirectory, requireNotDirectory, size, withFsErrors } from "../package-io.js";

interface PackCommandOptions {
  output?: string;
  json?: boolean;
  includeSecrets?: boolean;
  followLinks?: boolean;
  profile: ProfileName;
}

/** `skillport pack [dir]`: a deterministic zip with a content-addressed versionId. */
export function registerPack(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("pack")
    .description("pack a skill package workspace (skills/<name>/SKILL.md, entrypoint.sh, ...) into a deterministic zip")
    .argument("[dir]", "package workspace", ".")
    .option("-o, --output <file>", "archive to write (default: <dir-name>-<versionId>.zip in the current directory)")
    .option("--json", "print the result as JSON")
    .option("--include-secrets", "also pack files that look like credentials (.env, *.key, *.pem, ...) - dangerous")
    .option("--follow-links", "follow symbolic links that stay inside the package instead of refusing them")
    .addOption(
      new Option(
        "-p, --profile <profile>",
        "SKILL.md rule profile (packages default to FastGPT's rules; validate defaults to spec)",
      )
        .choices(PROFILE_NAMES)
        .default(DEFAULT_PACKAGE_PROFILE),
    )
    .addHelpText(
      "after",
      "\nExamples:\n  skillport pack examples/package -o /tmp/example.zip\n  skillport pack . --json",
    )
    .action(async (dir: string, options: PackCommandOptions) => {
      const root = path.resolve(io.cwd, dir);
      await requireDirectory(root, dir);
      const requested = options.output === undefined ? undefined : path.resolve(io.cwd, options.output);
      if (requested !== undefined)
        await requireNotDirectory(
          requested,
          "--output",
          options.output ?? "",
          `${options.output}/${path.basename(root)}.zip`,
        );
      const result = await withFsErrors(
        () =>
          packDirectory(root, {
            includeSecrets: options.includeSecrets,
            followLinks: options.followLinks,
            profile: options.profile,
            requireValid: false,
            skipAbsolute: requested,
          }),
        io.cwd,
      );
      const errors = result.diagnostics.filter((d) => d.severity === "error");
      if (errors.length > 0) {
        if (options.json) printJson(io, { valid: false, diagnostics: result.diagnostics });
        else
          io.stderr(
            formatDiagnostics(result.diagnostics, io) +
              `${errors.length} error${errors.length === 1 ? "" : "s"}; nothing written\n`,
          );
        setExit(EXIT_PROBLEMS);
        return;
      }
      if (options.includeSecrets) warnSecrets(result, io);
      const out = requested ?? path.resolve(io.cwd, `${path.basename(root)}-${result.versionId}.zip`);
      await withFsErrors(() => writeFileAtomic(out, result.archive), io.cwd);
      const shown = displayPath(out, io.cwd);
      if (result.diagnostics.length > 0) io.stderr(formatDiagnostics(result.diagnostics, io));
      if (options.json) {
        printJson(io, {
          versionId: result.versionId,
          digest: result.digest,
          output: shown,
          bytes: result.archive.byteLength,
          files: result.manifest.files.length,
          skills: result.manifest.skills,
          excluded: result.manifest.excluded,
        });
      } else {
        io.stdout(packSummary(result, shown, io));
      }
    });
}

function packSummary(result: PackResult, output: string, io: CliOutput): string {
  const c = colors(io);
  const m = result.manifest;
  const lines = [
    `${c.green("packed")} ${m.files.length} files (${size(m.totalBytes)}) into ${output} (${size(result.archive.byteLength)})`,
    `versionId ${c.bold(result.versionId)}`,
    `digest    ${result.digest}`,
    `skills    ${m.skills.map((s) => s.name).join(", ")}`,
  ];
  if (m.excluded.length > 0) {
    lines.push(`excluded  ${m.excluded.length}:`);
    for (const e of m.excluded) lines.push(`  ${e.path}  ${c.dim(e.reason)}`);
  }
  return lines.join("\n") + "\n";
}

/** `--include-secrets` is dangerous: say so, and name what looked like a credential. */
function warnSecrets(result: PackResult, io: CliOutput): void {
  const rules = new ExclusionRules();
  const secrets = result.manifest.files.filter((f) => rules.check(f.path, false)?.kind === "secret").map((f) => f.path);
  const c = colors(io);
  io.stderr(
    c.red(c.bold("WARNING: --include-secrets: files that look like credentials are packed")) +
      (secrets.length > 0 ? `:\n${secrets.map((s) => `  ${s}\n`).join("")}` : " (none found this time)\n"),
  );
}
