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
  const opener = lines.read(start);
  if (!opener.terminated && !complete) {
    return "---".startsWith(opener.content.replace(/[ \t]+$/, "")) ? { status: "unclosed" } : { status: "missing" };
  }
  if (!isDelimiter(opener.content)) return { status: "missing" };
  let line = 2;
  for (let pos = opener.next; pos < text.length; line++) {
    const current = lines.read(pos);
    if (!current.terminated && !complete) break;
    if (isDelimiter(current.content)) {
      return { status: "closed", yamlStart: opener.next, yamlEnd: pos, bodyOffset: current.next, bodyLine: line + 1 };
    }
    pos = current.next;
  }
  return { status: "unclosed" };
}

function isDelimiter(line: string): boolean {
  return line.startsWith("---") && /^---[ \t]*$/.test(line);
}

/**
 * Reads lines; LF, CRLF and a bare CR (classic Mac files, which the reference validator reads too) all end a line.
 * The next CR's position is remembered, so a text without bare CRs is scanned once, not once per line.
 */
class LineReader {
  #nextCr = -2;
  constructor(private readonly text: string) {}

  read(from: number): { content: string; next: number; terminated: boolean } {
    const text = this.text;
    const nl = text.indexOf("\n", from);
    if (this.#nextCr !== -1 && this.#nextCr < from) this.#nextCr = text.indexOf("\r", from);
    const cr = this.#nextCr;
    if (cr !== -1 && (nl === -1 || cr < nl - 1)) {
      // A CR that is not the first half of a CRLF pair ends the line by itself.
      if (cr + 1 === text.length) return { content: text.slice(from, cr), next: text.length, terminated: false };
      return { content: text.slice(from, cr), next: cr + 1, terminated: true };
    }
    if (nl === -1) return { content: text.slice(from).replace(/\r$/, ""), next: text.length, terminated: false };
    const end = nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    return { content: text.slice(from, end), next: nl + 1, terminated: true };
  }
}
