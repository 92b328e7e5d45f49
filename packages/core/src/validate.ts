import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter } from "./types.js";
import { parseSkillMd, type ParseOptions, type ParsedSkillMd } from "./parse.js";
import { lintSkill, type LintLimits } from "./lint.js";
import { metadataKeyLines, readDeclaration } from "./declaration.js";
import {
  agentscopeRules,
  fastgptRules,
  lenientRules,
  makeContext,
  specRules,
  type ProfileRules,
} from "./format/profiles.js";

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
  /** The skill's files (POSIX paths relative to the skill dir), for the reference lint. */
  files?: readonly string[];
  /** Text of a Markdown file of the skill, so references are followed through the files the body points to. */
  readText?: (path: string) => string | undefined;
  /** Report resources nothing references (info). Default false. */
  reportUnreferenced?: boolean;
  /** Add best-practice lint findings (warnings). Default true. */
  lint?: boolean;
  /** Thresholds for the lint findings. */
  lintLimits?: Partial<LintLimits>;
  /** Source text of non-string scalars, from the parser (`parsed.scalarSources`); see docs/skill-md.md. */
  scalarSources?: ReadonlyMap<string, string>;
  /** 1-based file line of the first body line, for body findings. */
  bodyLine?: number;
  /** 1-based file line of each `metadata` sub-key, so declaration findings point at their line. */
  metadataLines?: ReadonlyMap<string, { line: number; column: number }>;
}

export interface ValidationResult {
  parsed: ParsedSkillMd;
  diagnostics: Diagnostic[];
  /** No error-severity diagnostics. */
  valid: boolean;
}

const PROFILES: Readonly<Record<ProfileName, ProfileRules>> = {
  spec: specRules,
  lenient: lenientRules,
  fastgpt: fastgptRules,
  agentscope: agentscopeRules,
};

/** Checks parsed frontmatter (and the body, when given) against one profile, plus best-practice lint. */
export function validateFrontmatter(frontmatter: Frontmatter, options: ValidateOptions = {}): Diagnostic[] {
  const profile = options.profile ?? "lenient";
  const rules = PROFILES[profile];
  if (rules === undefined)
    throw new TypeError(
      `unknown validation profile ${JSON.stringify(profile)}; use one of ${PROFILE_NAMES.join(", ")}`,
    );
  const out: Diagnostic[] = [];
  rules(makeContext(frontmatter, options, out));
  declarationRules(frontmatter, options, out);
  if (options.lint !== false) {
    out.push(
      ...lintSkill({
        frontmatter,
        ...(options.body !== undefined && { body: options.body }),
        ...(options.files !== undefined && { files: options.files }),
        ...(options.readText !== undefined && { readText: options.readText }),
        ...(options.reportUnreferenced !== undefined && { reportUnreferenced: options.reportUnreferenced }),
        ...(options.positions !== undefined && { positions: options.positions }),
        ...(options.bodyLine !== undefined && { bodyLine: options.bodyLine }),
        ...(options.file !== undefined && { file: options.file }),
        ...(options.lintLimits !== undefined && { limits: options.lintLimits }),
      }),
    );
  }
  return out;
}

/**
 * Parses and validates one SKILL.md. Structural problems (no frontmatter, unclosed, invalid YAML, not a mapping)
 * stop before the field rules, as in skills-ref; field findings are all collected.
 */
export function validateSkillMd(
  input: string | Uint8Array,
  options: ValidateOptions & ParseOptions = {},
): ValidationResult {
  const profile = options.profile ?? "lenient";
  const parsed = parseSkillMd(input, options);
  const diagnostics = parsed.diagnostics.map((d) => adjustForProfile(d, profile));
  if (profile === "spec") {
    for (const v of parsed.strictYaml) {
      const d: Diagnostic = {
        code: "yaml-strict",
        severity: "error",
        message: `the spec's reference validator reads a strict YAML subset without ${v.feature}s; write plain block YAML instead`,
        line: v.line,
        column: v.column,
      };
      if (options.file !== undefined) d.file = options.file;
      diagnostics.push(d);
    }
  }
  const structural = diagnostics.some((d) => d.severity === "error");
  if (parsed.frontmatter && !structural) {
    diagnostics.push(
      ...validateFrontmatter(parsed.frontmatter, {
        ...options,
        positions: parsed.positions,
        body: parsed.body,
        bodyLine: parsed.bodyLine,
        scalarSources: parsed.scalarSources,
        metadataLines: metadataLinesOf(input, parsed),
      }),
    );
  }
  return { parsed, diagnostics, valid: !diagnostics.some((d) => d.severity === "error") };
}

/** The spec validator rejects what the parser recovered from, so recoveries are errors under `spec`. */
function adjustForProfile(d: Diagnostic, profile: ProfileName): Diagnostic {
  if (profile === "spec" && d.code === "yaml-unquoted-colon") return { ...d, severity: "error" };
  return d;
}

/** Least-privilege declarations (`metadata` keys `skillport.*`, decision 0360): every profile checks them. */
function declarationRules(frontmatter: Frontmatter, options: ValidateOptions, out: Diagnostic[]): void {
  const { problems } = readDeclaration(frontmatter.metadata);
  const metadataAt = options.positions?.get("metadata") ?? { line: 1, column: 1 };
  for (const p of problems) {
    const at = options.metadataLines?.get(p.key) ?? metadataAt;
    const d: Diagnostic = {
      code: p.severity === "error" ? "declaration-invalid" : "declaration-unknown-key",
      severity: p.severity,
      message: p.message,
      line: at.line,
      column: at.column,
    };
    if (options.file !== undefined) d.file = options.file;
    out.push(d);
  }
}

function metadataLinesOf(
  input: string | Uint8Array,
  parsed: ParsedSkillMd,
): Map<string, { line: number; column: number }> | undefined {
  const at = parsed.positions.get("metadata");
  if (at === undefined) return undefined;
  const text = typeof input === "string" ? input : new TextDecoder().decode(input);
  return metadataKeyLines(text, at.line);
}
