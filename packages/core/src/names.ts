/**
 * Skill name rules. The `spec` rules mirror the reference validator (skills-ref): they run on NFKC(strip(name)),
 * count Unicode code points, and accept any Unicode letter or digit.
 */

export const SPEC_NAME_MAX_LENGTH = 64;
export const SPEC_DESCRIPTION_MAX_LENGTH = 1024;
export const SPEC_COMPATIBILITY_MAX_LENGTH = 500;
export const FASTGPT_NAME_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const FASTGPT_NAME_MAX_LENGTH = 50;
export const FASTGPT_DESCRIPTION_MAX_LENGTH = 500;
/** AgentScope names: lowercase letters, digits and underscores; hyphens are tolerated. */
export const AGENTSCOPE_NAME_PATTERN = /^[a-z0-9_-]+$/;

export interface NameProblem {
  code:
    | "name-too-long"
    | "name-not-lowercase"
    | "name-hyphen-edge"
    | "name-consecutive-hyphens"
    | "name-invalid-chars"
    | "name-dir-mismatch";
  message: string;
}

// Python's str.isspace() set, so strip() here trims exactly what skills-ref trims.
const PY_SPACE =
  "\t\n\u000b\f\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Trims the whitespace Python's `str.strip()` trims (JS `trim()` differs: it strips U+FEFF, keeps U+001C–U+001F). */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PY_SPACE.includes(text.charAt(start))) start++;
  while (end > start && PY_SPACE.includes(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

/** Length in Unicode code points (what Python's `len` counts). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The form a name is compared in: NFKC of the stripped text. */
export function normalizeSkillName(name: string): string {
  return pyStrip(name).normalize("NFKC");
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * Every spec rule a non-blank name breaks, in the reference validator's order: length, lowercase, leading or
 * trailing hyphen, consecutive hyphens, characters, then the directory match (only when `dirName` is given).
 */
export function specNameProblems(name: string, dirName?: string): NameProblem[] {
  const normalized = normalizeSkillName(name);
  const shown = JSON.stringify(normalized);
  const problems: NameProblem[] = [];
  const length = codePointLength(normalized);
  if (length > SPEC_NAME_MAX_LENGTH) {
    problems.push({
      code: "name-too-long",
      message: `name ${shown} is ${length} characters; the limit is ${SPEC_NAME_MAX_LENGTH}`,
    });
  }
  if (normalized !== normalized.toLowerCase()) {
    problems.push({ code: "name-not-lowercase", message: `name ${shown} must be lowercase` });
  }
  if (normalized.startsWith("-") || normalized.endsWith("-")) {
    problems.push({ code: "name-hyphen-edge", message: `name ${shown} must not start or end with '-'` });
  }
  if (normalized.includes("--")) {
    problems.push({ code: "name-consecutive-hyphens", message: `name ${shown} must not contain '--'` });
  }
  const bad = [...normalized].filter((c) => c !== "-" && !LETTER_OR_DIGIT.test(c));
  if (bad.length > 0) {
    const shownBad = [...new Set(bad)]
      .slice(0, 5)
      .map((c) => JSON.stringify(c))
      .join(", ");
    problems.push({
      code: "name-invalid-chars",
      message: `name ${shown} may hold only letters, digits and '-' (found ${shownBad})`,
    });
  }
  if (dirName !== undefined && dirName.normalize("NFKC") !== normalized) {
    problems.push({
      code: "name-dir-mismatch",
      message: `name ${shown} does not match its directory ${JSON.stringify(dirName)}`,
    });
  }
  return problems;
}

/** True when `name` passes every spec name rule (directory match aside). */
export function isSpecSkillName(name: string): boolean {
  return pyStrip(name) !== "" && specNameProblems(name).length === 0;
}
