import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter } from "./types.js";
import { findFrontmatterEnd } from "./format/delimit.js";
import { parseFlatFrontmatter } from "./format/fast-path.js";
import { decodeSkillMd, findNul, LineIndex, utf8ByteLength, type Position } from "./format/text.js";
import { parseYamlFull, type StrictYamlViolation } from "./format/yaml-full.js";

export { findFrontmatterEnd, type FrontmatterBounds, type FindFrontmatterOptions } from "./format/delimit.js";

/** Limits applied while parsing one SKILL.md. Every one is an option with a safe default. */
export interface ParseLimits {
  /** Largest frontmatter accepted, in UTF-8 bytes. */
  maxFrontmatterBytes: number;
  /** Most YAML alias nodes resolved (alias bombs fail fast). */
  maxAliases: number;
  /** Deepest nesting of maps and sequences. */
  maxDepth: number;
  /**
   * Most lines in the frontmatter. Default: no limit — the parse is linear in the frontmatter's size, so the byte
   * limit bounds the work, and a valid frontmatter below it is never refused for its line count (issue 20, decision
   * 0257). Set it for a tighter bound of your own.
   */
  maxFrontmatterLines: number;
}

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxFrontmatterBytes: 256 * 1024,
  maxAliases: 100,
  maxDepth: 64,
  maxFrontmatterLines: Number.POSITIVE_INFINITY,
});

export interface ParseOptions {
  /** Shown in diagnostics, e.g. `skills/pdf/SKILL.md`. */
  file?: string;
  limits?: Partial<ParseLimits>;
  /** Use the hand-written parser for flat frontmatter when it applies (same result, much faster). Default true. */
  fastPath?: boolean;
}

/** A YAML feature the reference validator (strict YAML) refuses; reported as an error by the `spec` profile only. */
export interface StrictYamlFinding {
  feature: StrictYamlViolation["feature"];
  line: number;
  column: number;
}

export interface ParsedFrontmatter {
  /** Undefined when there is no usable frontmatter; `diagnostics` says why. */
  frontmatter: Frontmatter | undefined;
  /** 1-based position of each top-level frontmatter key in the file (frontmatter line 1 is file line 2). */
  positions: Map<string, Position>;
  diagnostics: Diagnostic[];
  /**
   * Where the body starts: an offset into the input as given — UTF-16 units for a string, bytes for bytes
   * (a BOM counts). 0 when there is no frontmatter (the whole file is body); the input length when unclosed.
   */
  bodyOffset: number;
  /** 1-based line of the first body line in the file. */
  bodyLine: number;
  /** Source text of top-level values that are not strings (`2048`, `true`, empty), for rules that read YAML as text. */
  scalarSources: Map<string, string>;
  strictYaml: StrictYamlFinding[];
}

export interface ParsedSkillMd extends ParsedFrontmatter {
  /** Everything after the closing `---` line, verbatim (the whole text when there is no frontmatter). */
  body: string;
}

/**
 * Parses the frontmatter of a SKILL.md without touching the body. Never throws on bad input: problems come back
 * as diagnostics and `frontmatter` is undefined when nothing usable was found.
 */
export function parseFrontmatter(input: string | Uint8Array, options: ParseOptions = {}): ParsedFrontmatter {
  return parseInternal(input, options, "frontmatter").parsed;
}

/** Parses a whole SKILL.md: frontmatter (see parseFrontmatter) plus the body, verbatim. Never throws on bad input. */
export function parseSkillMd(input: string | Uint8Array, options: ParseOptions = {}): ParsedSkillMd {
  const { parsed, text, bodyStart } = parseInternal(input, options, "all");
  return { ...parsed, body: text.slice(bodyStart) };
}

