/**
 * FastGPT hands a handler its input unparsed, and plugins still read legacy keys they keep "for compatibility"
 * (`{"延迟时长": 1500}` next to the declared `ms`). We validate the declared fields, then put back the keys the
 * schema does not know, so such a plugin behaves as it does upstream. Declared fields keep their parsed values.
 */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

export function withUndeclaredKeys(raw: unknown, parsed: unknown): unknown {
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return parsed;
  const extra = Object.entries(raw).filter(([key]) => !Object.hasOwn(parsed, key) && key !== "__proto__");
  if (extra.length === 0) return parsed;
  return { ...Object.fromEntries(extra), ...parsed };
}
