import { isHiddenFromModel, skillTags } from "../catalog/text.js";
import type { Frontmatter, FrontmatterValue } from "../types.js";
import { searchTokens } from "./tokenize.js";

/** What the index reads of a skill: metadata, plus optionally the start of its body (read once, at index time). */
export interface SearchDocument {
  id: string;
  name?: string;
  description?: string;
  /** Frontmatter: `when_to_use`, `when_not_to_use`, `triggers`/`keywords`/`tags` and `disable-model-invocation`. */
  metadata?: Frontmatter;
  /** The SKILL.md body (or its start): headings and the first `bodyChars` characters are indexed. */
  body?: string;
}

/** The fields a query term can match, in the order their weights are listed. */
export const SEARCH_FIELDS = ["name", "description", "whenToUse", "triggers", "headings", "body"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * A skill as the index stores it: the terms of each field (space-separated, in order) and whether the model may see
 * it. Plain JSON, so callers can cache it (keyed by whatever tells them the skill is unchanged) and skip reading and
 * tokenising on the next start.
 */
export interface AnalysedSkill {
  id: string;
  /** `disable-model-invocation: true`: found only when the caller asks for hidden skills. */
  hidden: boolean;
  fields: Partial<Record<SearchField, string>>;
  /** Terms of `when_not_to_use`: matching them counts against the skill. */
  negative?: string;
}

export interface AnalyseOptions {
  /** How much of the body is indexed besides its headings, in characters. Default 4096; 0 indexes no body text. */
  bodyChars?: number;
}

export const DEFAULT_BODY_CHARS = 4096;

function text(value: FrontmatterValue | undefined): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map(text).join(" ");
  return "";
}

/** A frontmatter key under any of its spellings, at the top level or inside `metadata`. */
function field(metadata: Frontmatter | undefined, keys: readonly string[]): string {
  if (!metadata) return "";
  const nested = metadata.metadata;
  const inner = nested !== null && typeof nested === "object" && !Array.isArray(nested) ? nested : {};
  return keys.map((k) => `${text(metadata[k])} ${text(inner[k])}`).join(" ");
}

const WHEN_TO_USE = ["when_to_use", "when-to-use", "whenToUse"];
const WHEN_NOT_TO_USE = ["when_not_to_use", "when-not-to-use", "whenNotToUse"];
const TRIGGERS = ["triggers", "trigger", "keywords"];
const HEADING = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm;
const FENCE = /^ {0,3}(```|~~~)[\s\S]*?^ {0,3}\1[^\n]*$/gm;

function terms(value: string): string {
  return searchTokens(value).join(" ");
}

/** A document's metadata, name (the id when it has none) and description, as the index and the embeddings read them. */
function basics(doc: SearchDocument): { metadata: Frontmatter; name: string; description: string } {
  const metadata = doc.metadata ?? {};
  const name = doc.name ?? (typeof metadata.name === "string" ? metadata.name : doc.id);
  const description = doc.description ?? (typeof metadata.description === "string" ? metadata.description : "");
  return { metadata, name, description };
}

/** Tokenises one skill into the index's fields. Pure: the same document always gives the same result. */
export function analyseSkill(doc: SearchDocument, options: AnalyseOptions = {}): AnalysedSkill {
  const bodyChars = options.bodyChars ?? DEFAULT_BODY_CHARS;
  const { metadata, name, description } = basics(doc);
  const fields: Partial<Record<SearchField, string>> = {};
  const set = (key: SearchField, value: string) => {
    const t = terms(value);
    if (t !== "") fields[key] = t;
  };
  set("name", name === doc.id ? name : `${name} ${doc.id}`);
  set("description", description);
  set("whenToUse", field(metadata, WHEN_TO_USE));
  set("triggers", `${field(metadata, TRIGGERS)} ${skillTags(metadata).join(" ")}`);
  if (doc.body !== undefined && doc.body !== "") {
    // Headings say what a skill covers even deep in a long body; code blocks say little and are skipped.
    const prose = doc.body.replace(FENCE, " ");
    set("headings", [...prose.matchAll(HEADING)].map((m) => m[1]).join(" \n "));
    if (bodyChars > 0) set("body", prose.slice(0, bodyChars).replace(HEADING, " "));
  }
  const negative = terms(field(metadata, WHEN_NOT_TO_USE));
  return { id: doc.id, hidden: isHiddenFromModel(metadata), fields, ...(negative !== "" && { negative }) };
}

export interface EmbeddingTextOptions {
  /** Add the body's Markdown headings (code blocks skipped). Default false. */
  headings?: boolean;
}

/**
 * What an embeddings model reads of a skill (decision 0208): `name: description`, then `when_to_use` and the
 * triggers/tags when the skill has them — the fields the model-visible catalog and BM25F's metadata fields use,
 * as prose rather than terms. Pure, so callers can key cached vectors by it.
 */
export function skillEmbeddingText(doc: SearchDocument, options: EmbeddingTextOptions = {}): string {
  const { metadata, name, description } = basics(doc);
  const squash = (value: string) => value.replace(/\s+/g, " ").trim();
  const lines = [squash(`${name}: ${description}`)];
  const whenToUse = squash(field(metadata, WHEN_TO_USE));
  if (whenToUse !== "") lines.push(`When to use: ${whenToUse}`);
  const triggers = squash(`${field(metadata, TRIGGERS)} ${skillTags(metadata).join(", ")}`);
  if (triggers !== "") lines.push(`Keywords: ${triggers}`);
  if (options.headings === true && doc.body !== undefined) {
    const headings = [...doc.body.replace(FENCE, " ").matchAll(HEADING)].map((m) => squash(m[1] ?? ""));
    if (headings.length > 0) lines.push(`Sections: ${headings.join("; ")}`);
  }
  return lines.join("\n");
}
