/** Where the frontmatter of a SKILL.md starts and ends, found line by line (never by searching for `---`). */

export type FrontmatterBounds =
  | {
      status: "closed";
      /** Offset of the first frontmatter line (just after the opening `---` line). */
      yamlStart: number;
      /** Offset of the closing `---` line; the YAML is `text.slice(yamlStart, yamlEnd)`. */
      yamlEnd: number;
      /** Offset of the first body character (after the closing line and its line break). */
      bodyOffset: number;
      /** 1-based line of the first body line. */
      bodyLine: number;
    }
  | { status: "unclosed" }
  | { status: "missing" };

export interface FindFrontmatterOptions {
  /**
   * False when `text` is only the first chunk of a file: a last line without a line break may be cut short,
   * so it is not trusted as a delimiter and the answer is "unclosed" (read more). Default true.
   */
  complete?: boolean;
}

/**
 * Finds the frontmatter of SKILL.md text. It opens on line 1 with `---` and closes only on a later line that is
 * exactly `---` (trailing spaces or tabs allowed; LF, CRLF or bare-CR line ends); end of text right after the closing line is fine.
 * A leading BOM is skipped (offsets stay offsets into `text`).
 */
export function findFrontmatterEnd(text: string, options: FindFrontmatterOptions = {}): FrontmatterBounds {
  const complete = options.complete ?? true;
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const lines = new LineReader(text);
  lines.read(start);
  if (!lines.terminated && !complete) {
    return "---".startsWith(text.slice(lines.start, lines.end).replace(/[ \t]+$/, ""))
      ? { status: "unclosed" }
      : { status: "missing" };
  }
  if (!isDelimiter(text, lines.start, lines.end)) return { status: "missing" };
  const yamlStart = lines.next;
  let line = 2;
  for (let pos = yamlStart; pos < text.length; line++) {
    lines.read(pos);
    if (!lines.terminated && !complete) break;
    if (isDelimiter(text, lines.start, lines.end)) {
      return { status: "closed", yamlStart, yamlEnd: pos, bodyOffset: lines.next, bodyLine: line + 1 };
    }
    pos = lines.next;
  }
  return { status: "unclosed" };
}

/** `text[start, end)` (one line, without its line break) is `---` followed only by spaces or tabs. */
function isDelimiter(text: string, start: number, end: number): boolean {
  if (
    end - start < 3 ||
    text.charCodeAt(start) !== 0x2d ||
    text.charCodeAt(start + 1) !== 0x2d ||
    text.charCodeAt(start + 2) !== 0x2d
  )
    return false;
  for (let i = start + 3; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/**
 * Reads lines; LF, CRLF and a bare CR (classic Mac files, which the reference validator reads too) all end a line.
 * The next CR's position is remembered, so a text without bare CRs is scanned once, not once per line. The line just
 * read is `text[start, end)` (no line break), and the next one starts at `next`: offsets, not slices, since every
 * SKILL.md of a listing passes here.
 */
class LineReader {
  #nextCr = -2;
  start = 0;
  end = 0;
  next = 0;
  /** False when the line ran to the end of the text without a line break. */
  terminated = false;
  constructor(private readonly text: string) {}

  read(from: number): void {
    const text = this.text;
    const nl = text.indexOf("\n", from);
    if (this.#nextCr !== -1 && this.#nextCr < from) this.#nextCr = text.indexOf("\r", from);
    const cr = this.#nextCr;
    this.start = from;
    if (cr !== -1 && (nl === -1 || cr < nl - 1)) {
      // A CR that is not the first half of a CRLF pair ends the line by itself.
      this.end = cr;
      this.terminated = cr + 1 !== text.length;
      this.next = this.terminated ? cr + 1 : text.length;
      return;
    }
    if (nl === -1) {
      this.end = text.length > from && text.charCodeAt(text.length - 1) === 13 ? text.length - 1 : text.length;
      this.next = text.length;
      this.terminated = false;
      return;
    }
    this.end = nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    this.next = nl + 1;
    this.terminated = true;
  }
}
