import type { Diagnostic } from "@skillport/core";
import { DEFAULT_MAX_FILE_BYTES, type SkillDirectory, type SkillProblem } from "@skillport/fs";

export const DEFAULT_MAX_SKILL_MD_BYTES = DEFAULT_MAX_FILE_BYTES;

/** Folders resource lint never looks into (dependency and VCS folders), left out of the file list lint sees. */
const LINT_SKIPPED = new Set([".git", "node_modules"]);

/**
 * Reads a skill's SKILL.md for validation through the opened, verified descriptor (fs's policy). Anything that is not
 * readable within the size limit becomes a diagnostic rather than an exception, so one broken skill never stops the
 * others from being checked.
 */
export function readSkillMd(
  skill: SkillDirectory,
  display: string,
  maxBytes = DEFAULT_MAX_SKILL_MD_BYTES,
): { bytes: Uint8Array } | { diagnostic: Diagnostic } {
  const problem = (code: string, message: string) => ({
    diagnostic: { code, severity: "error" as const, message, file: display, line: 0, column: 0 },
  });
  let file;
  try {
    file = skill.openSkillMd();
  } catch (error) {
    return problem(
      "skill-md-unreadable",
      `${skill.file} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    if (file.size > maxBytes) return problem("skill-md-too-large", `${skill.file} is larger than ${maxBytes} bytes`);
    const bytes = file.readAllSync(maxBytes);
    return bytes === undefined
      ? problem("skill-md-too-large", `${skill.file} is larger than ${maxBytes} bytes`)
      : { bytes };
  } finally {
    file.close();
  }
}

/**
 * A Markdown file of the skill as text, for following references: read through the skill's policy (links inside the
 * skill served, confined by the opened file); undefined unless a regular file within the limit, in UTF-8.
 */
export function readSkillText(skill: SkillDirectory, relPath: string, maxBytes: number): string | undefined {
  let file;
  try {
    file = skill.openFile(relPath);
  } catch {
    return undefined;
  }
  try {
    const bytes = file.size > maxBytes ? undefined : file.readAllSync(maxBytes);
    return bytes === undefined ? undefined : new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}

/**
 * A skill's files for resource lint, and every file the policy refuses (links leaving the skill, dangling links,
 * special files, unsafe names, files over the limit) as diagnostics: "report, don't refuse".
 */
export function inspectSkillFiles(
  skill: SkillDirectory,
  display: string,
): { files: string[]; diagnostics: Diagnostic[] } {
  const { files, problems } = skill.inspectFiles({
    exclude: (rel, isDir) =>
      isDir && LINT_SKIPPED.has(rel.slice(rel.lastIndexOf("/") + 1)) ? "not linted" : undefined,
  });
  return { files: files.map((f) => f.path), diagnostics: problems.map((p) => problemDiagnostic(p, display)) };
}

/** A policy problem as a validate diagnostic; `display` is the skill folder as the user sees it. */
export function problemDiagnostic(problem: SkillProblem, display: string): Diagnostic {
  const file = problem.path === "" ? `${display}/` : `${display}/${problem.path}`;
  return { code: problem.code, severity: problem.severity, message: problem.message, file, line: 0, column: 0 };
}
