import type { FrontmatterValue } from "../types.js";

/** Adds a key as data. Plain assignment of `__proto__` would change the prototype instead of adding a key. */
export function defineKey(target: { [key: string]: FrontmatterValue }, key: string, value: FrontmatterValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy of a frontmatter value (plain JSON-shaped data, so nothing else to preserve). */
export function copyValue(value: FrontmatterValue): FrontmatterValue {
  if (Array.isArray(value)) return value.map(copyValue);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: FrontmatterValue } = {};
    for (const [k, v] of Object.entries(value)) defineKey(out, k, copyValue(v));
    return out;
  }
  return value;
}
