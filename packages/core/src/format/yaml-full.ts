import type { Document, Node, ParsedNode } from "yaml";
import { yamlLibrary } from "#yaml-library";
import type { Frontmatter, FrontmatterValue } from "../types.js";
import { repairUnquotedColons } from "./recover.js";
import { LineIndex, type Position } from "./text.js";
import { copyValue } from "./object.js";

/**
 * A finding of the full parser. Positions are 1-based in the YAML text (line 1 is the first frontmatter line);
 * a repair keeps every line where it was, so they hold for the original text too.
 */
interface YamlFinding {
  code: string;
  severity: "error" | "warning";
  message: string;
  at: Position;
}

/** YAML features the reference validator's strict YAML dialect refuses (flow collections, anchors, aliases, tags). */
export interface StrictYamlViolation {
  feature: "flow collection" | "anchor" | "alias" | "tag";
  at: Position;
}

export interface FullYamlResult {
  frontmatter: Frontmatter | undefined;
  keyPositions: Map<string, Position>;
  scalarSources: Map<string, string>;
  findings: YamlFinding[];
  strictViolations: StrictYamlViolation[];
}

export interface FullYamlLimits {
  maxAliases: number;
  maxDepth: number;
}

const MAX_YAML_ERRORS = 5;
// The `yaml` package exhausts memory on pathological nesting (tens of thousands of levels), so anything whose
// nesting could exceed this bound is refused before it reaches the parser. The exact depth is checked afterwards.
const PRESCAN_FLOOR = 256;
const START: Position = { line: 1, column: 1 };

/**
 * Steps taken by this module's own passes over a frontmatter (characters pre-scanned, nodes visited, keys hashed),
 * summed over every call. Tests read it to show those passes stay linear in the input (decision 0257).
 */
export const yamlPassWork = { steps: 0 };

