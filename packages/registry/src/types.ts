import type { Finding, Verdict } from "@skillport/audit";

export type Scope = "read" | "publish" | "admin";
export const SCOPES: readonly Scope[] = ["read", "publish", "admin"];

/** Who is asking: a token's user and scopes, or nobody (anonymous). */
export interface Actor {
  user: string;
  scopes: readonly Scope[];
  tokenId: string;
}

export interface FileEntry {
  path: string;
  size: number;
  /** Lowercase hex sha256 of the file's bytes. */
  sha256: string;
  mode: number;
}

/** What the audit said, in every answer that shows a version. */
export interface AuditSummary {
  verdict: Verdict;
  findings: Finding[];
}

/** `held`: a `malicious` verdict waits for an admin; `rejected`: an admin kept it out for good; null: visible. */
export type HoldState = "held" | "rejected" | null;

export interface VersionView {
  /** `@team/name` or `name`. */
  skill: string;
  namespace: string | null;
  name: string;
  version: string;
  description: string;
  /** `sha256:<hex>` of the `.skill` archive served by download. */
  digest: string;
  /**
   * `sha256:<hex>` of the files as a zip with SKILL.md at its top (`…/archive`, what the well-known index lists); null
   * for a version published before it was recorded.
   */
  flatDigest: string | null;
  /** `sha256:<hex>` of the files (pack's content address): equal content, equal digest. */
  contentDigest: string;
  size: number;
  changelog: string;
  publishedAt: string;
  publishedBy: string;
  tags: string[];
  yanked: boolean;
  hold: HoldState;
  audit: AuditSummary;
  frontmatter: Record<string, unknown>;
  files: FileEntry[];
}

export interface SkillSummary {
  skill: string;
  namespace: string | null;
  name: string;
  description: string;
  /** The version a plain install gets: `latest` when visible, else the highest visible release. */
  version: string;
  tags: Record<string, string>;
  updatedAt: string;
  audit: AuditSummary;
  /** Search only: calibrated confidence of the hit (core's ranking). */
  confidence?: number;
}

export interface SkillView extends SkillSummary {
  owner: string;
  versions: Array<{
    version: string;
    publishedAt: string;
    changelog: string;
    yanked: boolean;
    hold: HoldState;
    verdict: Verdict;
  }>;
}

export interface LogEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
}
