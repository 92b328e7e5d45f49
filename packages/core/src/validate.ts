import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter } from "./types.js";
import { parseSkillMd, type ParseOptions, type ParsedSkillMd } from "./parse.js";

/** Named rule sets. `lenient` is the default for loading. */
export type ProfileName = "spec" | "lenient" | "fastgpt" | "agentscope";
export const PROFILE_NAMES: readonly ProfileName[] = ["spec", "lenient", "fastgpt", "agentscope"];

export interface ValidateOptions {
  profile?: ProfileName;
  /** The skill directory's name, for the name/directory match rule. */
  dirName?: string;
  /** Shown in diagnostics. */
  file?: string;
  /** Key positions from the parser, so findings point at the offending line. */
  positions?: ParsedSkillMd["positions"];
  /** Body text, for body rules and best-practice lint. */
  body?: string;
  /** The skill's files (POSIX paths relative to the skill dir), for the unreferenced-resource lint. */
  files?: readonly string[];
  /** Add best-practice lint findings (warnings). Default true. */
  lint?: boolean;
}

export interface ValidationResult {
  parsed: ParsedSkillMd;
  diagnostics: Diagnostic[];
  /** No error-severity diagnostics. */
  valid: boolean;
}

// Placeholder rules until the profile tables land: name and description must be present.
export function validateFrontmatter(frontmatter: Frontmatter, options: ValidateOptions = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const key of ["name", "description"]) {
    const value = frontmatter[key];
    if (typeof value !== "string" || value.trim() === "") {
      out.push({ code: `${key}-missing`, severity: "error", message: `'${key}' is required`, file: options.file, line: 1, column: 1 });
    }
  }
  return out;
}

export function validateSkillMd(input: string | Uint8Array, options: ValidateOptions & ParseOptions = {}): ValidationResult {
  const parsed = parseSkillMd(input, options);
  const diagnostics = [...parsed.diagnostics];
  if (parsed.frontmatter) diagnostics.push(...validateFrontmatter(parsed.frontmatter, { ...options, positions: parsed.positions, body: parsed.body }));
  return { parsed, diagnostics, valid: !diagnostics.some((d) => d.severity === "error") };
}
