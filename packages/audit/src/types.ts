/** How much a finding weighs. A skill's verdict is its heaviest finding's level, `pass` when it has none. */
export type FindingLevel = "review" | "warn" | "malicious";

export type Verdict = "pass" | FindingLevel;

/** Verdicts from lightest to heaviest (`--fail-on` compares positions). */
export const VERDICTS: readonly Verdict[] = ["pass", "review", "warn", "malicious"];

/** One rule's hit: a stable code, where, why and what to do. Lines and columns are 1-based; 0 = the file as a whole. */
export interface Finding {
  code: string;
  level: FindingLevel;
  /** Path inside the skill (`SKILL.md`, `scripts/x.sh`). */
  file: string;
  line: number;
  column: number;
  /** One line: what was seen. */
  message: string;
  /** One line: what the author should do instead. */
  fix: string;
  /** The matched text, shortened (never more than 120 characters). */
  evidence: string;
  /** Set when the level was lowered because the text sits under a "do not do this" heading. */
  downgraded?: true;
}

/** What the skill points the agent at: the skill's bill of materials. */
export type InventoryKind =
  "url" | "domain" | "package-runner" | "mcp-server" | "binary" | "credential-path" | "script";

export interface InventoryLocation {
  file: string;
  line: number;
  column: number;
}

export interface InventoryItem {
  kind: InventoryKind;
  /** Normalised value: a URL, a host name, `npx some-pkg`, a server name, a path. */
  value: string;
  locations: InventoryLocation[];
}

/** One file of a skill, as bytes. SKILL.md is the file named `SKILL.md` (or `skill.md`). */
export interface SkillFileInput {
  path: string;
  bytes: Uint8Array;
}

export interface AuditOptions {
  /** Bytes scanned per file; a larger file is reported (`audit.file_not_scanned`) and not read further. Default 1 MiB. */
  maxFileBytes?: number;
  /** Files scanned per skill; the rest are reported. Default 2,000. */
  maxFiles?: number;
  /** Longest encoded blob decoded for a re-scan, in characters. Default 65,536. */
  maxBlobChars?: number;
  /** How deep encoded blobs inside decoded blobs are followed. Default 2. */
  maxDecodeDepth?: number;
}

export interface AuditReport {
  verdict: Verdict;
  /** The skill's `name` from its frontmatter, when it has one. */
  name: string | undefined;
  findings: Finding[];
  inventory: InventoryItem[];
  /** The frontmatter fields the diff compares. */
  surface: { description: string; allowedTools: string[]; files: string[] };
}
