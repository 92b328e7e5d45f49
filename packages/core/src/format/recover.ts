/**
 * Repairs the classic SKILL.md mistake `description: Use when: the user asks` — an unquoted `: ` inside a plain
 * top-level value, which YAML reads as a nested mapping and rejects. The value is re-written as a double-quoted
 * string on the same line (continuation lines are blanked), so line numbers stay true.
 */

export interface ColonFix {
  key: string;
  /** 0-based line in the YAML text. */
  line: number;
  /** 0-based column of the offending `:` in that line. */
  column: number;
  /** The value as the author meant it. */
  value: string;
}

const TOP_LEVEL_PLAIN = /^([A-Za-z0-9_][A-Za-z0-9_.-]*):[ \t]+([^\s'"[{|>&*!%@`#-].*)$/;

/** Only lines in `errorLines` (0-based) are touched: a line YAML accepts is never rewritten. */
export function repairUnquotedColons(
  yamlText: string,
  errorLines: ReadonlySet<number>,
): { text: string; fixes: ColonFix[] } {
  const lines = yamlText.split("\n");
  const fixes: ColonFix[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    const cr = raw.endsWith("\r") ? "\r" : "";
    const match = TOP_LEVEL_PLAIN.exec(cr ? raw.slice(0, -1) : raw);
    if (!match) continue;
    const key = match[1] ?? "";
    const first = stripComment(match[2] ?? "");
    const colon = first.search(/:( |\t|$)/);
    if (colon === -1) continue;
    const parts = [first.trim()];
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const next = (lines[j] ?? "").replace(/\r$/, "");
      if (next.trim() === "") {
        parts.push("");
        continue;
      }
      if (!/^[ \t]/.test(next) || /^\s*#/.test(next)) break;
      parts.push(stripComment(next).trim());
      last = j;
    }
    parts.length = last - i + 1;
    let touchesError = false;
    for (let k = i; k <= last && !touchesError; k++) touchesError = errorLines.has(k);
    if (!touchesError) continue;
    const value = foldPlain(parts);
    lines[i] = `${key}: ${JSON.stringify(value)}${cr}`;
    for (let k = i + 1; k <= last; k++) lines[k] = cr;
    fixes.push({ key, line: i, column: raw.indexOf(match[2] ?? "") + colon, value });
    i = last;
  }
  return { text: lines.join("\n"), fixes };
}

/** A plain scalar ends where ` #` starts a comment. */
function stripComment(text: string): string {
  const hash = text.search(/[ \t]#/);
  return hash === -1 ? text : text.slice(0, hash);
}

/** YAML folding of a multi-line plain scalar: line breaks become spaces, each blank line a newline. */
function foldPlain(parts: string[]): string {
  let out = parts[0] ?? "";
  let blanks = 0;
  for (const part of parts.slice(1)) {
    if (part === "") {
      blanks++;
      continue;
    }
    out += blanks > 0 ? "\n".repeat(blanks) : " ";
    out += part;
    blanks = 0;
  }
  return out.trim();
}
