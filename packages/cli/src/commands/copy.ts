import type { Command } from "commander";
import { AgentSkillsError, SkillValidationError, type Skill } from "@skillport/core";
import { compareCodeUnits } from "@skillport/core/internal";
import { CliError, colors, EXIT_PROBLEMS, printJson, progressLine, warnOn, type CliOutput } from "../io.js";
import { openSource, sourceForms, type OpenedSource } from "../source-uri.js";

interface CopyOptions {
  force?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** What happened to each skill; `skipped` and `failed` make the exit code 1. */
interface CopyReport {
  from: string;
  to: string;
  dryRun: boolean;
  copied: string[];
  replaced: string[];
  unchanged: string[];
  skipped: string[];
  failed: Array<{ id: string; message: string }>;
}

export function registerCopy(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("copy")
    .description(
      "copy whole skills (every file) from one source to another: folders, SQLite, PostgreSQL, MySQL/MariaDB",
    )
    .argument("<from>", "where the skills are: a folder of skills, a skill folder, or a source address")
    .argument("<to>", "where they go (created when missing): a folder of skills or a source address")
    .option("--force", "replace skills that already exist at the target (identical ones are left alone)")
    .option("--dry-run", "say what would be copied, write nothing")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `\nSources: ${sourceForms()}.\nExit 1 when a skill was skipped (it exists; --force replaces it) or could not be read.\n\nExamples:\n  skillport copy examples/skills sqlite:./skills.db\n  skillport copy sqlite:./skills.db postgres://postgres@127.0.0.1:5432/skills --force\n  skillport copy mysql://root@127.0.0.1/agents ./skills-backup --dry-run`,
    )
    .action(async (from: string, to: string, options: CopyOptions) => {
      const source = await openSource(from, { cwd: io.cwd, warn: warnOn(io) });
      let target: OpenedSource | undefined;
      try {
        target = await openSource(to, { cwd: io.cwd, write: true });
        const report = await copySkills(source, target, options, io);
        if (report.skipped.length + report.failed.length > 0) setExit(EXIT_PROBLEMS);
        if (options.json) printJson(io, report);
        else printReport(report, io);
      } finally {
        await Promise.all([source.close(), target?.close()]);
      }
    });
}

async function copySkills(
  source: OpenedSource,
  target: OpenedSource,
  options: CopyOptions,
  io: CliOutput,
): Promise<CopyReport> {
  const repository = target.repository;
  if (!repository) throw new CliError(`${target.label} cannot be written to`);
  const report: CopyReport = {
    from: source.label,
    to: target.label,
    dryRun: Boolean(options.dryRun),
    copied: [],
    replaced: [],
    unchanged: [],
    skipped: [],
    failed: [],
  };
  const ids = source.only !== undefined ? [source.only] : (await source.provider.discover()).sort(compareCodeUnits);
  // A skill the source holds but refuses to serve (a name not UTF-8, a SKILL.md link leaving it) is a failure, not 0.
  for (const s of source.only === undefined ? (source.skipped?.() ?? []) : []) {
    if (s.severity === "error") report.failed.push({ id: s.folder, message: s.message });
  }
  const batch: Skill[] = [];
  const progress = progressLine(io, "reading", ids.length);
  for (const id of ids) {
    progress.tick();
    let skill: Skill;
    try {
      skill = await source.provider.getSkill(id);
    } catch (error) {
      if (!(error instanceof AgentSkillsError)) throw error;
      report.failed.push({ id, message: error.message });
      continue;
    }
    if (await repository.skillExists(id)) {
      const existing = await repository.getSkill(id).catch(() => undefined);
      if (existing && (await existing.digest()) === (await skill.digest())) report.unchanged.push(id);
      else if (options.force) {
        report.replaced.push(id);
        batch.push(skill);
      } else report.skipped.push(id);
      continue;
    }
    report.copied.push(id);
    batch.push(skill);
  }
  progress.done();
  if (!options.dryRun && batch.length > 0) {
    try {
      // One save: a SQL target writes the whole batch in one transaction, all or nothing.
      await repository.save(batch, { force: Boolean(options.force) });
    } catch (error) {
      if (error instanceof SkillValidationError) {
        throw new CliError(
          `${target.label}: nothing was copied: ${error.diagnostics.map((d) => d.message).join("; ")}`,
        );
      }
      throw error;
    }
  }
  return report;
}

function printReport(report: CopyReport, io: CliOutput): void {
  const c = colors(io);
  const verb = report.dryRun
    ? { copied: "would copy", replaced: "would replace" }
    : { copied: "copied", replaced: "replaced" };
  for (const id of report.copied) io.stdout(`${c.green(verb.copied)}  ${id}\n`);
  for (const id of report.replaced) io.stdout(`${c.yellow(verb.replaced)}  ${id}\n`);
  for (const id of report.unchanged) io.stdout(`${c.dim("unchanged")}  ${id}\n`);
  for (const id of report.skipped)
    io.stdout(`${c.yellow("skipped")}  ${id} (exists at the target; --force replaces it)\n`);
  for (const f of report.failed) io.stdout(`${c.red("failed")}  ${f.id}: ${f.message}\n`);
  const parts = [
    `${report.copied.length} ${report.dryRun ? "to copy" : "copied"}`,
    `${report.replaced.length} ${report.dryRun ? "to replace" : "replaced"}`,
    `${report.unchanged.length} unchanged`,
    `${report.skipped.length} skipped`,
    ...(report.failed.length > 0 ? [`${report.failed.length} failed`] : []),
  ];
  io.stdout(
    c.dim(
      `\n${parts.join(", ")}: ${report.from} → ${report.to}${report.dryRun ? " (dry run: nothing written)" : ""}\n`,
    ),
  );
}
