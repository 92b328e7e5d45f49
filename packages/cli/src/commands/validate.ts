import { Option, type Command } from "commander";
import os from "node:os";
import {
  AgentSkillsError,
  LimitExceededError,
  PROFILE_NAMES,
  validateSkillMd,
  type ProfileName,
  type SkillProvider,
} from "@skillport/core";
import { discoverSkillRoots } from "@skillport/fs";
import { displayPath, CliError, EXIT_PROBLEMS, progressLine, warnOn, type CliOutput } from "../io.js";
import { formatJson, formatSarif, formatText, type SkillReport } from "../report.js";
import {
  DEFAULT_MAX_SKILL_MD_BYTES,
  inspectSkillFiles,
  problemDiagnostic,
  readSkillMd,
  readSkillText,
} from "../skill-files.js";
import { isNotSkill, resolveSkillTargets } from "../targets.js";
import { positiveInteger } from "../options.js";
import { isAddress, openSource } from "../source-uri.js";
import { VERSION } from "../version.js";

interface ValidateOptions {
  profile: ProfileName;
  format: "text" | "json" | "sarif";
  lint: boolean;
  unreferenced?: boolean;
  maxFileBytes: number;
}

export function registerValidate(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("validate")
    .description("check SKILL.md files against a rule profile (exit 1 when any has errors)")
    .argument(
      "[paths...]",
      "skill directories, SKILL.md files, folders of skills, or source addresses (sqlite:./x.db, postgres://…, git+https://…, https://…, npm:…); " +
        "default: the .agents/skills and .claude/skills folders `list` finds",
    )
    .addOption(new Option("-p, --profile <profile>", "rule profile").choices(PROFILE_NAMES).default("spec"))
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json", "sarif"]).default("text"))
    .option("--no-lint", "skip best-practice warnings, reference checks and the file-tree policy check (SKILL.md only)")
    .option("--unreferenced", "also report resources that nothing references (info)")
    .option("--max-file-bytes <n>", "largest SKILL.md read", positiveInteger, DEFAULT_MAX_SKILL_MD_BYTES)
    .addHelpText(
      "after",
      "\nExamples:\n  skillport validate examples/skills\n  skillport validate my-skill/SKILL.md --profile lenient --format json\n  skillport validate sqlite:./skills.db",
    )
    .action(async (paths: string[], options: ValidateOptions) => {
      const reports =
        paths.length > 0 ? await validatePaths(paths, options, io.cwd, io) : await validateDiscovered(options, io);
      const output =
        options.format === "json"
          ? formatJson(reports)
          : options.format === "sarif"
            ? formatSarif(reports, VERSION)
            : formatText(reports, io);
      io.stdout(output);
      if (reports.some((r) => !r.valid)) setExit(EXIT_PROBLEMS);
    });
}

export async function validatePaths(
  paths: readonly string[],
  options: Omit<ValidateOptions, "format">,
  cwd: string,
  io?: CliOutput,
): Promise<SkillReport[]> {
  const reports: SkillReport[] = [];
  for (const given of paths) {
    // An address is opened by the one opener; a path is read file by file (a SKILL.md, a skill folder, a folder of
    // skills), so that every folder looked at is reported.
    if (await isAddress(given, cwd)) {
      const found = await validateSource(given, options, cwd, io);
      if (found.length === 0) throw new CliError(`no skills found in ${given}`);
      reports.push(...found);
    } else reports.push(...(await validateFiles(given, options, cwd, io, true)));
  }
  return reports;
}

/**
 * No path: the folders of skills `list` reads (`.agents/skills`, `.claude/skills` from the working directory up to the
 * git root, then in the home folder), or a usage error saying none were found (docs/decisions/0280).
 */
async function validateDiscovered(
  options: Omit<ValidateOptions, "format">,
  io: CliOutput,
  home = os.homedir(),
): Promise<SkillReport[]> {
  const roots = await discoverSkillRoots({ cwd: io.cwd, home });
  const hint = "pass a path: skillport validate ./my-skill, or a folder of skills";
  if (roots.length === 0)
    throw new CliError(
      `no skills to validate: no .agents/skills or .claude/skills folder here, up to the git root, or in your home; ${hint}`,
    );
  const reports: SkillReport[] = [];
  for (const root of roots) reports.push(...(await validateFiles(root.path, options, io.cwd, io, false)));
  if (!reports.some((r) => r.notSkill !== true)) {
    throw new CliError(`no skills found in ${roots.map((r) => displayPath(r.path, io.cwd)).join(", ")}; ${hint}`);
  }
  return reports;
}

