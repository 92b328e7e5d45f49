/** Encoded blobs (base64, hex, \x escapes) found in text, decoded for a re-scan. Bounded by length and count. */

export interface Blob {
  /** Offset of the encoded text in the scanned text. */
  offset: number;
  decoded: string;
}

const BASE64 = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){20,}(?![0-9a-fA-F])/g;
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
  for (const m of text.matchAll(BASE64)) {
    if (blobs.length >= MAX_BLOBS_PER_TEXT) break;
    const s = m[0];
    // Identifiers and paths that happen to be long letters only are not base64 of anything readable; printable() judges.
    if (s.length > maxChars || s.length % 4 === 1) continue;
    consider(m.index, fromBase64(s));
  }
  for (const m of text.matchAll(HEX)) {
    if (blobs.length >= MAX_BLOBS_PER_TEXT) break;
    const s = m[0];
    if (s.length > maxChars || [32, 40, 64, 96, 128].includes(s.length)) continue;
    consider(m.index, Buffer.from(s, "hex").toString("latin1"));
  }
  for (const m of text.matchAll(ESCAPED)) {
    if (blobs.length >= MAX_BLOBS_PER_TEXT) break;
    if (m[0].length > maxChars) continue;
    consider(m.index, m[0].replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  }
  return blobs;
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
