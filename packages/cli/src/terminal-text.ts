// The one rule for text from outside (skill names, descriptions, bodies, file names, sandboxed output, model answers)
// on its way to a person's terminal: control characters are shown, never obeyed (docs/decisions/0260).

// C0 except tab and line feed, DEL, C1 (U+0080–U+009F: 8-bit CSI 0x9b, OSC 0x9d … as UTF-8), and the bidirectional
// embeddings, overrides and isolates that reorder what is shown.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

// The styles the CLI itself draws (picocolors: bold, dim, red…cyan and their resets). Kept only when colours are on;
// an untrusted text can at most restyle itself with these, never move the cursor, set a title or touch the clipboard.
const OWN_STYLE = /\u001b\[(?:1|2|22|3[1-6]|39)m/gu;

function shown(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

function escapeControls(text: string): string {
  // A Windows line end is a line end on screen; a lone carriage return (which would overwrite the line) is shown.
  return text.replace(/\r\n/g, "\n").replace(CONTROL, shown);
}

/**
 * Text made harmless for a terminal: every control character becomes its visible escape (`\x1b`, `\x9b`, `\u202e`),
 * so an escape sequence prints as inert text. With `keepStyles`, the CLI's own colour sequences pass unchanged.
 */
export function neutralise(text: string, keepStyles = false): string {
  if (!keepStyles) return escapeControls(text);
  let out = "";
  let last = 0;
  for (const match of text.matchAll(OWN_STYLE)) {
    out += escapeControls(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + escapeControls(text.slice(last));
}

/** JSON whose strings carry no raw control or bidi character: those become `\uXXXX` escapes (the same value). */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    CONTROL,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}
