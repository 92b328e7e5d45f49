import type { FrontmatterValue } from "../skill-data.js";

/** Adds a key as data. Plain assignment of `__proto__` would change the prototype instead of adding a key. */
export function defineKey(target: { [key: string]: FrontmatterValue }, key: string, value: FrontmatterValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A deep copy of a frontmatter value (plain JSON-shaped data, so nothing else to preserve). Strings are flattened:
 * the YAML library builds folded and escaped scalars by concatenation, and V8 keeps such a string as a tree of
 * pieces (several times the memory of the text) until something flattens it; a numeric conversion does.
 */
export function copyValue(value: FrontmatterValue): FrontmatterValue {
  if (typeof value === "string") {
    flatten(value);
    return value;
  }
  if (Array.isArray(value)) return value.map(copyValue);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: FrontmatterValue } = {};
    for (const [k, v] of Object.entries(value)) defineKey(out, k, copyValue(v));
    return out;
  }
  return value;
}

// Written so the conversion is never optimised away.
let _sink = 0;
function flatten(text: string): void {
  if (text.length > 16) _sink ^= Number(text) | 0;
}
