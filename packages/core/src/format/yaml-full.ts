import { parseDocument, isAlias, isCollection, isMap, isPair, isScalar, type Document, type Node, type ParsedNode } from "yaml";
import type { Frontmatter, FrontmatterValue } from "../types.js";
import { repairUnquotedColons } from "./recover.js";
import { LineIndex, type Position } from "./text.js";
import { copyValue } from "./object.js";

/**
 * A finding of the full parser. Positions are 1-based in the YAML text (line 1 is the first frontmatter line);
 * a repair keeps every line where it was, so they hold for the original text too.
 */
export interface YamlFinding {
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

export function parseYamlFull(yamlText: string, limits: FullYamlLimits): FullYamlResult {
  const result: FullYamlResult = { frontmatter: undefined, keyPositions: new Map(), scalarSources: new Map(), findings: [], strictViolations: [] };
  const bound = nestingUpperBound(yamlText);
  if (bound > Math.max(PRESCAN_FLOOR, limits.maxDepth * 4)) {
    result.findings.push({ code: "yaml-too-deep", severity: "error", message: `frontmatter nests deeper than the limit of ${limits.maxDepth} levels`, at: START });
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
      const code = e.code === "DUPLICATE_KEY" ? "yaml-duplicate-key" : e.code === "RESOURCE_EXHAUSTION" ? "yaml-too-deep" : "yaml-invalid";
      result.findings.push({ code, severity: "error", message: `invalid YAML: ${firstLine(e.message)}`, at: index.at(e.pos[0]) });
    }
    return result;
  }

  for (const w of doc.warnings.slice(0, MAX_YAML_ERRORS)) {
    result.findings.push({ code: "yaml-warning", severity: "warning", message: `YAML: ${firstLine(w.message)}`, at: index.at(w.pos[0]) });
  }

  const contents = doc.contents;
  if (!isMap(contents)) {
    const at = index.at(contents?.range[0] ?? 0);
    result.findings.push({ code: "frontmatter-not-mapping", severity: "error", message: "the frontmatter must be a YAML mapping of keys to values", at });
    return result;
  }

  const walk = inspect(contents, limits.maxDepth, index, result);
  if (walk.tooDeep !== undefined) {
    result.findings.push({ code: "yaml-too-deep", severity: "error", message: `frontmatter nests deeper than the limit of ${limits.maxDepth} levels`, at: index.at(walk.tooDeep) });
    return result;
  }
  if (walk.cycle !== undefined) {
    result.findings.push({ code: "yaml-alias-cycle", severity: "error", message: "an alias is used inside the node its anchor names, which makes a cycle", at: index.at(walk.cycle) });
    return result;
  }
  if (walk.aliases > limits.maxAliases) {
    result.findings.push({ code: "yaml-too-many-aliases", severity: "error", message: `frontmatter uses more than ${limits.maxAliases} YAML aliases`, at: START });
    return result;
  }

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliases });
  } catch {
    result.findings.push({ code: "yaml-too-many-aliases", severity: "error", message: `frontmatter aliases expand beyond the limit of ${limits.maxAliases}`, at: START });
    return result;
  }
  // Aliases make toJS share objects; callers get a plain tree they can mutate safely.
  result.frontmatter = (walk.aliases > 0 ? copyValue(value as FrontmatterValue) : value) as Frontmatter;

  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined || result.keyPositions.has(key)) continue;
    result.keyPositions.set(key, index.at((pair.key as ParsedNode).range[0]));
    const v = pair.value;
    if (v === null) result.scalarSources.set(key, "");
    else if (isScalar(v) && typeof v.value !== "string") result.scalarSources.set(key, v.source === undefined ? String(v.value) : String(v.source));
  }
  return result;
}

function parse(text: string): Document.Parsed {
  // logLevel "silent": the library must not print; warnings are turned into diagnostics instead.
  return parseDocument(text, { uniqueKeys: true, strict: true, prettyErrors: false, keepSourceTokens: false, logLevel: "silent" });
}

/** Walks the tree once: depth, alias count, aliases that point into their own anchor, strict-YAML features. */
function inspect(root: Node, maxDepth: number, index: LineIndex, result: FullYamlResult): { aliases: number; tooDeep: number | undefined; cycle: number | undefined } {
  let aliases = 0;
  let tooDeep: number | undefined;
  let cycle: number | undefined;
  const openAnchors: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (tooDeep !== undefined || cycle !== undefined || node === null || typeof node !== "object") return;
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
      if (n.anchor) openAnchors.push(n.anchor);
      for (const item of n.items) visit(item, depth + 1);
      if (n.anchor) openAnchors.pop();
    }
  };
  visit(root, 0);
  return { aliases, tooDeep, cycle };
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
