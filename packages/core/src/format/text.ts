/** Text helpers shared by the SKILL.md parser: decoding, byte counting, offset → line:column. */

export type DecodeResult =
  { ok: true; text: string } | { ok: false; code: "encoding-invalid"; message: string; offset: number };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes or text → text without a leading BOM; non-UTF-8 bytes are refused. */
export function decodeSkillMd(input: string | Uint8Array): DecodeResult {
  let text: string;
  if (typeof input === "string") text = input;
  else {
    try {
      text = utf8.decode(input);
    } catch {
      return { ok: false, code: "encoding-invalid", message: "SKILL.md is not valid UTF-8 text", offset: 0 };
    }
  }
  return { ok: true, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/**
 * The first NUL before `end`, or -1. A SKILL.md is Markdown, and NUL is the cheapest reliable sign of a binary
 * file; callers that only need metadata check only the frontmatter.
 */
export function findNul(text: string, end = text.length): number {
  // indexOf scans natively (many times faster than a charCodeAt loop over a whole body); a short `end` is searched in
  // a slice so a long text is not scanned past it.
  const nul = end >= text.length ? text.indexOf("\u0000") : text.slice(0, end).indexOf("\u0000");
  return nul !== -1 && nul < end ? nul : -1;
}

/** UTF-8 length of a string without encoding it (works outside Node too). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
}

/** Maps offsets of one text to 1-based line:column, built once, looked up by binary search. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }

  at(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.starts[lo] ?? 0) + 1 };
  }
}
