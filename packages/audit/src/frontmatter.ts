import type { Finding } from "./types.js";
import { OTHER_RULES } from "./rules.js";
import { evidence, type TextIndex } from "./text.js";

const BROAD_TRIGGER = [
  /\b(?:use|invoke|activate|trigger|apply|load)\b[^.]{0,40}\b(?:for|on|with|in|to|during)\s+(?:every|all|any)\s+(?:single\s+)?(?:tasks?|requests?|questions?|prompts?|messages?|conversations?|queries|user\s+(?:inputs?|messages?|requests?)|interactions?|responses?|turns?)\b/i,
  /\balways\s+(?:use|invoke|load|activate|run|trigger|apply)\s+(?:this|me)\b/i,
  /\b(?:before|instead\s+of|over|in\s+place\s+of)\s+(?:any|every|all)\s+other\s+skills?\b/i,
  /\bwhenever\s+the\s+user\s+(?:says|types|asks|writes|sends)\s+anything\b/i,
  /\b(?:regardless\s+of|no\s+matter)\s+(?:the|what)\s+(?:task|request|topic|user\s+asks)\b/i,
  /\bmust\s+be\s+(?:used|loaded|invoked)\s+(?:first|for\s+everything|at\s+the\s+start\s+of\s+every)\b/i,
];

const SCOPED =
  /^\s*(?:skill\s+)?(?:when|whenever|if|for|to|before|on|in|involving|related|that|which|where|about|with|using|touching|\()/i;

/** The description claims every request (trigger hijacking), or stuffs dozens of unrelated trigger words. */
export function triggerFindings(description: string, index: TextIndex): Finding[] {
  const where = locateKey(index, "description");
  // "Always use this skill when reviewing React code" is scoped; a claim followed by a condition is not hijacking.
  const hit = BROAD_TRIGGER.map((re) => re.exec(description)).find(
    (m) => m !== null && !SCOPED.test(description.slice(m.index + m[0].length, m.index + m[0].length + 40)),
  );
  if (hit) return [{ ...OTHER_RULES.triggers, ...where, evidence: evidence(hit[0]) }];
  const terms = description.split(/[,;|]/).filter((t) => t.trim().length > 0).length;
  if (terms > 80)
    return [
      {
        ...OTHER_RULES.triggers,
        ...where,
        message: `the description lists ${terms} trigger terms (keyword stuffing to be chosen for unrelated requests)`,
        evidence: evidence(description),
      },
    ];
  return [];
}

/** Tools granted that the instructions give no sign of needing. */
export function allowedToolsFindings(tools: readonly string[], body: string, index: TextIndex): Finding[] {
  const where = locateKey(index, "allowed-tools");
  const unused: string[] = [];
  let level: Finding["level"] = OTHER_RULES.allowedTools.level;
  for (const tool of tools) {
    const t = tool.trim();
    if (t === "*" || /^all$/i.test(t) || /^(?:Bash|Shell)\(\*(?::\*)?\)$/i.test(t)) {
      unused.push(t);
      level = "warn";
    } else if (/^(?:Bash|Shell)$/i.test(t) && !SHELL_USE.test(body)) unused.push(t);
    else if (/^(?:WebFetch|WebSearch|Fetch)$/i.test(t) && !WEB_USE.test(body)) unused.push(t);
    else if (/^(?:Write|Edit|MultiEdit|NotebookEdit)$/i.test(t) && !WRITE_USE.test(body)) unused.push(t);
  }
  if (unused.length === 0) return [];
  return [
    {
      ...OTHER_RULES.allowedTools,
      level,
      ...where,
      message: `allowed-tools grants ${unused.join(", ")}, which the instructions do not use`,
      evidence: evidence(tools.join(" ")),
    },
  ];
}

const SHELL_USE =
  /```(?:bash|sh|shell|zsh|console|powershell|ps1)?\s*\n|`[a-z][\w.-]*\s[^`]*`|\$\s+\w|\b(?:run|execute|command|terminal|script|shell|cli)\b/i;
const WEB_USE = /https?:\/\/|\b(?:web|search|fetch|url|online|internet|browse|website|page|api|download|docs?)\b/i;
const WRITE_USE = /\b(?:write|edit|create|save|update|modify|generate|file|change|fix|refactor|add)\b/i;

/** Where a top-level frontmatter key starts (line 0 when it cannot be found). */
function locateKey(index: TextIndex, key: string): { file: string; line: number; column: number } {
  const m = new RegExp(`^${key}\\s*:`, "m").exec(index.text);
  if (!m) return { file: "SKILL.md", line: 0, column: 0 };
  return { file: "SKILL.md", ...index.position(m.index) };
}

/** `allowed-tools` as a list, from a space- or comma-separated string or a YAML list. */
export function toolList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value !== "string") return [];
  // Split on spaces and commas outside parentheses: `Bash(git add:*) Read`.
  const tools: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of value) {
    if (c === "(") depth++;
    if (c === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === " " || c === "," || c === "\t")) {
      if (current) tools.push(current);
      current = "";
    } else current += c;
  }
  if (current) tools.push(current);
  return tools;
}