/** One path; with `requireSkills`, a folder holding no skill at all is a usage error rather than an empty report. */
async function validateFiles(
  given: string,
  options: Omit<ValidateOptions, "format">,
  cwd: string,
  io: CliOutput | undefined,
  requireSkills: boolean,
): Promise<SkillReport[]> {
  const reports: SkillReport[] = [];
  const targets = await resolveSkillTargets([given], cwd, { maxFileBytes: options.maxFileBytes });
  if (requireSkills && targets.every(isNotSkill)) {
    const looked =
      targets.length === 0
        ? "it has no SKILL.md and no folders"
        : targets.length === 1
          ? "it has no SKILL.md, nor has its one folder"
          : `it has no SKILL.md, nor has any of its ${targets.length} folders`;
    throw new CliError(`no skills in ${given}: ${looked}; give a skill folder, its SKILL.md, or a folder of skills`);
  }
  const progress = io ? progressLine(io, "validating", targets.length) : undefined;
  for (const target of targets) {
    progress?.tick();
    const folder = displayPath(target.dir, cwd);
    if ("problem" in target) {
      // Not a skill under the one policy (no SKILL.md, a SKILL.md link leaving the skill, …): reported, never read.
      const diagnostic = problemDiagnostic(target.problem, folder);
      reports.push({
        path: diagnostic.file ?? folder,
        name: undefined,
        valid: diagnostic.severity !== "error",
        diagnostics: [diagnostic],
        notSkill: isNotSkill(target),
      });
      continue;
    }
    const file = `${folder}/${target.skill.file}`;
    const read = readSkillMd(target.skill, file, options.maxFileBytes);
    if ("diagnostic" in read) {
      reports.push({ path: file, name: undefined, valid: false, diagnostics: [read.diagnostic] });
      continue;
    }
    // With lint on (the default), the whole file tree is checked against the policy too; --no-lint checks SKILL.md only.
    const inspected = options.lint ? inspectSkillFiles(target.skill, folder) : undefined;
    const skill = target.skill;
    const checked = report(
      read.bytes,
      file,
      target.dirName,
      inspected?.files,
      (relPath) => readSkillText(skill, relPath, options.maxFileBytes),
      options,
    );
    const policy = inspected?.diagnostics ?? [];
    reports.push({
      ...checked,
      valid: checked.valid && !policy.some((d) => d.severity === "error"),
      diagnostics: [...checked.diagnostics, ...policy],
    });
  }
  progress?.done();
  return reports;
}

/** A source address: the stored SKILL.md texts, exactly as the source serves them, named `<source>:<id>/SKILL.md`. */
async function validateSource(
  address: string,
  options: Omit<ValidateOptions, "format">,
  cwd: string,
  io?: CliOutput,
): Promise<SkillReport[]> {
  const source = await openSource(address, { cwd, ...(io === undefined ? {} : { warn: warnOn(io) }) });
  try {
    const reports: SkillReport[] = [];
    const ids = source.only !== undefined ? [source.only] : await source.provider.discover();
    const progress = io ? progressLine(io, "validating", ids.length) : undefined;
    for (const id of ids) {
      progress?.tick();
      const file = `${source.label}:${id}/SKILL.md`;
      const problem = (code: string, message: string): SkillReport => ({
        path: file,
        name: undefined,
        valid: false,
        diagnostics: [{ code, severity: "error", message, file, line: 0, column: 0 }],
      });
      let bytes: Uint8Array;
      try {
        bytes = await source.provider.readFile(id, "SKILL.md");
      } catch (error) {
        if (!(error instanceof AgentSkillsError)) throw error;
        reports.push(
          problem(error instanceof LimitExceededError ? "skill-md-too-large" : "skill-md-unreadable", error.message),
        );
        continue;
      }
      if (bytes.byteLength > options.maxFileBytes) {
        reports.push(problem("skill-md-too-large", `SKILL.md is larger than ${options.maxFileBytes} bytes`));
        continue;
      }
      const files = options.lint ? (await source.provider.listFiles(id)).map((f) => f.path) : undefined;
      const texts = options.lint
        ? await markdownTexts(source.provider, id, files ?? [], options.maxFileBytes)
        : new Map<string, string>();
      reports.push(report(bytes, file, id, files, (relPath) => texts.get(relPath), options));
    }
    progress?.done();
    return reports;
  } finally {
    await source.close();
  }
}

/** The skill's Markdown files, read up front: reference checks follow them and ask synchronously. */
async function markdownTexts(
  provider: SkillProvider,
  id: string,
  files: readonly string[],
  maxBytes: number,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const relPath of files) {
    if (relPath === "SKILL.md" || !/\.(md|markdown|txt)$/i.test(relPath)) continue;
    try {
      const bytes = await provider.readFile(id, relPath);
      if (bytes.byteLength <= maxBytes) texts.set(relPath, new TextDecoder().decode(bytes));
    } catch (error) {
      if (!(error instanceof AgentSkillsError)) throw error;
    }
  }
  return texts;
}

function report(
  bytes: Uint8Array,
  file: string,
  dirName: string,
  files: readonly string[] | undefined,
  readText: (relPath: string) => string | undefined,
  options: Omit<ValidateOptions, "format">,
): SkillReport {
  const result = validateSkillMd(bytes, {
    profile: options.profile,
    dirName,
    file,
    files,
    lint: options.lint,
    readText,
    reportUnreferenced: options.unreferenced === true,
  });
  const name = result.parsed.frontmatter?.name;
  return {
    path: file,
    name: typeof name === "string" ? name : undefined,
    valid: result.valid,
    diagnostics: [...result.diagnostics].sort((a, b) => a.line - b.line || a.column - b.column),
  };
}
