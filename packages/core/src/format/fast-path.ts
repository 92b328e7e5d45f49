import type { Frontmatter, FrontmatterValue } from "../types.js";

/** What the flat fast path produced; line numbers are 0-based lines of the YAML text. */
export interface FlatFrontmatter {
  frontmatter: Frontmatter;
  keyLines: Map<string, number>;
  /** Source text of top-level values that are not strings (numbers, booleans, empty → null). */
  scalarSources: Map<string, string>;
}

type Scalar = { value: FrontmatterValue; source?: string };

const KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
const NON_STRING_KEYS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);
const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ["true", true], ["True", true], ["TRUE", true],
  ["false", false], ["False", false], ["FALSE", false],
]);
const SIMPLE_NUMBER = /^[-+]?[0-9]+(\.[0-9]+)?$/;
// Characters that start YAML syntax (or a number-like token) when they open a plain scalar.
const SPECIAL_START = new Set([..."-?:,[]{}#&*!|>'\"%@`~.+0123456789"]);
// Characters that YAML treats specially or that this path does not bother to get exactly right.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;

/**
 * Parses the common flat frontmatter (`key: value` lines, simple quoted strings, one level of `  k: v` under a
 * key with no value) without a YAML parser. Returns undefined the moment anything is not trivially simple, so the
 * caller falls back to the full parser; whatever it returns equals what `yaml` (YAML 1.2 core schema) gives.
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
    let line = lines[i] ?? "";
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line === "") continue;
    if (line.startsWith(" ")) {
      if (!open) return undefined;
      const indent = line.length - line.replace(/^ +/, "").length;
      if (open.map === undefined) {
        open.map = {};
        open.indent = indent;
      } else if (indent !== open.indent) return undefined;
      const pair = splitPair(line.slice(indent));
      if (!pair || pair.rest === "" || Object.hasOwn(open.map, pair.key)) return undefined;
      const scalar = parseScalar(pair.rest);
      if (!scalar) return undefined;
      open.map[pair.key] = scalar.value;
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
    const scalar = parseScalar(pair.rest);
    if (!scalar) return undefined;
    frontmatter[pair.key] = scalar.value;
    if (scalar.source !== undefined) scalarSources.set(pair.key, scalar.source);
  }
  closeOpen();
  if (keyLines.size === 0) return undefined;
  return { frontmatter, keyLines, scalarSources };
}

/** `key: value` → key and the value text (trailing spaces removed); "" when the value is empty. */
function splitPair(line: string): { key: string; rest: string } | undefined {
  const colon = line.indexOf(":");
  if (colon <= 0) return undefined;
  const key = line.slice(0, colon);
  if (!KEY.test(key) || NON_STRING_KEYS.has(key)) return undefined;
  const after = line.slice(colon + 1);
  if (after !== "" && !after.startsWith(" ")) return undefined;
  return { key, rest: after.trim() === "" ? "" : after.replace(/^ +/, "").replace(/ +$/, "") };
}

function parseScalar(text: string): Scalar | undefined {
  if (text.includes("\t") || UNSAFE.test(text)) return undefined;
  const first = text[0] ?? "";
  if (first === "'") {
    if (text.length < 2 || !text.endsWith("'")) return undefined;
    const inner = text.slice(1, -1);
    if (inner.replaceAll("''", "").includes("'")) return undefined;
    return { value: inner.replaceAll("''", "'") };
  }
  if (first === '"') {
    if (text.length < 2 || !text.endsWith('"')) return undefined;
    const inner = text.slice(1, -1);
    if (inner.includes('"') || inner.includes("\\")) return undefined;
    return { value: inner };
  }
  if (SIMPLE_NUMBER.test(text)) return { value: Number(text), source: text };
  const bool = BOOLEANS.get(text);
  if (bool !== undefined) return { value: bool, source: text };
  if (SPECIAL_START.has(first)) return undefined;
  if (text.includes(": ") || text.endsWith(":") || text.includes(" #")) return undefined;
  if (text === "null" || text === "Null" || text === "NULL") return undefined;
  return { value: text };
}