export function parseYamlFull(yamlText: string, limits: FullYamlLimits): FullYamlResult {
  const result: FullYamlResult = {
    frontmatter: undefined,
    keyPositions: new Map(),
    scalarSources: new Map(),
    findings: [],
    strictViolations: [],
  };
  const bound = nestingUpperBound(yamlText);
  if (bound > Math.max(PRESCAN_FLOOR, limits.maxDepth * 4)) {
    result.findings.push({
      code: "yaml-too-deep",
      severity: "error",
      message: `frontmatter nests deeper than the limit of ${limits.maxDepth} levels`,
      at: START,
    });
    return result;
  }

  const afterEnd = contentAfterDocumentEnd(yamlText);
  if (afterEnd !== undefined) {
    const message =
      "content after a YAML document end marker ('...') is not part of the frontmatter; remove the '...' line";
    result.findings.push({
      code: "yaml-multiple-documents",
      severity: "error",
      message,
      at: { line: afterEnd, column: 1 },
    });
    return result;
  }

  let parsedText = yamlText;
  let doc = parse(yamlText);
  if (doc.errors.length > 0) {
    const original = new LineIndex(yamlText);
    const errorLines = new Set(doc.errors.map((e) => original.at(e.pos[0]).line - 1));
    const repair = repairUnquotedColons(yamlText, errorLines);
    if (repair.fixes.length > 0) {
      parsedText = repair.text;
      doc = parse(repair.text);
      for (const fix of repair.fixes) {
        result.findings.push({
          code: "yaml-unquoted-colon",
          severity: "warning",
          message: `'${fix.key}' has an unquoted ': ' in its value, which YAML reads as a nested key; read as the whole text — quote it: ${fix.key}: ${abbreviate(JSON.stringify(fix.value))}`,
          at: { line: fix.line + 1, column: fix.column + 1 },
        });
      }
    }
  }
  const index = new LineIndex(parsedText);
  if (doc.errors.length > 0) {
    for (const e of doc.errors.slice(0, MAX_YAML_ERRORS)) {
      const code =
        e.code === "DUPLICATE_KEY"
          ? "yaml-duplicate-key"
          : e.code === "RESOURCE_EXHAUSTION"
            ? "yaml-too-deep"
            : "yaml-invalid";
      result.findings.push({
        code,
        severity: "error",
        message: `invalid YAML: ${firstLine(e.message)}`,
        at: index.at(e.pos[0]),
      });
    }
    return result;
  }

  for (const w of doc.warnings.slice(0, MAX_YAML_ERRORS)) {
    result.findings.push({
      code: "yaml-warning",
      severity: "warning",
      message: `YAML: ${firstLine(w.message)}`,
      at: index.at(w.pos[0]),
    });
  }

  const { isMap, isScalar } = yamlLibrary();
  const contents = doc.contents;
  if (!isMap(contents)) {
    const at = index.at(contents?.range[0] ?? 0);
    result.findings.push({
      code: "frontmatter-not-mapping",
      severity: "error",
      message: "the frontmatter must be a YAML mapping of keys to values",
      at,
    });
    return result;
  }

  const walk = inspect(contents, limits.maxDepth, index, result);
  if (walk.duplicate !== undefined) {
    result.findings.push({
      code: "yaml-duplicate-key",
      severity: "error",
      message: `invalid YAML: map keys must be unique (${JSON.stringify(walk.duplicate.key)} appears twice)`,
      at: index.at(walk.duplicate.offset),
    });
    return result;
  }
  if (walk.tooDeep !== undefined) {
    result.findings.push({
      code: "yaml-too-deep",
      severity: "error",
      message: `frontmatter nests deeper than the limit of ${limits.maxDepth} levels`,
      at: index.at(walk.tooDeep),
    });
    return result;
  }
  if (walk.cycle !== undefined) {
    result.findings.push({
      code: "yaml-alias-cycle",
      severity: "error",
      message: "an alias is used inside the node its anchor names, which makes a cycle",
      at: index.at(walk.cycle),
    });
    return result;
  }
  if (walk.aliases > limits.maxAliases) {
    result.findings.push({
      code: "yaml-too-many-aliases",
      severity: "error",
      message: `frontmatter uses more than ${limits.maxAliases} YAML aliases`,
      at: START,
    });
    return result;
  }

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliases });
  } catch {
    result.findings.push({
      code: "yaml-too-many-aliases",
      severity: "error",
      message: `frontmatter aliases expand beyond the limit of ${limits.maxAliases}`,
      at: START,
    });
    return result;
  }
  // A copy: aliases make toJS share objects (callers get a plain tree they can mutate safely), and the copy
  // flattens the library's concatenated strings.
  result.frontmatter = copyValue(value as FrontmatterValue) as Frontmatter;

  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined || result.keyPositions.has(key)) continue;
    result.keyPositions.set(key, index.at((pair.key as ParsedNode).range[0]));
    const v = pair.value;
    if (v === null) result.scalarSources.set(key, "");
    else if (isScalar(v) && typeof v.value !== "string")
      result.scalarSources.set(key, v.source === undefined ? String(v.value) : String(v.source));
  }
  return result;
}

function parse(text: string): Document.Parsed {
  // logLevel "silent": the library must not print; warnings are turned into diagnostics instead.
  // uniqueKeys off: the library compares every key with every earlier one (quadratic — seconds for a hostile
  // frontmatter of 10,000 keys); `inspect` finds duplicates with a set per map instead.
  return yamlLibrary().parseDocument(text, {
    uniqueKeys: false,
    strict: true,
    prettyErrors: false,
    keepSourceTokens: false,
    logLevel: "silent",
  });
}

interface Inspection {
  aliases: number;
  tooDeep: number | undefined;
  cycle: number | undefined;
  duplicate: { key: string; offset: number } | undefined;
}

