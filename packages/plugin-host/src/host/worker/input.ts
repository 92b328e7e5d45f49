import type { SchemaIssue } from "./definition.js";

/**
 * FastGPT hands a handler its input unparsed, and plugins still read legacy keys they keep "for compatibility"
 * (`{"延迟时长": 1500}` next to the declared `ms`). We validate the declared fields, then put back the keys the
 * schema does not know, so such a plugin behaves as it does upstream. Declared fields keep their parsed values.
 */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

export function withUndeclaredKeys(raw: unknown, parsed: unknown): unknown {
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return parsed;
  const extra = Object.entries(raw).filter(([key]) => !Object.hasOwn(parsed, key) && key !== "__proto__");
  if (extra.length === 0) return parsed;
  return { ...Object.fromEntries(extra), ...parsed };
}

/**
 * When the declared input schema rejected `raw`, may the tool's own code decide instead (issue 20, item 2)? A tool
 * that keeps a legacy key maps it onto a declared field inside its handler (mathExprVal: `数学表达式` → `expr`), so
 * the declared schema misses a field the tool reads under its old name; FastGPT lets the handler's schema judge.
 * Yes only when every issue is a declared top-level field that is absent from the input, and the input carries keys
 * the schema does not declare (those could stand in for it). A declared field that is present but wrong, a nested
 * problem, or missing fields with nothing in their place keep the declared schema's verdict. Returns the undeclared
 * keys, or undefined for "no".
 */
export function legacyKeysStandingIn(
  schema: unknown,
  raw: unknown,
  issues: readonly SchemaIssue[],
): string[] | undefined {
  const declared = declaredKeys(schema);
  if (declared === undefined || !isPlainObject(raw) || issues.length === 0) return undefined;
  const missingOnly = issues.every((issue) => {
    const [key, ...rest] = issue.path;
    return rest.length === 0 && typeof key === "string" && declared.has(key) && raw[key] === undefined;
  });
  if (!missingOnly) return undefined;
  const undeclared = Object.keys(raw).filter((key) => !declared.has(key));
  return undeclared.length > 0 ? undeclared : undefined;
}

/** The keys of a zod object schema (`shape`, in zod 3 and 4 alike); undefined for any other schema. */
function declaredKeys(schema: unknown): Set<string> | undefined {
  const shape = typeof schema === "object" && schema !== null ? (schema as { shape?: unknown }).shape : undefined;
  return typeof shape === "object" && shape !== null ? new Set(Object.keys(shape)) : undefined;
}
