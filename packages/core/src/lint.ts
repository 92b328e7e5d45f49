import type { Diagnostic } from "./diagnostics.js";
import type { Frontmatter } from "./types.js";
import { codePointLength, SPEC_DESCRIPTION_MAX_LENGTH } from "./names.js";
import { followReferences } from "./references.js";

/** Best-practice thresholds (warnings only). Every one is an option. */
export interface LintLimits {
  /** Body lines before `body-too-long`. */
  maxBodyLines: number;
  /** Approximate body tokens (characters / 4) before `body-too-many-tokens`. */
  maxBodyTokens: number;
  /** Description characters a catalog entry should stay under. */
  catalogDescriptionChars: number;
  /** Descriptions shorter than this say too little to be chosen well. */
  minDescriptionChars: number;
}

export const DEFAULT_LINT_LIMITS: Readonly<LintLimits> = Object.freeze({
  maxBodyLines: 500,
  maxBodyTokens: 5000,
  catalogDescriptionChars: 300,
  minDescriptionChars: 40,
});

export interface LintInput {
  frontmatter: Frontmatter;
  body?: string;
  /** POSIX paths relative to the skill directory; with them, the body's file references are checked. */
  files?: readonly string[];
  /** Text of one of `files` (Markdown the body points to), so references are followed through it. */
  readText?: (path: string) => string | undefined;
  /** Also report resources nothing points to (`resource-unreferenced`, info). Default false. */
  reportUnreferenced?: boolean;
  positions?: ReadonlyMap<string, { line: number; column: number }>;
  /** 1-based file line of the first body line (for body findings). */
  bodyLine?: number;
  file?: string;
  limits?: Partial<LintLimits>;
}

const RESOURCE_DIRS = ["scripts/", "references/", "assets/"];
// Past this many unreferenced files, one summary line stands for the rest.
const MAX_RESOURCE_FINDINGS = 20;
// Words that tell a model WHEN to pick a skill; a description without any is usually just a title.
const TRIGGER =
  /\b(when|whenever|if|use (it |this )?(for|to|on|with)|trigger|asks?|need(s|ed)?|for (tasks|work|requests))\b/i;

/** Best-practice findings for one skill: long bodies, vague or long descriptions, resources nothing points to. */
export function lintSkill(input: LintInput): Diagnostic[] {
  const limits = { ...DEFAULT_LINT_LIMITS, ...input.limits };
  const out: Diagnostic[] = [];
  const push = (
    code: string,
    message: string,
    at: { line: number; column: number } = { line: 1, column: 1 },
    severity: Diagnostic["severity"] = "warning",
    file = input.file,
  ): void => {
    const d: Diagnostic = { code, severity, message, line: at.line, column: at.column };
    if (file !== undefined) d.file = file;
    out.push(d);
  };

  const description = input.frontmatter.description;
  if (typeof description === "string" && description.trim() !== "") {
    const at = input.positions?.get("description");
    const length = codePointLength(description);
    if (length < limits.minDescriptionChars) {
      push(
        "description-vague",
        `description is only ${length} characters; say what the skill does and when to use it (at least ${limits.minDescriptionChars})`,
        at,
      );
    } else if (!TRIGGER.test(description)) {
      push(
        "description-vague",
        "description should say when to use the skill (e.g. 'Use when the user asks to …')",
        at,
      );
    }
    if (length > limits.catalogDescriptionChars && length <= SPEC_DESCRIPTION_MAX_LENGTH) {
      push(
        "description-long-for-catalog",
        `description is ${length} characters; catalogs show every description, keep it under ${limits.catalogDescriptionChars}`,
        at,
      );
    }
    if (/[<>]/.test(description)) {
      push(
        "description-angle-brackets",
        "description contains '<' or '>', which some clients reject because catalogs are XML-like",
        at,
      );
    }
  }

  const body = input.body;
  if (body !== undefined) {
    const bodyLine = input.bodyLine ?? 1;
    const bodyAt = { line: bodyLine, column: 1 };
    const lines = body === "" ? 0 : countLineBreaks(body) + 1 - (body.endsWith("\n") ? 1 : 0);
    if (lines > limits.maxBodyLines) {
      push(
        "body-too-long",
        `body is ${lines} lines; keep it under ${limits.maxBodyLines} and move detail into references/`,
        bodyAt,
      );
    }
    const tokens = Math.ceil(body.length / 4);
    if (tokens > limits.maxBodyTokens) {
      push(
        "body-too-many-tokens",
        `body is about ${tokens} tokens; keep it under ${limits.maxBodyTokens} and move detail into references/`,
        bodyAt,
      );
    }
    if (input.files !== undefined) lintReferences(input, body, bodyLine, push);
  }
  return out;
}

/** `text.split("\n").length - 1`, without building the array of lines. */
function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

type Push = (
  code: string,
  message: string,
  at?: { line: number; column: number },
  severity?: Diagnostic["severity"],
  file?: string,
) => void;

/** Broken references (errors: the model will ask for a file that is not there) and, on request, unused resources. */
function lintReferences(input: LintInput, body: string, bodyLine: number, push: Push): void {
  const files = input.files ?? [];
  const graph = followReferences({ body, files, ...(input.readText !== undefined && { readText: input.readText }) });
  const skillDir =
    input.file === undefined || !input.file.includes("/") ? "" : input.file.slice(0, input.file.lastIndexOf("/") + 1);
  for (const b of graph.broken) {
    const inBody = b.in === "SKILL.md";
    const at = { line: inBody ? bodyLine + b.line - 1 : b.line, column: b.column };
    const where = inBody ? input.file : `${skillDir}${b.in}`;
    if (b.problem === "case") {
      push(
        "reference-case-mismatch",
        `${JSON.stringify(b.target)} is ${JSON.stringify(b.actual)} on disk; names are case-sensitive outside macOS and Windows`,
        at,
        "error",
        where,
      );
    } else {
      push(
        "reference-missing",
        `${JSON.stringify(b.target)} is referenced but the skill has no such file`,
        at,
        "error",
        where,
      );
    }
  }
  if (!input.reportUnreferenced) return;
  const bodyAt = { line: bodyLine, column: 1 };
  const unreferenced = files.filter(
    (path) => RESOURCE_DIRS.some((dir) => path.startsWith(dir)) && !graph.reached.has(path),
  );
  for (const path of unreferenced.slice(0, MAX_RESOURCE_FINDINGS)) {
    push(
      "resource-unreferenced",
      `${path} is never mentioned in the body or the files it references, so a model will not know to load it`,
      bodyAt,
      "info",
    );
  }
  if (unreferenced.length > MAX_RESOURCE_FINDINGS) {
    push(
      "resource-unreferenced",
      `${unreferenced.length - MAX_RESOURCE_FINDINGS} more resources are never mentioned`,
      bodyAt,
      "info",
    );
  }
}
