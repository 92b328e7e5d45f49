import type { Diagnostic, Severity } from "../diagnostics.js";
import type { Frontmatter, FrontmatterValue } from "../types.js";
import {
  AGENTSCOPE_NAME_PATTERN,
  codePointLength,
  FASTGPT_DESCRIPTION_MAX_LENGTH,
  FASTGPT_NAME_MAX_LENGTH,
  FASTGPT_NAME_PATTERN,
  pyStrip,
  SPEC_COMPATIBILITY_MAX_LENGTH,
  SPEC_DESCRIPTION_MAX_LENGTH,
  specNameProblems,
} from "../names.js";
import { suggestClosest } from "../suggest.js";

/** The six fields the spec (and skills-ref) allows, in the order messages list them. */
const SPEC_FIELDS: readonly string[] = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

// A frontmatter can hold thousands of keys; past this many, one summary line stands for the rest.
const MAX_FIELD_FINDINGS = 20;

export interface RuleContext {
  frontmatter: Frontmatter;
  dirName: string | undefined;
  body: string | undefined;
  scalarSources: ReadonlyMap<string, string> | undefined;
  push(code: string, severity: Severity, message: string, key?: string): void;
}

/**
 * The value as text when YAML typed a scalar (`2048`, `true`, empty): skills-ref reads YAML with a strict dialect
 * that keeps every scalar a string, so rules compare the source text, not the number.
 */
function textValue(ctx: Pick<RuleContext, "frontmatter" | "scalarSources">, key: string): FrontmatterValue | undefined {
  if (!Object.hasOwn(ctx.frontmatter, key)) return undefined;
  const value = ctx.frontmatter[key];
  if (value === undefined || typeof value === "string" || Array.isArray(value)) return value;
  if (value === null || typeof value !== "object")
    return ctx.scalarSources?.get(key) ?? (value === null ? "" : String(value));
  return value;
}

const isBlank = (v: string): boolean => pyStrip(v) === "";

// Fields other profiles and clients read; a key near one of these is not a typo of a spec field.
const KNOWN_EXTENSIONS = new Set([
  "when_to_use",
  "when-to-use",
  "disable-model-invocation",
  "user-invocable",
  "argument-hint",
  "model",
  "version",
  "tags",
  "triggers",
  "author",
  "homepage",
  "category",
  "priority",
]);

/** `descripton` → `description`: the spec field an unknown key is probably a typo of. */
function typoOf(key: string): string | undefined {
  return SPEC_FIELDS.includes(key) || KNOWN_EXTENSIONS.has(key) ? undefined : suggestClosest(key, SPEC_FIELDS);
}

export function specRules(ctx: RuleContext): void {
  const unexpected = Object.keys(ctx.frontmatter).filter((key) => !SPEC_FIELDS.includes(key));
  for (const key of unexpected.slice(0, MAX_FIELD_FINDINGS)) {
    const typo = typoOf(key);
    const hint = typo === undefined ? `the spec allows only ${SPEC_FIELDS.join(", ")}` : `did you mean '${typo}'?`;
    ctx.push("field-unexpected", "error", `unexpected field '${key}': ${hint}`, key);
  }
  if (unexpected.length > MAX_FIELD_FINDINGS) {
    ctx.push(
      "field-unexpected",
      "error",
      `${unexpected.length - MAX_FIELD_FINDINGS} more unexpected fields not listed`,
    );
  }
  const name = textValue(ctx, "name");
  if (name === undefined) ctx.push("name-missing", "error", "required field 'name' is missing");
  else if (typeof name !== "string") ctx.push("name-not-string", "error", "'name' must be a non-empty string", "name");
  else if (isBlank(name)) ctx.push("name-empty", "error", "'name' must be a non-empty string", "name");
  else for (const p of specNameProblems(name, ctx.dirName)) ctx.push(p.code, "error", p.message, "name");

  descriptionRules(ctx, "error", SPEC_DESCRIPTION_MAX_LENGTH, "error");
  compatibilityRules(ctx, "error");
  shapeHints(ctx);
}

/** Profiles that allow other fields still name a likely typo of a spec field (`descripton:`). */
function typoHints(ctx: RuleContext): void {
  let found = 0;
  for (const key of Object.keys(ctx.frontmatter)) {
    const typo = typoOf(key);
    if (typo === undefined || Object.hasOwn(ctx.frontmatter, typo)) continue;
    if (++found > MAX_FIELD_FINDINGS) break;
    ctx.push("field-typo", "warning", `unknown field '${key}': did you mean '${typo}'?`, key);
  }
}

export function lenientRules(ctx: RuleContext): void {
  typoHints(ctx);
  const name = textValue(ctx, "name");
  if (name === undefined || typeof name !== "string" || isBlank(name)) {
    const why = name === undefined ? "is missing" : typeof name !== "string" ? "is not a string" : "is empty";
    if (ctx.dirName !== undefined)
      ctx.push(
        "name-missing",
        "warning",
        `'name' ${why}; using the directory name ${JSON.stringify(ctx.dirName)}`,
        "name",
      );
    else ctx.push("name-missing", "error", `'name' ${why} and there is no directory name to use instead`, "name");
  } else {
    for (const p of specNameProblems(name, ctx.dirName)) ctx.push(p.code, "warning", p.message, "name");
  }
  descriptionRules(ctx, "error", SPEC_DESCRIPTION_MAX_LENGTH, "warning");
  compatibilityRules(ctx, "warning");
}

