/**
 * Secret redaction for everything that leaves the host (error text, stream and response data).
 * A plugin can echo a secret in a message or an event; the host, not the plugin, guarantees it never escapes.
 */
export const REDACTED = "[redacted]";

/** Strings shorter than this are not treated as secrets: redacting "1" or "on" would shred every message. */
const MIN_SECRET_LENGTH = 4;

export type Redactor = <T>(value: T) => T;

/** Collects every string (of at least MIN_SECRET_LENGTH chars) found anywhere in a secrets object. */
export function secretValues(secrets: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 20) return;
    if (typeof value === "string") {
      if (value.length >= MIN_SECRET_LENGTH) found.add(value);
    } else if (typeof value === "number" || typeof value === "bigint") {
      const text = String(value);
      if (text.length >= MIN_SECRET_LENGTH) found.add(text);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(secrets, 0);
  // Longest first, so a secret that contains another is replaced whole.
  return [...found].sort((a, b) => b.length - a.length);
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** A function that returns a copy of any value with every secret string replaced, or the value itself when clean. */
export function createRedactor(secrets: unknown): Redactor {
  const values = secretValues(secrets);
  if (values.length === 0) return (value) => value;
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return redactText(value, values);
    if (depth > 50 || typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[redactText(key, values)] = walk(item, depth + 1);
    return out;
  };
  return <T>(value: T) => walk(value, 0) as T;
}
