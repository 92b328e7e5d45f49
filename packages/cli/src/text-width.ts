// Terminal column width: East Asian wide and fullwidth characters take two columns, combining marks none.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /\p{Mn}|\p{Me}|\u200b|\u200d/u;

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += ZERO.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}

export function padEndColumns(text: string, columns: number): string {
  return text + " ".repeat(Math.max(0, columns - displayWidth(text)));
}

/** Cuts text to at most `columns` terminal columns, ending with an ellipsis when shortened. */
export function truncateColumns(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  let out = "";
  let width = 0;
  for (const char of text) {
    const w = ZERO.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
    if (width + w > columns - 1) break;
    out += char;
    width += w;
  }
  return `${out}…`;
}
