import { INVOKE_CAPABILITIES, type InvokeCapability } from "@skillport/plugin";
import { warningOf, type PluginDiagnostic } from "./diagnostics.js";

const CAPABILITY = INVOKE_CAPABILITIES.join("|");
// `ctx.invoke.uploadFile(`, `invoke?.model(`, `invoke["dataset"]`
const MEMBER_USE = new RegExp(
  `\\binvoke\\s*(?:\\?\\.|\\.)\\s*(${CAPABILITY})\\b|\\binvoke\\s*(?:\\?\\.)?\\[\\s*["'\`](${CAPABILITY})["'\`]\\s*\\]`,
  "g",
);
// `const { uploadFile } = ctx.invoke`
const DESTRUCTURED = /\{([^{}]*)\}\s*=\s*[\w$.?]*\binvoke\b(?!\s*[.[(])/g;

/**
 * Which reverse calls code makes, found statically. It sees direct member use and destructuring of
 * `invoke`; passing `ctx.invoke` around under another name hides calls from it (documented).
 */
export function findInvokeUses(code: string): InvokeCapability[] {
  const found = new Set<InvokeCapability>();
  for (const match of code.matchAll(MEMBER_USE)) found.add((match[1] ?? match[2]) as InvokeCapability);
  for (const match of code.matchAll(DESTRUCTURED)) {
    for (const capability of INVOKE_CAPABILITIES) {
      if (new RegExp(`(?:^|[\\s,])${capability}\\b`).test(match[1] ?? "")) found.add(capability);
    }
  }
  return INVOKE_CAPABILITIES.filter((c) => found.has(c));
}

interface SecretPattern {
  kind: string;
  pattern: RegExp;
}

const KNOWN_KEY_SHAPES: SecretPattern[] = [
  { kind: "an API key (sk-…)", pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { kind: "an AWS access key id (AKIA…)", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "a GitHub token", pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { kind: "a Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: "a private key", pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/g },
];

// `apiKey: "…"`, `const token = '…'`, `SECRET = \`…\`` with a long hex or base64-looking literal.
const ASSIGNED_SECRET =
  /\b([A-Za-z_$][\w$]*(?:key|token|secret|password|passwd|credential)s?)["']?\s*[:=]\s*(["'`])([A-Za-z0-9+/_=-]{20,})\2/gi;

const looksRandom = (value: string) => /[0-9]/.test(value) && /[A-Za-z]/.test(value) && !/^(.)\1+$/.test(value);

function lineColumn(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  return { line, column: index - before.lastIndexOf("\n") };
}

/**
 * Secrets belong in secretSchema/ctx.secrets: warns on literals shaped like keys, and on process.env reads.
 * Messages never repeat the suspected value.
 */
export function findSecretLiterals(file: string, text: string): PluginDiagnostic[] {
  const found: PluginDiagnostic[] = [];
  const seen = new Set<number>();
  for (const { kind, pattern } of KNOWN_KEY_SHAPES) {
    for (const match of text.matchAll(pattern)) {
      seen.add(match.index);
      found.push(
        warningOf(
          "PLUGIN_SECRET_LITERAL",
          `looks like ${kind} written into the source; declare it in secretSchema and read ctx.secrets`,
          {
            file,
            ...lineColumn(text, match.index),
          },
        ),
      );
    }
  }
  for (const match of text.matchAll(ASSIGNED_SECRET)) {
    const value = match[3] ?? "";
    const valueIndex = match.index + match[0].length - value.length - 1;
    if (seen.has(valueIndex) || !looksRandom(value)) continue;
    found.push(
      warningOf(
        "PLUGIN_SECRET_LITERAL",
        `${match[1]} is assigned a literal that looks like a secret; declare it in secretSchema and read ctx.secrets`,
        {
          file,
          ...lineColumn(text, match.index),
        },
      ),
    );
  }
  for (const match of text.matchAll(/\bprocess\.env\b/g)) {
    found.push(
      warningOf(
        "PLUGIN_ENV_ACCESS",
        "reads process.env; plugin configuration belongs in secretSchema and ctx.secrets (the host scrubs the environment)",
        {
          file,
          ...lineColumn(text, match.index),
        },
      ),
    );
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}
