import type { Finding } from "./types.js";
import { OTHER_RULES } from "./rules.js";
import { evidence, type TextIndex } from "./text.js";

// Zero-width and bidirectional controls. LRM/RLM/ALM (U+200E/F, U+061C) are left alone: right-to-left text uses them.
// Written as escapes in alternation so no joiner sits inside a character class next to the characters it would join.
const INVISIBLE = /\u200b|\u200c|\u200d|[\u2060-\u2064]|\u180e|[\u202a-\u202e]|[\u2066-\u2069]|(?<!^)\ufeff/gu;
const TAGS = /[\u{e0000}-\u{e007f}]+/gu;
// A zero-width joiner or non-joiner between two letters of a script that shapes with it (emoji, Indic, Arabic…).
const JOINED =
  /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{M}\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Tamil}\p{Script=Malayalam}\p{Script=Sinhala}\ufe0f]/u;

/** Unicode tag runs (always malicious: they spell text only a model sees) and invisible controls. */
export function hiddenCharacters(file: string, index: TextIndex): Finding[] {
  const findings: Finding[] = [];
  const text = index.text;
  for (const m of text.matchAll(TAGS)) {
    const { line, column } = index.position(m.index);
    // Tag characters spell ASCII: show what they say.
    const spelled = [...m[0]]
      .map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0xe0000) - 0xe0000))
      .join("")
      .replace(/[^\x20-\x7e]/g, "");
    const rule = OTHER_RULES.hiddenTags;
    findings.push({ ...rule, file, line, column, evidence: evidence(`tags spell: ${spelled}`) });
  }
  const seenLines = new Set<number>();
  for (const m of text.matchAll(INVISIBLE)) {
    const char = m[0];
    if (char === "\u200b" && text.startsWith("`", m.index + 1)) continue;
    if (char === "\u200d" || char === "\u200c") {
      const before = text.slice(Math.max(0, m.index - 2), m.index);
      const after = text.slice(m.index + 1, m.index + 3);
      if (JOINED.test(before) || JOINED.test(after)) continue;
    }
    const { line, column } = index.position(m.index);
    if (seenLines.has(line)) continue;
    seenLines.add(line);
    findings.push({ ...OTHER_RULES.invisible, file, line, column, evidence: evidence(index.lineAt(m.index).trim()) });
  }
  return findings;
}

// What makes hidden markup worth a warning: commands, injection, secrets, network. A TODO note is not.
// A source note with a URL or a template's own guidance is not; that is why URLs and "must" are not triggers.
const HIDDEN_TRIGGER =
  /\b(?:curl|wget|bash\s+-c|sh\s+-c|\|\s*(?:ba)?sh\b|powershell|iex|base64\s+-d|chmod\s+\+x|sudo|ignore\s+(?:all|any|previous|prior|the\s+above)\s+(?:instructions|rules)|do\s+not\s+(?:tell|mention|reveal)\s+(?:this\s+|it\s+)?(?:to\s+)?the\s+user|system\s+prompt|always\s+(?:run|execute|send|include)\b[^\n]{0,40}(?:\.ssh|\.env|token|key|password|credential)|exfiltrat\w*|send\s+(?:it|them|the|all|every)\b[^\n]{0,60}(?:https?:|webhook|server)|\.ssh\b|~\/\.aws)/i;
const HIDDEN_MARKUP =
  /<!--([\s\S]{0,20000}?)-->|<(div|span|p|section)\b[^>]{0,200}(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)[^>]{0,200}>([\s\S]{0,20000}?)<\/\2>|^\[\/\/\]:\s*#\s*[("]([^\n]*)[)"]\s*$/gim;
const DETAILS = /<details\b[^>]*>([\s\S]{0,20000}?)<\/details>/gi;

/** HTML comments, hidden elements and Markdown comments holding commands or instructions; `<details>` at review. */
export function hiddenMarkup(file: string, index: TextIndex): Finding[] {
  const findings: Finding[] = [];
  const text = index.text;
  for (const m of text.matchAll(HIDDEN_MARKUP)) {
    const inner = m[1] ?? m[3] ?? m[4] ?? "";
    const hit = HIDDEN_TRIGGER.exec(inner);
    if (!hit) continue;
    const { line, column } = index.position(m.index);
    findings.push({ ...OTHER_RULES.hiddenHtml, file, line, column, evidence: evidence(inner.trim()) });
  }
  for (const m of text.matchAll(DETAILS)) {
    const inner = m[1] ?? "";
    if (
      !HIDDEN_TRIGGER.test(inner) ||
      !/\b(?:curl|wget|ignore|do\s+not\s+(?:tell|mention)|system\s+prompt|exfiltrat|base64)\b/i.test(inner)
    )
      continue;
    const { line, column } = index.position(m.index);
    findings.push({
      ...OTHER_RULES.hiddenHtml,
      level: "review",
      file,
      line,
      column,
      message: "a collapsed <details> block holds commands or instructions",
      evidence: evidence(inner.trim()),
    });
  }
  return findings;
}
