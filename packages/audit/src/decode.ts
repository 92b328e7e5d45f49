/** Encoded blobs (base64, hex, \x escapes) found in text, decoded for a re-scan. Bounded by length and count. */

export interface Blob {
  /** Offset of the encoded text in the scanned text. */
  offset: number;
  decoded: string;
}

const ESCAPED = /(?:\\x[0-9a-fA-F]{2}){12,}/g;

/** Blobs per text at most: a file of thousands of hashes costs a bounded amount. */
export const MAX_BLOBS_PER_TEXT = 200;

/**
 * The blobs in `text` that decode to mostly printable text. A blob longer than `maxChars` is not decoded (it is
 * reported by the caller only if it matters); digests (hex of 32/40/64/128 characters) are skipped.
 */
export function findBlobs(text: string, maxChars: number): Blob[] {
  const blobs: Blob[] = [];
  const consider = (offset: number, decoded: string | undefined) => {
    if (decoded !== undefined && printable(decoded)) blobs.push({ offset, decoded });
  };
  // One pass over runs of base64 characters (hex digits are a subset): far cheaper than a regular expression with
  // look-arounds over every position of a large file.
  let start = -1;
  for (let i = 0; i <= text.length && blobs.length < MAX_BLOBS_PER_TEXT; i++) {
    const inRun = i < text.length && isBase64Char(text.charCodeAt(i));
    if (inRun) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    let end = i;
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++; // trailing "="
    const length = i - start;
    const before = start > 0 ? text.charCodeAt(start - 1) : 32;
    const after = end < text.length ? text.charCodeAt(end) : 32;
    // Part of an identifier or a path-like token (`a-b_c`), or too long to decode: not a blob.
    const joined = before === 45 || before === 95 || before === 61 || after === 45 || after === 95;
    if (length >= 32 && end - start <= maxChars && !joined) {
      const run = text.slice(start, end);
      if (length >= 40 && length % 2 === 0 && /^[0-9a-fA-F]+$/.test(run)) {
        if (![40, 64, 96, 128].includes(length)) consider(start, Buffer.from(run, "hex").toString("latin1"));
      } else if (length % 4 !== 1) consider(start, fromBase64(run));
    }
    start = -1;
  }
  if (text.includes("\\x")) {
    for (const m of text.matchAll(ESCAPED)) {
      if (blobs.length >= MAX_BLOBS_PER_TEXT) break;
      if (m[0].length > maxChars) continue;
      consider(
        m.index,
        m[0].replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      );
    }
  }
  return blobs;
}

/** A-Z a-z 0-9 + / */
function isBase64Char(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

function fromBase64(s: string): string | undefined {
  const bytes = Buffer.from(s, "base64");
  if (bytes.length === 0) return undefined;
  return bytes.toString("utf8");
}

/** At least 90% printable ASCII or whitespace, and some letters: text, not random bytes. */
function printable(s: string): boolean {
  if (s.length < 8) return false;
  let ok = 0;
  let letters = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13) ok++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
  }
  return ok / s.length >= 0.9 && letters / s.length >= 0.3 && /\s/.test(s);
}
