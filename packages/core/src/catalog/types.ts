import type { Frontmatter } from "../types.js";
import type { TokenCounter } from "./tokens.js";

/** One skill as a catalog shows it. Built from metadata only: a catalog never reads bodies or resources. */
export interface CatalogEntry {
  /** What the model passes to the load tool. */
  id: string;
  name: string;
  description: string;
  /** Where the SKILL.md lives (absolute path), when the model may open it itself. */
  location?: string;
  /** The frontmatter (name and description included; renderers skip them where they are shown already). */
  metadata: Frontmatter;
  source: string;
  /**
   * Higher is kept first when the budget forces choices. Default 0 (the registry reads it from the frontmatter's
   * `priority` or `metadata.priority`).
   */
  priority?: number;
  /**
   * The agentscope compact layout's handle for the skill, shown before the colon: any string the load tool resolves
   * to this skill (a SkillBox passes the bare name when it is unique). Default: `id (name)`, or `id` when they agree.
   */
  label?: string;
}

export type CatalogFormat = "xml" | "agentscope" | "markdown" | "json";

export interface CatalogOptions {
  /** Default `xml`. */
  format?: CatalogFormat;
  /**
   * `xml`: skills-ref's one-item-per-line layout (default) or the client guide's indented one.
   * `agentscope`: AgentScope's element per field (default), or `compact` — one `- <skill-id>: <description>` line per
   * skill (the name in parentheses when it differs from the id), no metadata: about the cost of a bare
   * "name: description" list.
   */
  layout?: "skills-ref" | "indented" | "compact";
  /** Budget for the whole output, in characters (UTF-16 code units). */
  maxChars?: number;
  /** Budget in tokens as `tokenCounter` counts them; both budgets apply when both are given. */
  maxTokens?: number;
  /** Counts tokens for `maxTokens`. Default `approximateTokenCounter` (characters ÷ 4, rounded up). */
  tokenCounter?: TokenCounter;
  /** Ids kept first under a budget, in this order (also: `pinned: true` in a skill's frontmatter or metadata). */
  pinned?: readonly string[];
  /** Priority per id, overriding the entries' own. */
  priorities?: Readonly<Record<string, number>>;
  /**
   * The tool the last line names when skills are left out (`K more skills are not listed; call search_skills …`).
   * Default `search_skills`; `false` when the model has no search tool (the line then only counts them).
   */
  searchTool?: string | false;
  /** Cap per entry, in characters; the description is shortened with `…` to fit. */
  maxEntryChars?: number;
  /** Only these ids. */
  include?: readonly string[];
  /** Never these ids. */
  exclude?: readonly string[];
  /** Only skills carrying at least one of these tags (`tags` or `metadata.tags`, list or comma-separated). */
  tags?: readonly string[];
  /** Also show skills marked `disable-model-invocation: true`. Default false. */
  includeHidden?: boolean;
  /** `agentscope` (default true) and `json` (default false): show every metadata key, not just name and description. */
  exposeAllMetadata?: boolean;
  /** `agentscope`: replaces the built-in header; blank means the default. */
  instruction?: string;
}

/** What the budget decided, stated in the output. */
export interface CatalogCounts {
  shown: number;
  total: number;
  truncated: boolean;
  /** The search tool the notice names, or false. */
  searchTool: string | false;
}

/** A rendered catalog and what its budget decided: `shown < total` when skills were left out. */
export interface RenderedCatalog {
  text: string;
  /** Entries the text lists. */
  shown: number;
  /** Entries the catalog could list (hidden and filtered-out skills not counted). */
  total: number;
}

/** The fixed text around the entries, so budgets are computed without re-rendering. */
export interface Frame {
  prefix: string;
  separator: string;
  suffix: string;
  /** The whole output when no entry is shown. */
  empty: string;
}

export interface Renderer {
  entry(entry: CatalogEntry): string;
  frame(counts: CatalogCounts): Frame;
}
