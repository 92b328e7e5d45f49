import type { Frontmatter } from "../types.js";

/** What the flat fast path produced; line numbers are 0-based lines of the YAML text. */
export interface FlatFrontmatter {
  frontmatter: Frontmatter;
  keyLines: Map<string, number>;
  /** Source text of top-level values that are not strings (numbers, booleans, empty → null). */
  scalarSources: Map<string, string>;
}

/**
 * A one-line scalar's value: a string, a number or a boolean (never null: `null` and `~` fall back). Numbers and
 * booleans keep their source text, which is the scalar text itself.
 */
type Scalar = string | number | boolean;

const NON_STRING_KEYS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);
const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);
// Spaces and tabs only: what YAML calls white space (JavaScript's `trim` removes much more).
const BLANK = /^[ \t]*$/;
const SIMPLE_NUMBER = /^[-+]?[0-9]+(\.[0-9]+)?$/;
// What ends or comments a plain scalar: `: ` or `:` at the end (a mapping), ` #` (a comment). One native test.
const PLAIN_BREAKS = /: | #|:$/;
// Characters that start YAML syntax (or a number-like token) when they open a plain scalar.
const SPECIAL_START = new Set([..."-?:,[]{}#&*!|>'\"%@`~.+0123456789"]);
// Characters that YAML treats specially or that this path does not bother to get exactly right.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
// Top-level block scalar headers this path reads: clip or strip chomping, indentation taken from the first line.
const BLOCK_HEADERS: ReadonlyMap<string, BlockStyle> = new Map([
  ["|", { folded: false, strip: false }],
  ["|-", { folded: false, strip: true }],
  [">", { folded: true, strip: false }],
  [">-", { folded: true, strip: true }],
]);

interface BlockStyle {
  folded: boolean;
  strip: boolean;
}

/**
 * Parses the common flat frontmatter (`key: value` lines, simple quoted strings, one level of `  k: v` under a
 * key with no value, plain top-level `|`/`>` block scalars) without a YAML parser. Returns undefined the moment
 * anything is not trivially simple, so the caller falls back to the full parser; whatever it returns equals what
 * `yaml` (YAML 1.2 core schema) gives.
 */
export function parseFlatFrontmatter(yamlText: string): FlatFrontmatter | undefined {
  const lines = yamlText.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const frontmatter: Frontmatter = {};
  const keyLines = new Map<string, number>();
  const scalarSources = new Map<string, string>();
  let open: { key: string; map: Frontmatter | undefined; indent: number } | undefined;

  const closeOpen = (): void => {
    if (!open) return;
    if (open.map) frontmatter[open.key] = open.map;
    else {
      frontmatter[open.key] = null;
      scalarSources.set(open.key, "");
    }
    open = undefined;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = withoutCr(lines[i] ?? "");
    if (line === "") continue;
    if (line.charCodeAt(0) === 32) {
      if (!open) return undefined;
      const indent = leadingSpaces(line);
      if (open.map === undefined) {
        open.map = {};
        open.indent = indent;
      } else if (indent !== open.indent) return undefined;
      const pair = splitPair(line.slice(indent));
      if (!pair || pair.rest === "" || Object.hasOwn(open.map, pair.key)) return undefined;
      const scalar = parseScalar(pair.rest);
      if (scalar === undefined) return undefined;
      open.map[pair.key] = scalar;
      continue;
    }
    closeOpen();
    const pair = splitPair(line);
    if (!pair || keyLines.has(pair.key)) return undefined;
    keyLines.set(pair.key, i);
    if (pair.rest === "") {
      open = { key: pair.key, map: undefined, indent: 0 };
      continue;
    }
    // Headers are one or two characters: a long value is never hashed just to miss.
    const block = pair.rest.length <= 2 ? BLOCK_HEADERS.get(pair.rest) : undefined;
    if (block) {
      const read = readBlockScalar(lines, i + 1, block, yamlText.endsWith("\n"));
      if (!read) return undefined;
      frontmatter[pair.key] = read.value;
      i = read.end - 1;
      continue;
    }
    const scalar = parseScalar(pair.rest);
    if (scalar === undefined) return undefined;
    frontmatter[pair.key] = scalar;
    if (typeof scalar !== "string") scalarSources.set(pair.key, pair.rest);
  }
  closeOpen();
  if (keyLines.size === 0) return undefined;
  return { frontmatter, keyLines, scalarSources };
}

/**
 * Reads the content lines of a top-level block scalar starting at `start`; `end` is the first line after it (the
 * next top-level line, or the end). Undefined for anything beyond the plain shape: empty first line, uneven or
 * (when folded) deeper indentation, tabs, trailing or whitespace-only lines, unsafe characters.
 */
function readBlockScalar(
  lines: readonly string[],
  start: number,
  style: BlockStyle,
  endsWithBreak: boolean,
): { value: string; end: number } | undefined {
  const content: string[] = [];
  let indent = 0;
  let end = start;
  for (; end < lines.length; end++) {
    const line = withoutCr(lines[end] ?? "");
    if (line === "") {
      // `yaml` takes the indentation from the first non-empty line and checks leading empty lines against it.
      if (indent === 0) return undefined;
      content.push("");
      continue;
    }
    const lineIndent = leadingSpaces(line);
    if (lineIndent === 0) break;
    if (lineIndent === line.length) return undefined;
    if (indent === 0) indent = lineIndent;
    if (lineIndent < indent || (style.folded && lineIndent > indent)) return undefined;
    const text = line.slice(indent);
    // UNSAFE also matches tabs and stray CRs.
    if (text.endsWith(" ") || UNSAFE.test(text)) return undefined;
    content.push(text);
  }
  // `yaml` clips a final line without a line break to "\n" too; not worth mirroring for input parse.ts never passes.
  if (indent === 0 || (end === lines.length && !endsWithBreak)) return undefined;
  while (content[content.length - 1] === "") content.pop();
  const joined = style.folded ? fold(content) : content.join("\n");
  return { value: style.strip ? joined : `${joined}\n`, end };
}

