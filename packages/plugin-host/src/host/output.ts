/**
 * What the host does with a worker's result before anyone sees it (issue 8, hole 8): copy it into fresh plain
 * objects (a `"__proto__"` key is dropped, never turned into a prototype), then check it against the tool's output
 * schema from manifest.json here, on the host; the worker's own check ran in code the plugin controls.
 */
import { z } from "zod";
import type { JsonSchema } from "@skillport/plugin";
import { PluginHostError } from "./errors.js";
import { formatIssues } from "./worker/issues.js";

/** Deeper results are refused rather than walked (a deep structure is also a stack-exhaustion attack). */
export const MAX_OUTPUT_DEPTH = 200;

/**
 * A copy of plain data with every object rebuilt by own-property definition. Arrays and plain objects are copied;
 * other structured-clone values (Uint8Array, Date, Map…) are kept as they are. Throws PLUGIN_OUTPUT_INVALID when
 * deeper than MAX_OUTPUT_DEPTH.
 */
export function toPlainData(value: unknown, depth = 0): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_OUTPUT_DEPTH)
    throw new PluginHostError("PLUGIN_OUTPUT_INVALID", `output is nested deeper than ${MAX_OUTPUT_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item) => toPlainData(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // An own "__proto__" data property (structured clone and JSON.parse both make one) would become the
    // prototype of whatever object a caller later assigns it into: drop it here.
    if (key === "__proto__") continue;
    out[key] = toPlainData((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

export type OutputCheck = (output: unknown) => PluginHostError | undefined;

/** Keywords whose values are maps of name → schema (names are not keywords). */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"]);
/** Keywords whose values are data, copied as they are. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "required"]);

/** Keywords zod cannot read (conditionals, negation, dependencies): left out, so the rest of the schema is checked. */
const UNSUPPORTED_KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "not",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
]);
const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * The schema without `additionalProperties: false`, `pattern` and `format` — the export from zod is lossy there (a regex's flags are dropped, formats
 * are engine-specific), so checking them again would refuse outputs the author's schema accepted — and without what
 * zod cannot read at all (UNSUPPORTED_KEYWORDS, external `$ref`s, unknown type names). The host's check is about
 * structure and types; the worker applied the exact refinements.
 */
function structural(schema: unknown, depth = 0): unknown {
  if (depth > MAX_OUTPUT_DEPTH || typeof schema !== "object" || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((item) => structural(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "__proto__" || ((key === "pattern" || key === "format") && typeof value === "string")) continue;
    // zod writes `additionalProperties: false` for every z.object, whose parse only strips unknown keys; and outputs
    // wider than their schema pass as FastGPT passes them (decision 0183): extra keys are not a mismatch here.
    if (key === "additionalProperties" && value === false) continue;
    if (UNSUPPORTED_KEYWORDS.has(key) || (key === "$ref" && typeof value === "string" && !value.startsWith("#")))
      continue;
    if (key === "type" && typeof value === "string" && !JSON_TYPES.has(value)) continue;
    if (key === "type" && Array.isArray(value)) {
      const known = value.filter((name) => typeof name === "string" && JSON_TYPES.has(name));
      if (known.length > 0) out[key] = known;
      continue;
    }
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, structural(sub, depth + 1)]));
    } else out[key] = structural(value, depth + 1);
  }
  return out;
}

type FromJsonSchema = Parameters<typeof z.fromJSONSchema>[0];

/**
 * Compiles a tool's JSON Schema (as manifest.json has it) into a check. The SDK writes schemas zod reads back in
 * full; for a hand-written one zod cannot read even without the unsupported keywords, the check falls back to the
 * top-level type (an output schema always describes an object). Never refuses the load: the author controls the
 * manifest anyway, and the host's promise is "the output matches what the manifest says", as far as zod can say.
 */
export function compileOutputCheck(schema: JsonSchema): OutputCheck {
  let parser: z.ZodType;
  try {
    parser = z.fromJSONSchema(structural(schema) as FromJsonSchema);
  } catch {
    parser = z.fromJSONSchema({ type: "object" });
  }
  return (output) => {
    const result = parser.safeParse(output);
    if (result.success) return undefined;
    const issues = result.error.issues.map((issue) => ({ code: issue.code, path: issue.path, message: issue.message }));
    return new PluginHostError("PLUGIN_OUTPUT_INVALID", formatIssues("output", issues));
  };
}
