import { skillTags } from "./catalog/text.js";
import type { Frontmatter, FrontmatterValue } from "./types.js";

/** What the index reads of a skill: metadata only, never bodies. */
export interface SearchDocument {
  id: string;
  name?: string;
  description?: string;
  /** Frontmatter: `when_to_use`, `when_not_to_use` and tags are read from it. */
  metadata?: Frontmatter;
}

export interface SearchHit {
  id: string;
  score: number;
}

export interface SearchIndexOptions {
  /** BM25 term-frequency saturation. Default 1.5. */
  k1?: number;
  /** BM25 length normalisation. Default 0.75. */
  b?: number;
  /** Weight of the penalty from `when_not_to_use` text. Default 0.5. */
  negativeWeight?: number;
}

/** Small on purpose: words that say nothing about which skill fits. */
export const SEARCH_STOPWORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be but by can do for from has have how i if in into is it its me my of on or our should so that the their " +
    "then there these this to use used uses using want was we what when which while who will with you your").split(" "),
);

/** Lowercase `[a-z0-9]+` runs, stopwords removed. */
export function searchTokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !SEARCH_STOPWORDS.has(t));
}

interface Indexed {
  terms: Map<string, number>;
  length: number;
}

/** A BM25 field set: documents' term counts plus the collection statistics it needs. */
class Bm25Field {
  readonly docs = new Map<string, Indexed>();
  readonly df = new Map<string, number>();
  #totalLength = 0;

  set(id: string, tokens: readonly string[]): void {
    this.delete(id);
    const terms = new Map<string, number>();
    for (const t of tokens) terms.set(t, (terms.get(t) ?? 0) + 1);
    this.docs.set(id, { terms, length: tokens.length });
    this.#totalLength += tokens.length;
    for (const t of terms.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  delete(id: string): void {
    const old = this.docs.get(id);
    if (!old) return;
    this.docs.delete(id);
    this.#totalLength -= old.length;
    for (const t of old.terms.keys()) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n === 0) this.df.delete(t);
      else this.df.set(t, n);
    }
  }

  score(id: string, query: readonly string[], k1: number, b: number): number {
    const doc = this.docs.get(id);
    const n = this.docs.size;
    if (!doc || n === 0 || doc.length === 0) return 0;
    const avg = this.#totalLength / n;
    let score = 0;
    for (const term of query) {
      const tf = doc.terms.get(term);
      if (!tf) continue;
      const df = this.df.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avg));
    }
    return score;
  }
}

function text(value: FrontmatterValue | undefined): string {
  if (typeof value === "string") return value;
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

/**
 * Okapi BM25 over each skill's name, description, when-to-use text and tags (metadata only). Text in
 * `when_not_to_use` counts against a skill (score − 0.5 × its BM25 there). Hits with a score above 0, best first,
 * ties by id. Nothing scoring returns [] — callers then fall back to the full catalog.
 */
export class SkillSearchIndex {
  readonly #positive = new Bm25Field();
  readonly #negative = new Bm25Field();
  readonly #k1: number;
  readonly #b: number;
  readonly #negativeWeight: number;

  constructor(documents: Iterable<SearchDocument> = [], options: SearchIndexOptions = {}) {
    this.#k1 = options.k1 ?? 1.5;
    this.#b = options.b ?? 0.75;
    this.#negativeWeight = options.negativeWeight ?? 0.5;
    for (const doc of documents) this.add(doc);
  }

  get size(): number {
    return this.#positive.docs.size;
  }

  /** Adds or replaces one skill. */
  add(doc: SearchDocument): void {
    const name = doc.name ?? (typeof doc.metadata?.name === "string" ? doc.metadata.name : doc.id);
    const description = doc.description ?? (typeof doc.metadata?.description === "string" ? doc.metadata.description : "");
    const tags = doc.metadata ? skillTags(doc.metadata).join(" ") : "";
    this.#positive.set(doc.id, searchTokens(`${name} ${description} ${field(doc.metadata, WHEN_TO_USE)} ${tags}`));
    this.#negative.set(doc.id, searchTokens(field(doc.metadata, WHEN_NOT_TO_USE)));
  }

  remove(id: string): boolean {
    const had = this.#positive.docs.has(id);
    this.#positive.delete(id);
    this.#negative.delete(id);
    return had;
  }

  search(query: string, options: { limit?: number } = {}): SearchHit[] {
    const limit = options.limit ?? 10;
    const terms = [...new Set(searchTokens(query))];
    if (terms.length === 0 || limit <= 0) return [];
    const hits: SearchHit[] = [];
    for (const id of this.#positive.docs.keys()) {
      const score = this.#positive.score(id, terms, this.#k1, this.#b) - this.#negativeWeight * this.#negative.score(id, terms, this.#k1, this.#b);
      if (score > 0) hits.push({ id, score });
    }
    hits.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    return hits.slice(0, limit);
  }
}