/** `scope` says how much text is checked for binary content: just the frontmatter, or the body too. */
function parseInternal(
  input: string | Uint8Array,
  options: ParseOptions,
  scope: "frontmatter" | "all",
): { parsed: ParsedFrontmatter; text: string; bodyStart: number } {
  if (typeof input !== "string" && !(input instanceof Uint8Array)) {
    throw new TypeError("parseSkillMd expects a string or a Uint8Array");
  }
  const limits = options.limits === undefined ? DEFAULT_PARSE_LIMITS : { ...DEFAULT_PARSE_LIMITS, ...options.limits };
  const parsed: ParsedFrontmatter = {
    frontmatter: undefined,
    positions: new Map(),
    diagnostics: [],
    bodyOffset: 0,
    bodyLine: 1,
    scalarSources: new Map(),
    strictYaml: [],
  };
  const report = (
    code: string,
    message: string,
    at: Position = { line: 1, column: 1 },
    severity: Diagnostic["severity"] = "error",
  ): void => {
    const d: Diagnostic = { code, severity, message, line: at.line, column: at.column };
    if (options.file !== undefined) d.file = options.file;
    parsed.diagnostics.push(d);
  };
  const inputLength = typeof input === "string" ? input.length : input.byteLength;

  const decoded = decodeSkillMd(input);
  if (!decoded.ok) {
    report(decoded.code, decoded.message);
    parsed.bodyOffset = inputLength;
    return { parsed, text: "", bodyStart: 0 };
  }
  const text = decoded.text;
  const bomLength = !hasBom(input) ? 0 : typeof input === "string" ? 1 : 3;
  const inputOffset = (offset: number): number =>
    bomLength + (typeof input === "string" ? offset : utf8ByteLength(text.slice(0, offset)));

  const bounds = findFrontmatterEnd(text);
  const nul = findNul(text, scope === "frontmatter" && bounds.status === "closed" ? bounds.bodyOffset : text.length);
  if (nul !== -1) {
    report(
      "content-binary",
      "SKILL.md contains NUL bytes; it looks like a binary file, not Markdown",
      new LineIndex(text.slice(0, nul + 1)).at(nul),
    );
    parsed.bodyOffset = inputLength;
    return { parsed, text: "", bodyStart: 0 };
  }
  if (bounds.status === "missing") {
    report("frontmatter-missing", "SKILL.md must start with a '---' line that opens the YAML frontmatter");
    return { parsed, text, bodyStart: 0 };
  }
  if (bounds.status === "unclosed") {
    report("frontmatter-unclosed", "the frontmatter opened on line 1 is never closed by a line that is exactly '---'");
    parsed.bodyOffset = inputLength;
    return { parsed, text, bodyStart: text.length };
  }
  parsed.bodyOffset = inputOffset(bounds.bodyOffset);
  parsed.bodyLine = bounds.bodyLine;
  const result = { parsed, text, bodyStart: bounds.bodyOffset };

  let yamlText = text.slice(bounds.yamlStart, bounds.yamlEnd);
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a text near the limit needs its bytes counted.
  if (
    yamlText.length > limits.maxFrontmatterBytes ||
    (yamlText.length * 3 > limits.maxFrontmatterBytes && utf8ByteLength(yamlText) > limits.maxFrontmatterBytes)
  ) {
    report("frontmatter-too-large", `the frontmatter is larger than the limit of ${limits.maxFrontmatterBytes} bytes`, {
      line: 2,
      column: 1,
    });
    return result;
  }
  if (bounds.bodyLine - 3 > limits.maxFrontmatterLines) {
    report("frontmatter-too-large", `the frontmatter has more than the limit of ${limits.maxFrontmatterLines} lines`, {
      line: 2,
      column: 1,
    });
    return result;
  }
  // Bare CRs end lines for the delimiter scan; YAML parsers want LF. One for one, so every offset still holds.
  if (yamlText.includes("\r")) yamlText = yamlText.replace(/\r(?!\n)/g, "\n");

  if (options.fastPath !== false) {
    const flat = parseFlatFrontmatter(yamlText);
    if (flat) {
      parsed.frontmatter = flat.frontmatter;
      // forEach, not for-of with destructuring: every SKILL.md of a listing passes here, most of them before the
      // optimising compiler has seen this code, and unoptimised destructuring runs the iterator protocol per entry.
      flat.keyLines.forEach((line, key) => parsed.positions.set(key, { line: line + 2, column: 1 }));
      parsed.scalarSources = flat.scalarSources;
      return result;
    }
  }

  let full: ReturnType<typeof parseYamlFull>;
  try {
    full = parseYamlFull(yamlText, limits);
  } catch {
    // Untrusted input must never crash a listing; the checks above leave nothing known to reach here.
    report("yaml-invalid", "invalid YAML: the parser could not read this frontmatter", { line: 2, column: 1 });
    return result;
  }
  const inFile = (at: Position): Position => ({ line: at.line + 1, column: at.column });
  for (const f of full.findings) report(f.code, f.message, inFile(f.at), f.severity);
  parsed.frontmatter = full.frontmatter;
  for (const [key, at] of full.keyPositions) parsed.positions.set(key, inFile(at));
  parsed.scalarSources = full.scalarSources;
  parsed.strictYaml = full.strictViolations.map((v) => ({ feature: v.feature, ...inFile(v.at) }));
  return result;
}

function hasBom(input: string | Uint8Array): boolean {
  if (typeof input === "string") return input.charCodeAt(0) === 0xfeff;
  return input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
}
