/** Offsets → 1-based line and column, and which lines sit under a "do not do this" heading. */
export class TextIndex {
  readonly text: string;
  readonly #lineStarts: number[];
  readonly #cautionLines: Set<number>;

  #lower: string | undefined;

  constructor(text: string) {
    this.text = text;
    this.#lineStarts = [0];
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.#lineStarts.push(i + 1);
    this.#cautionLines = cautionLines(text);
  }

  /** Hint words present in the text (set once by the scanner, read by the rules and the inventory). */
  words: ReadonlySet<string> = new Set();

  /** The text in lower case, made once (the rules' word hints search it). */
  get lower(): string {
    this.#lower ??= this.text.toLowerCase();
    return this.#lower;
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#lineStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.#lineStarts[low] ?? 0) + 1 };
  }

  /** The text of the line holding `offset`. */
  lineAt(offset: number): string {
    const { line } = this.position(offset);
    const start = this.#lineStarts[line - 1] ?? 0;
    const end = this.#lineStarts[line] ?? this.text.length + 1;
    return this.text.slice(start, end - 1);
  }

  /** The line is inside a section whose heading warns against what follows ("Don't", "Anti-patterns", "Never"). */
  underCaution(line: number): boolean {
    return this.#cautionLines.has(line);
  }
}

// A Markdown heading that introduces things NOT to do. Kept short and documented (docs/audit.md "Context").
const CAUTION_HEADING =
  /\b(don'?t|do not|never|avoid|anti-?patterns?|bad (examples?|practices?)|what not to|insecure|unsafe|dangerous|red flags?|attacks?|threats?|malicious)\b/i;

function cautionLines(text: string): Set<number> {
  const lines = text.split("\n");
  const result = new Set<number>();
  // The heading level of the open caution section; a heading at that level or above closes it.
  let cautionLevel = 0;
  let inFence = false;
  lines.forEach((line, i) => {
    if ((line.includes("```") || line.includes("~~~")) && /^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence || line.charCodeAt(0) !== 35 ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 1;
      if (cautionLevel > 0 && level <= cautionLevel) cautionLevel = 0;
      if (cautionLevel === 0 && CAUTION_HEADING.test(heading[2] ?? "")) cautionLevel = level;
      return;
    }
    if (cautionLevel > 0) result.add(i + 1);
  });
  return result;
}

/** At most 120 characters of matched text, on one line, with control characters shown as code points. */
export function evidence(text: string): string {
  const visible = text.replace(
    /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu,
    (c) => `<U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}>`,
  );
  return visible.length > 120 ? `${visible.slice(0, 117)}...` : visible;
}

/** UTF-8 text, or undefined when the bytes look binary (a NUL in the first 8 KiB). */
export function decodeText(bytes: Uint8Array): string | undefined {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return undefined;
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}
