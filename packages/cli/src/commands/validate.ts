import { Option, type Command } from "commander";
import { PROFILE_NAMES, validateSkillMd, type ProfileName } from "@skillport/core";
import { CliError, EXIT_PROBLEMS, progressLine, type CliIO } from "../io.js";
import { formatJson, formatSarif, formatText, type SkillReport } from "../report.js";
import { DEFAULT_MAX_SKILL_MD_BYTES, listSkillFiles, readSkillMd, readSkillText } from "../skill-files.js";
import { displayPath, resolveSkillTargets } from "../targets.js";
import { positiveInteger } from "../options.js";
import { VERSION } from "../version.js";

interface ValidateOptions {
  profile: ProfileName;
  format: "text" | "json" | "sarif";
  lint: boolean;
  unreferenced?: boolean;
  maxFileBytes: number;
}

export function registerValidate(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("validate")
    .description("check SKILL.md files against a rule profile (exit 1 when any has errors)")
    .argument("[paths...]", "skill directories, SKILL.md files, or folders of skills", ["."])
    .addOption(new Option("-p, --profile <profile>", "rule profile").choices(PROFILE_NAMES).default("spec"))
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json", "sarif"]).default("text"))
    .option("--no-lint", "skip best-practice warnings and reference checks")
    .option("--unreferenced", "also report resources that nothing references (info)")
    .option("--max-file-bytes <n>", "largest SKILL.md read", positiveInteger, DEFAULT_MAX_SKILL_MD_BYTES)
    .addHelpText(
      "after",
      "\nExamples:\n  skillport validate examples/skills\n  skillport validate my-skill/SKILL.md --profile lenient --format json",
    )
    .action(async (paths: string[], options: ValidateOptions) => {
      const reports = await validatePaths(paths, options, io.cwd, io);
      if (reports.length === 0) throw new CliError(`no skills found in ${paths.join(", ")}`, EXIT_PROBLEMS);
      const output =
        options.format === "json" ? formatJson(reports) : options.format === "sarif" ? formatSarif(reports, VERSION) : formatText(reports, io);
      io.stdout(output);
      if (reports.some((r) => !r.valid)) setExit(EXIT_PROBLEMS);
    });
}

export async function validatePaths(
  paths: readonly string[],
  options: Omit<ValidateOptions, "format">,
  cwd: string,
  io?: CliIO,
): Promise<SkillReport[]> {
  const reports: SkillReport[] = [];
  const targets = await resolveSkillTargets(paths, cwd);
  const progress = io ? progressLine(io, "validating", targets.length) : undefined;
  for (const target of targets) {
    progress?.tick();
    const file = displayPath(target.skillMd, cwd);
    const read = await readSkillMd(target.skillMd, file, options.maxFileBytes);
    if ("diagnostic" in read) {
      reports.push({ path: file, name: undefined, valid: false, diagnostics: [read.diagnostic] });
      continue;
    }
    const files = options.lint ? await listSkillFiles(target.dir) : undefined;
    const result = validateSkillMd(read.bytes, {
      profile: options.profile,
      dirName: target.dirName,
      file,
      files,
      lint: options.lint,
      readText: (relPath) => readSkillText(target.dir, relPath, options.maxFileBytes),
      reportUnreferenced: options.unreferenced === true,
    });
    const name = result.parsed.frontmatter?.name;
    reports.push({
      path: file,
      name: typeof name === "string" ? name : undefined,
      valid: result.valid,
      diagnostics: [...result.diagnostics].sort((a, b) => a.line - b.line || a.column - b.column),
    });
  }
  progress?.done();
  return reports;
}