/** Walks the tree once: depth, alias count, aliases that point into their own anchor, duplicate keys, strict-YAML features. */
function inspect(root: Node, maxDepth: number, index: LineIndex, result: FullYamlResult): Inspection {
  let aliases = 0;
  let tooDeep: number | undefined;
  let cycle: number | undefined;
  let duplicate: Inspection["duplicate"];
  const openAnchors: string[] = [];
  const { isAlias, isCollection, isMap, isPair } = yamlLibrary();
  const visit = (node: unknown, depth: number): void => {
    yamlPassWork.steps++;
    if (
      tooDeep !== undefined ||
      cycle !== undefined ||
      duplicate !== undefined ||
      node === null ||
      typeof node !== "object"
    )
      return;
    if (isPair(node)) {
      visit(node.key, depth);
      visit(node.value, depth);
      return;
    }
    const n = node as ParsedNode;
    const offset = n.range?.[0] ?? 0;
    if (isAlias(n)) {
      aliases++;
      result.strictViolations.push({ feature: "alias", at: index.at(offset) });
      // `&a [*a]` is legal YAML but a cycle: it can never be plain JSON-shaped data.
      if (openAnchors.includes(n.source)) cycle = offset;
      return;
    }
    if (n.anchor) result.strictViolations.push({ feature: "anchor", at: index.at(offset) });
    if (n.tag) result.strictViolations.push({ feature: "tag", at: index.at(offset) });
    if (isCollection(n)) {
      if (depth + 1 > maxDepth) {
        tooDeep = offset;
        return;
      }
      if (n.flow) result.strictViolations.push({ feature: "flow collection", at: index.at(offset) });
      if (isMap(n)) duplicate ??= firstDuplicateKey(n.items);
      if (n.anchor) openAnchors.push(n.anchor);
      for (const item of n.items) visit(item, depth + 1);
      if (n.anchor) openAnchors.pop();
    }
  };
  visit(root, 0);
  return { aliases, tooDeep, cycle, duplicate };
}

/** The first key of a map that repeats an earlier one (scalar keys by value, others by their source text). */
function firstDuplicateKey(pairs: readonly unknown[]): { key: string; offset: number } | undefined {
  const { isPair, isScalar } = yamlLibrary();
  const seen = new Set<string>();
  for (const pair of pairs) {
    yamlPassWork.steps++;
    if (!isPair(pair)) continue;
    const key = pair.key as ParsedNode | null;
    const name = key === null ? "" : isScalar(key) ? `s:${typeof key.value}:${String(key.value)}` : `n:${String(key)}`;
    if (seen.has(name))
      return { key: key === null ? "" : isScalar(key) ? String(key.value) : String(key), offset: key?.range?.[0] ?? 0 };
    seen.add(name);
  }
  return undefined;
}

/**
 * The 1-based line of the first content after a document end marker (a `...` line), if any. The parser reads only
 * the first document, so keys after `...` would be dropped without a word.
 */
function contentAfterDocumentEnd(text: string): number | undefined {
  if (!text.includes("...")) return undefined;
  const lines = text.split("\n");
  yamlPassWork.steps += lines.length;
  const end = lines.findIndex((line) => /^\.\.\.(?:[ \t]|\r?$)/.test(line));
  if (end < 0) return undefined;
  for (let i = end + 1; i < lines.length; i++) {
    const rest = (lines[i] ?? "").trim();
    if (rest !== "" && !rest.startsWith("#")) return i + 1;
  }
  return undefined;
}

/**
 * A cheap upper bound on nesting: open flow brackets plus, per line, indentation and leading `- ` / `? ` markers.
 * It over-counts (brackets inside strings), which only matters past a bound far above real frontmatter.
 */
function nestingUpperBound(text: string): number {
  let flow = 0;
  let max = 0;
  let lineStart = true;
  let indent = 0;
  yamlPassWork.steps += text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      const next = text.charCodeAt(i + 1);
      const marker = (c === 45 || c === 63) && (Number.isNaN(next) || next === 32 || next === 9 || next === 10);
      if (c === 32 || c === 9 || marker) {
        indent++;
        max = Math.max(max, indent + flow);
        continue;
      }
      lineStart = false;
    }
    if (c === 91 || c === 123) max = Math.max(max, ++flow + indent);
    else if ((c === 93 || c === 125) && flow > 0) flow--;
  }
  return max;
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

function abbreviate(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 77)}..."`;
}
