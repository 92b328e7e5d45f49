import { parseDocument, isMap } from "yaml";
import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter } from "./types.js";

/** Limits applied while parsing one SKILL.md. Every one is an option with a safe default. */
export interface ParseLimits {
  /** Largest frontmatter accepted, in UTF-8 bytes. */
  maxFrontmatterBytes: number;
  /** Most YAML alias nodes resolved (alias bombs fail fast). */
  maxAliases: number;
  /** Deepest nesting of maps and sequences. */
  maxDepth: number;
}

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxFrontmatterBytes: 256 * 1024,
  maxAliases: 100,
  maxDepth: 64,
});

export interface ParseOptions {
  /** Shown in diagnostics, e.g. `skills/pdf/SKILL.md`. */
  file?: string;
  limits?: Partial<ParseLimits>;
}

export interface ParsedSkillMd {
  /** Undefined when there is no usable frontmatter; `diagnostics` says why. */
  frontmatter: Frontmatter | undefined;
  /** Everything after the closing `---` line, verbatim. */
  body: string;
  /** 1-based line of the first body line in the file. */
  bodyLine: number;
  /** 1-based position of each top-level frontmatter key, for diagnostics. */
  positions: Map<string, { line: number; column: number }>;
  diagnostics: Diagnostic[];
}

// Initial implementation; see parse.test.ts for the behaviour it guarantees.
export function parseSkillMd(input: string | Uint8Array, options: ParseOptions = {}): ParsedSkillMd {
  const limits = { ...DEFAULT_PARSE_LIMITS, ...options.limits };
  const diagnostics: Diagnostic[] = [];
  const diag = (code: string, message: string, line = 1, column = 1, severity: Diagnostic["severity"] = "error") =>
    diagnostics.push({ code, severity, message, file: options.file, line, column });
  const fail = (): ParsedSkillMd => ({ frontmatter: undefined, body: "", bodyLine: 1, positions: new Map(), diagnostics });

  let text: string;
  if (typeof input === "string") text = input;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(input);
    } catch {
      diag("encoding-invalid", "SKILL.md is not valid UTF-8");
      return fail();
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  const firstEnd = lineEnd(text, 0);
  if (text.slice(0, firstEnd.contentEnd).trimEnd() !== "---") {
    diag("frontmatter-missing", "SKILL.md must start with a '---' line that opens the YAML frontmatter");
    return fail();
  }
  let pos = firstEnd.next;
  let line = 2;
  let close: { start: number; next: number; line: number } | undefined;
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    if (text.slice(pos, end.contentEnd).replace(/[ \t]+$/, "") === "---") {
      close = { start: pos, next: end.next, line };
      break;
    }
    pos = end.next;
    line++;
  }
  if (!close) {
    diag("frontmatter-unclosed", "the frontmatter opened on line 1 is never closed by a line that is exactly '---'");
    return fail();
  }
  const yamlText = text.slice(firstEnd.next, close.start);
  if (Buffer.byteLength(yamlText) > limits.maxFrontmatterBytes) {
    diag("frontmatter-too-large", `frontmatter is larger than ${limits.maxFrontmatterBytes} bytes`);
    return fail();
  }
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false, strict: true, keepSourceTokens: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const at = e.linePos?.[0];
      diag("yaml-invalid", `invalid YAML: ${e.message.split("\n")[0]}`, (at?.line ?? 1) + 1, at?.col ?? 1);
    }
    return fail();
  }
  if (!isMap(doc.contents)) {
    diag("frontmatter-not-mapping", "the frontmatter must be a YAML mapping of keys to values", 2, 1);
    return fail();
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliases });
  } catch (e) {
    diag("yaml-limit", `frontmatter rejected: ${(e as Error).message}`, 2, 1);
    return fail();
  }
  return {
    frontmatter: value as Frontmatter,
    body: text.slice(close.next),
    bodyLine: close.line + 1,
    positions: new Map(),
    diagnostics,
  };
}

function lineEnd(text: string, from: number): { contentEnd: number; next: number } {
  const nl = text.indexOf("\n", from);
  if (nl === -1) return { contentEnd: text.length, next: text.length };
  return { contentEnd: nl > from && text[nl - 1] === "\r" ? nl - 1 : nl, next: nl + 1 };
}