export function fastgptRules(ctx: RuleContext): void {
  typoHints(ctx);
  const name = textValue(ctx, "name");
  if (name === undefined) ctx.push("name-missing", "error", "required field 'name' is missing");
  else if (typeof name !== "string") ctx.push("name-not-string", "error", "'name' must be a string", "name");
  else if (name === "") ctx.push("name-empty", "error", "'name' must not be empty", "name");
  else {
    if (!FASTGPT_NAME_PATTERN.test(name)) {
      ctx.push(
        "name-pattern",
        "error",
        `name ${JSON.stringify(name)} must be lowercase a-z, 0-9 and '-', starting and ending with a letter or digit`,
        "name",
      );
    }
    if (name.length > FASTGPT_NAME_MAX_LENGTH) {
      ctx.push(
        "name-too-long",
        "error",
        `name is ${name.length} characters; FastGPT allows ${FASTGPT_NAME_MAX_LENGTH}`,
        "name",
      );
    }
  }
  descriptionRules(ctx, "warning", FASTGPT_DESCRIPTION_MAX_LENGTH, "error");
}

export function agentscopeRules(ctx: RuleContext): void {
  typoHints(ctx);
  const name = textValue(ctx, "name");
  if (name === undefined) ctx.push("name-missing", "error", "required field 'name' is missing");
  else if (typeof name !== "string") ctx.push("name-not-string", "error", "'name' must be a string", "name");
  else if (name.trim() === "") ctx.push("name-empty", "error", "'name' must not be blank", "name");
  else if (!AGENTSCOPE_NAME_PATTERN.test(name)) {
    ctx.push(
      "name-pattern",
      "error",
      `name ${JSON.stringify(name)} must hold only lowercase letters, digits, '_' and '-'`,
      "name",
    );
  }
  const description = textValue(ctx, "description");
  if (description === undefined) ctx.push("description-missing", "error", "required field 'description' is missing");
  else if (typeof description !== "string")
    ctx.push("description-not-string", "error", "'description' must be a string", "description");
  else if (description.trim() === "")
    ctx.push("description-empty", "error", "'description' must not be blank", "description");
  if (ctx.body !== undefined && ctx.body.trim() === "")
    ctx.push("body-empty", "error", "the body (skill content after the frontmatter) is empty");
}

function descriptionRules(ctx: RuleContext, missing: Severity, maxLength: number, tooLong: Severity): void {
  const description = textValue(ctx, "description");
  if (description === undefined) ctx.push("description-missing", missing, "required field 'description' is missing");
  else if (typeof description !== "string")
    ctx.push("description-not-string", missing, "'description' must be a non-empty string", "description");
  else if (isBlank(description))
    ctx.push("description-empty", missing, "'description' must be a non-empty string", "description");
  else {
    const length = codePointLength(description);
    if (length > maxLength)
      ctx.push(
        "description-too-long",
        tooLong,
        `description is ${length} characters; the limit is ${maxLength}`,
        "description",
      );
  }
}

function compatibilityRules(ctx: RuleContext, severity: Severity): void {
  const compatibility = textValue(ctx, "compatibility");
  if (compatibility === undefined) return;
  if (typeof compatibility !== "string")
    ctx.push("compatibility-not-string", severity, "'compatibility' must be a string", "compatibility");
  else {
    const length = codePointLength(compatibility);
    if (length > SPEC_COMPATIBILITY_MAX_LENGTH) {
      ctx.push(
        "compatibility-too-long",
        severity,
        `compatibility is ${length} characters; the limit is ${SPEC_COMPATIBILITY_MAX_LENGTH}`,
        "compatibility",
      );
    }
  }
}

/** Shapes the spec text asks for but skills-ref does not enforce (so they never change its verdict). */
function shapeHints(ctx: RuleContext): void {
  const severity: Severity = "warning";
  if (Object.hasOwn(ctx.frontmatter, "metadata")) {
    const metadata = ctx.frontmatter.metadata;
    const flat =
      metadata !== null &&
      typeof metadata === "object" &&
      !Array.isArray(metadata) &&
      Object.values(metadata).every((v) => v === null || typeof v !== "object");
    if (!flat)
      ctx.push(
        "metadata-not-string-map",
        severity,
        "'metadata' should map keys to string values (nested values are turned into text)",
        "metadata",
      );
  }
  const tools = textValue(ctx, "allowed-tools");
  if (tools !== undefined && typeof tools !== "string") {
    ctx.push(
      "allowed-tools-not-string",
      severity,
      "'allowed-tools' should be one space-separated string, e.g. 'Bash(git:*) Read'",
      "allowed-tools",
    );
  }
}

export type ProfileRules = (ctx: RuleContext) => void;

export function makeContext(
  frontmatter: Frontmatter,
  opts: {
    dirName?: string | undefined;
    body?: string | undefined;
    scalarSources?: ReadonlyMap<string, string> | undefined;
    positions?: ReadonlyMap<string, { line: number; column: number }> | undefined;
    file?: string | undefined;
  },
  out: Diagnostic[],
): RuleContext {
  return {
    frontmatter,
    dirName: opts.dirName,
    body: opts.body,
    scalarSources: opts.scalarSources,
    push(code, severity, message, key) {
      const at = (key !== undefined ? opts.positions?.get(key) : undefined) ?? { line: 1, column: 1 };
      const d: Diagnostic = { code, severity, message, line: at.line, column: at.column };
      if (opts.file !== undefined) d.file = opts.file;
      out.push(d);
    },
  };
}