/** Folded-scalar line joining: adjacent lines share a space; k empty lines between two lines become k line breaks. */
function fold(lines: readonly string[]): string {
  // Parts joined once: a flat string, not a chain of concatenations kept alive in every cached description.
  const parts = [lines[0] ?? ""];
  let breaks = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") breaks++;
    else {
      parts.push(breaks === 0 ? " " : "\n".repeat(breaks), line);
      breaks = 0;
    }
  }
  return parts.join("");
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function leadingSpaces(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 32) n++;
  return n;
}

// `key:` alone, or `key:` then spaces and the value: one native match per line does what a scan per character did
// (the key's characters, the colon, the space after it). Greedy, so a long run of spaces never backtracks.
const PAIR = /^([A-Za-z][A-Za-z0-9_-]*):(?: +([\s\S]*))?$/;

/** `key: value` → key and the value text (surrounding spaces removed); "" when the value is empty or blank. */
function splitPair(line: string): { key: string; rest: string } | undefined {
  const match = PAIR.exec(line);
  if (match === null) return undefined;
  const key = match[1] ?? "";
  if (NON_STRING_KEYS.has(key)) return undefined;
  const value = match[2];
  if (value === undefined) return { key, rest: "" };
  // A value starting with a visible ASCII character is not blank; only other values need a look at their whitespace.
  const rest = withoutTrailingSpaces(value);
  const first = rest.charCodeAt(0);
  if ((first > 0x20 && first < 0x7f) || rest.trim() !== "") return { key, rest };
  // Blank: YAML's white space is spaces and tabs only. A value that only `trim` calls blank (a no-break space, a BOM,
  // U+3000) is text to YAML; the full parser reads it.
  return BLANK.test(rest) ? { key, rest: "" } : undefined;
}

/** Without trailing U+0020 (only spaces: a tab is content here). An index scan: `/ +$/` backtracks. */
function withoutTrailingSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return end === text.length ? text : text.slice(0, end);
}

function parseScalar(text: string): Scalar | undefined {
  if (UNSAFE.test(text)) return undefined; // tabs included
  const first = text[0] ?? "";
  if (first === "'") {
    if (text.length < 2 || !text.endsWith("'")) return undefined;
    const inner = text.slice(1, -1);
    if (inner.replaceAll("''", "").includes("'")) return undefined;
    return inner.replaceAll("''", "'");
  }
  if (first === '"') {
    if (text.length < 2 || !text.endsWith('"')) return undefined;
    return unescapeDoubleQuoted(text.slice(1, -1));
  }
  const lead = text.charCodeAt(0);
  // Only a digit or a sign can start a number, and booleans are 4 or 5 letters: a description is not tested or hashed.
  if (((lead >= 0x30 && lead <= 0x39) || lead === 0x2b || lead === 0x2d) && SIMPLE_NUMBER.test(text))
    return Number(text);
  const bool = text.length === 4 || text.length === 5 ? BOOLEANS.get(text) : undefined;
  if (bool !== undefined) return bool;
  if (SPECIAL_START.has(first)) return undefined;
  if (PLAIN_BREAKS.test(text)) return undefined;
  if (text === "null" || text === "Null" || text === "NULL") return undefined;
  return text;
}

// The escapes real descriptions use (`\"` in anthropics' pptx/xlsx skills, `\n`, `\uXXXX`); any other escape falls back.
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["n", "\n"],
  ["t", "\t"],
]);
const HEX4 = /^[0-9A-Fa-f]{4}$/;

/**
 * The value of a one-line double-quoted scalar's inside, or undefined when it holds anything but plain text and
 * the simple escapes: an unescaped `"`, another escape, or a `\u` naming half of a surrogate pair.
 */
function unescapeDoubleQuoted(inner: string): string | undefined {
  let slash = inner.indexOf("\\");
  if (slash < 0) return inner.includes('"') ? undefined : inner;
  const parts: string[] = [];
  let from = 0;
  while (slash >= 0) {
    const plain = inner.slice(from, slash);
    if (plain.includes('"')) return undefined;
    parts.push(plain);
    const escape = inner[slash + 1] ?? "";
    const simple = SIMPLE_ESCAPES.get(escape);
    if (simple !== undefined) {
      parts.push(simple);
      from = slash + 2;
    } else if (escape === "u") {
      const hex = inner.slice(slash + 2, slash + 6);
      if (!HEX4.test(hex)) return undefined;
      const unit = Number.parseInt(hex, 16);
      if (unit >= 0xd800 && unit <= 0xdfff) return undefined;
      parts.push(String.fromCharCode(unit));
      from = slash + 6;
    } else {
      return undefined;
    }
    slash = inner.indexOf("\\", from);
  }
  const rest = inner.slice(from);
  if (rest.includes('"')) return undefined;
  parts.push(rest);
  return parts.join("");
}
