/**
 * Secret redaction for everything that leaves the host (error text, stream and response data).
 * A plugin can echo a secret in a message or an event; the host, not the plugin, guarantees it never escapes.
 * Not only the exact text: a secret is also found in any letter case, as hex, URL-encoded, JSON-escaped, and inside
 * base64/base64url text at any byte alignment (e.g. an `Authorization: Basic` value of `user:secret`).
 */
export const REDACTED = "[redacted]";

/** Strings shorter than this are not treated as secrets: redacting "1" or "on" would shred every message. */
const MIN_SECRET_LENGTH = 4;

export type Redactor = <T>(value: T) => T;

/** Deeper values are replaced whole (above the 200 levels an output may have). */
const MAX_REDACT_DEPTH = 256;

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

/** Forms matched ignoring letter case: the secret itself, hex, and percent-encodings (whose hex digits vary). */
function caselessForms(secret: string): string[] {
  const forms = [secret, Buffer.from(secret, "utf8").toString("hex")];
  const json = JSON.stringify(secret).slice(1, -1);
  if (json !== secret) forms.push(json);
  try {
    const component = encodeURIComponent(secret);
    // application/x-www-form-urlencoded (URLSearchParams) also escapes !'()~ and writes a space as "+".
    const form = component
      .replace(/[!'()~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, "+");
    forms.push(component, form, encodeURI(secret));
  } catch {
    // lone surrogates have no URL encoding
  }
  return forms;
}

/**
 * The characters of base64 text that depend only on the secret, for each of the three byte alignments it can have
 * inside a longer encoded value; the first and last characters also carry neighbouring bits and are left out.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    const core = text.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    // Cores this short would match ordinary text by chance.
    if (core.length < MIN_SECRET_LENGTH) continue;
    forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** One alternation, longest form first (a form that contains another is replaced whole). */
function matcher(forms: Iterable<string>, flags: string): RegExp | undefined {
  const unique = [...new Set(forms)]
    .filter((form) => form.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  return unique.length === 0 ? undefined : new RegExp(unique.map(escapeRegExp).join("|"), flags);
}

/** Replaces every form of every secret in `text`. */
export type TextRedactor = (text: string) => string;

export function textRedactor(secrets: readonly string[]): TextRedactor {
  // No "u" flag: case folding stays per code unit, so lone surrogates in text or secrets are fine.
  const caseless = matcher(secrets.flatMap(caselessForms), "gi");
  const encoded = matcher(secrets.flatMap(base64Forms), "g");
  return (text) => {
    let out = text;
    if (caseless) out = out.replace(caseless, REDACTED);
    if (encoded) out = out.replace(encoded, REDACTED);
    return out;
  };
}

export function redactText(text: string, secrets: readonly string[]): string {
  return textRedactor(secrets)(text);
}

/**
 * The same search over bytes (a Uint8Array in an output): each byte is one latin1 character, and each form is
 * searched as the latin1 spelling of its UTF-8 bytes. Returns the bytes themselves when nothing matched.
 */
function bytesRedactor(secrets: readonly string[]): (bytes: Uint8Array) => Uint8Array {
  const asBytes = (form: string) => Buffer.from(form, "utf8").toString("latin1");
  const caseless = matcher(secrets.flatMap(caselessForms).map(asBytes), "gi");
  const encoded = matcher(secrets.flatMap(base64Forms).map(asBytes), "g");
  return (bytes) => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    let out = text;
    if (caseless) out = out.replace(caseless, REDACTED);
    if (encoded) out = out.replace(encoded, REDACTED);
    return out === text ? bytes : new Uint8Array(Buffer.from(out, "latin1"));
  };
}

/** A function that returns a copy of any value with every secret string replaced, or the value itself when clean. */
export function createRedactor(secrets: unknown): Redactor {
  const values = secretValues(secrets);
  if (values.length === 0) return (value) => value;
  const redactText = textRedactor(values);
  let redactBytes: ((bytes: Uint8Array) => Uint8Array) | undefined;
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return redactText(value);
    if (value instanceof Uint8Array) return (redactBytes ??= bytesRedactor(values))(value);
    if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return value;
    // Fail closed: deeper than any output the host accepts (toPlainData's limit), so nothing real is lost here,
    // and a secret cannot be hidden below the walk.
    if (depth > MAX_REDACT_DEPTH) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Defined, not assigned: a "__proto__" key stays an own property instead of setting the copy's prototype.
      Object.defineProperty(out, redactText(key), {
        value: walk(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return <T>(value: T) => walk(value, 0) as T;
}
