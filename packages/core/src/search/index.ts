import { compareCodeUnits } from "../compare.js";
import { confidenceOf, DEFAULT_CONFIDENCE_MODEL, type ConfidenceFeatures, type ConfidenceModel } from "./confidence.js";
import {
  analyseSkill,
  SEARCH_FIELDS,
  type AnalysedSkill,
  type AnalyseOptions,
  type SearchDocument,
  type SearchField,
} from "./document.js";
import { searchTokens } from "./tokenize.js";

export { analyseSkill } from "./document.js";
export type { AnalysedSkill, AnalyseOptions, SearchDocument, SearchField } from "./document.js";
export { DEFAULT_MIN_CONFIDENCE } from "./confidence.js";
export type { ConfidenceFeatures, ConfidenceModel } from "./confidence.js";
export { searchTokens } from "./tokenize.js";

/** Bumped whenever tokenising or field extraction changes: caches of analysed skills from older versions are void. */
export const SEARCH_ANALYSIS_VERSION = 1;

export interface SearchHit {
  id: string;
  /** BM25F score: meaningful only within one query's results. */
  score: number;
  /** How likely this hit fits the query, calibrated to [0,1]; comparable across queries and corpora. */
  confidence: number;
  /** Fields where a query term was found, in SEARCH_FIELDS order. */
  matched: SearchField[];
  /** The features behind `confidence`, when `explain` was asked for. */
  features?: ConfidenceFeatures;
}

export interface SearchOptions {
  /** Most hits returned. Default 10. */
  limit?: number;
  /** Drop hits whose confidence is below this (0–1). Default 0: every hit that scores. */
  minConfidence?: number;
  /** Also find skills marked `disable-model-invocation: true` (a user's search; never a model's). Default false. */
  includeHidden?: boolean;
  /** Attach the confidence features to each hit. */
  explain?: boolean;
}

export interface FieldWeights {
  /** How much a match in this field counts. */
  weight: number;
  /** Length normalisation for this field (BM25's b), 0–1. */
  b: number;
}

/** What `searchPage` takes: a page of the ranking, without abstention (so every match counts towards `total`). */
export interface SearchPageOptions {
  /** Best hits skipped before the page starts. Default 0. */
  offset?: number;
  /** Most hits on the page. Default 10. */
  limit?: number;
  /** Also find skills marked `disable-model-invocation: true`. Default false. */
  includeHidden?: boolean;
  /**
   * Only skills with these ids are ranked and counted (a caller's filter, applied before paging). Default: all. The
   * index keeps which of its skills a set holds for as long as the set lives, so a caller that filters the same way
   * again should pass the same set, unchanged.
   */
  among?: ReadonlySet<string>;
  /** Attach the confidence features to each hit. */
  explain?: boolean;
}

/** A page of the ranking and how many skills the query matches in all. */
export interface SearchPage {
  /** Every skill that scores above 0 (and is visible, and `among` holds it): counted, not ranked. */
  total: number;
  hits: SearchHit[];
}

export interface SearchIndexOptions extends AnalyseOptions {
  /** BM25 term-frequency saturation. Default 1.6. */
  k1?: number;
  /** Per-field weight and length normalisation; unspecified fields keep their defaults. */
  fields?: Partial<Record<SearchField, Partial<FieldWeights>>>;
  /** Weight of the penalty from `when_not_to_use` text. Default 0.5. */
  negativeWeight?: number;
  /** Maps features to confidence. Default: the model calibrated on bench/retrieval. */
  confidenceModel?: ConfidenceModel;
  /**
   * How a query finds its terms. "postings" (default): the first search after a change builds an inverted index of
   * every term, then each search reads only its terms' lists — for a process that searches many times. "scan": each
   * search finds its own terms in the analysed text (kept per term afterwards) and nothing else is built — for a
   * process that searches once, like a CLI run. Both give the same hits and scores.
   */
  mode?: "postings" | "scan";
}

/** Chosen on the train split of bench/retrieval (docs/search.md). */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<SearchField, FieldWeights>> = {
  name: { weight: 4, b: 0.3 },
  description: { weight: 2, b: 0.5 },
  whenToUse: { weight: 2, b: 0.5 },
  triggers: { weight: 2, b: 0.3 },
  headings: { weight: 1, b: 0.5 },
  body: { weight: 0.3, b: 0.75 },
};

const FIELD_COUNT = SEARCH_FIELDS.length;
const NAME_BIT = 1 << SEARCH_FIELDS.indexOf("name");
/** Name, description, when-to-use and triggers: what the skill's author says it is for. */
const METADATA_BITS = (1 << 4) - 1;

interface Postings {
  docs: Int32Array;
  /** BM25F pseudo term frequency: field-weighted, length-normalised. */
  tf: Float32Array;
  /** Bit per field the term occurs in. */
  mask: Uint8Array;
}

interface Built {
  /** Live documents, by position. */
  docs: AnalysedSkill[];
  /** Every term's postings ("postings" mode), or those of the terms searched so far ("scan" mode). */
  postings: Map<string, Postings>;
  negative: Map<string, Postings>;
  /** Per field: each document's length in terms, and the average ("scan" mode computes postings from these). */
  lengths: Int32Array[];
  average: number[];
  scan: boolean;
  /** Scan mode: terms searched for and found nowhere. */
  missing: Set<string>;
  /** A loaded export: postings are views into its arrays, found by binary search. */
  loaded?: SearchIndexExport;
  /** Which documents each `among` set a search was given holds (see `SearchPageOptions.among`). */
  allowed: WeakMap<ReadonlySet<string>, Uint8Array>;
  /** Per-query accumulators, reused (and reset for the documents a query touched) so a search allocates little. */
  scratch: Scratch;
}

/** What scoring a query leaves for its hits' confidences: the query's weight, and its terms found, in query order. */
interface Scored {
  queryWeight: number;
  /** How many documents the query touched (the first entries of the scratch's `touched`). */
  touched: number;
  terms: Array<{ postings: Postings; idf: number }>;
}

interface Scratch {
  score: Float64Array;
  /** Bit per field a query term was found in; 0: not touched. */
  masks: Uint8Array;
  /** The documents the query touched, in the order first touched (the first `count` entries are this query's). */
  touched: Int32Array;
}

function scratchFor(n: number): Scratch {
  return {
    score: new Float64Array(n),
    masks: new Uint8Array(n),
    touched: new Int32Array(n),
  };
}

/**
 * A built index as plain arrays, for a cache to store (`SkillSearchIndex.export()`) and load back
 * (`SkillSearchIndex.load()`) without the analysed text: one posting list per term, terms sorted by code units.
 */
export interface SearchIndexExport {
  /** The field weights and normalisation the term frequencies were computed with; `load` refuses others. */
  fields: string;
  /** In id order (code units): the ranking breaks ties by position. */
  docs: Array<{ id: string; hidden: boolean; negative?: string }>;
  /** Sorted (code units). Term i's postings are entries starts[i] … starts[i + 1] − 1. */
  terms: string[];
  starts: Int32Array;
  /** Each term's postings in document order (positions into `docs`). */
  postingDocs: Int32Array;
  postingTf: Float32Array;
  postingMask: Uint8Array;
}

/** Hits are chosen among this many best-scoring candidates per requested hit (confidence may drop a few). */
const CANDIDATES_PER_HIT = 4;

function split(terms: string | undefined): string[] {
  return terms === undefined || terms === "" ? [] : terms.split(" ");
}

/**
 * BM25F over each skill's name, description, when-to-use text, triggers/tags, body headings and the start of its body,
 * with Unicode tokenisation and English stemming (see tokenize.ts). Text in `when_not_to_use` counts against a
 * skill. Each hit carries a calibrated confidence; `minConfidence` turns that into abstention: nothing comes back
 * when nothing fits. Hits best first, ties by id. Adding and removing are cheap; the inverted index is rebuilt on the
 * first search after a change.
 */
export class SkillSearchIndex {
  readonly #docs = new Map<string, AnalysedSkill>();
  readonly #k1: number;
  readonly #fields: Array<FieldWeights>;
  readonly #negativeWeight: number;
  readonly #model: ConfidenceModel;
  readonly #analyse: AnalyseOptions;
  readonly #scan: boolean;
  #built: Built | undefined;
  /** Loaded from an export: the analysed text is not there to rebuild from, so the index is read-only. */
  #frozen = false;

  constructor(documents: Iterable<SearchDocument> = [], options: SearchIndexOptions = {}) {
    this.#k1 = options.k1 ?? 1.6;
    this.#fields = SEARCH_FIELDS.map((f) => ({ ...DEFAULT_FIELD_WEIGHTS[f], ...options.fields?.[f] }));
    this.#negativeWeight = options.negativeWeight ?? 0.5;
    this.#model = options.confidenceModel ?? DEFAULT_CONFIDENCE_MODEL;
    this.#analyse = { bodyChars: options.bodyChars };
    this.#scan = options.mode === "scan";
    for (const doc of documents) this.add(doc);
  }

  get size(): number {
    return this.#docs.size;
  }

  /** Adds or replaces one skill. */
  add(doc: SearchDocument): void {
    this.addAnalysed(analyseSkill(doc, this.#analyse));
  }

  /** Adds or replaces a skill analysed earlier (e.g. loaded from a cache). */
  addAnalysed(doc: AnalysedSkill): void {
    this.#assertWritable();
    this.#docs.set(doc.id, doc);
    this.#built = undefined;
  }

  remove(id: string): boolean {
    this.#assertWritable();
    const had = this.#docs.delete(id);
    if (had) this.#built = undefined;
    return had;
  }

  #assertWritable(): void {
    if (this.#frozen) throw new TypeError("a SkillSearchIndex loaded from an export is read-only");
  }

  /** The built index as plain arrays (see SearchIndexExport), for a cache that wants to skip building next time. */
  export(): SearchIndexExport {
    const built = this.#built?.scan === false ? this.#built : (this.#built = this.#buildPostings());
    if (built.loaded) return built.loaded;
    const terms = [...built.postings.keys()].sort(compareCodeUnits);
    const starts = new Int32Array(terms.length + 1);
    let total = 0;
    terms.forEach((t, i) => {
      starts[i] = total;
      total += (built.postings.get(t) as Postings).docs.length;
    });
    starts[terms.length] = total;
    const postingDocs = new Int32Array(total);
    const postingTf = new Float32Array(total);
    const postingMask = new Uint8Array(total);
    terms.forEach((t, i) => {
      const p = built.postings.get(t) as Postings;
      postingDocs.set(p.docs, starts[i]);
      postingTf.set(p.tf, starts[i]);
      postingMask.set(p.mask, starts[i]);
    });
    const docs = built.docs.map((d) => ({
      id: d.id,
      hidden: d.hidden,
      ...(d.negative !== undefined && { negative: d.negative }),
    }));
    return { fields: JSON.stringify(this.#fields), docs, terms, starts, postingDocs, postingTf, postingMask };
  }

  /**
   * A read-only index over an export, searching exactly as the index it came from: nothing is rebuilt, a query reads
   * only its own terms' postings. Throws when `options` would weigh fields differently than the export did.
   */
  static load(data: SearchIndexExport, options: Omit<SearchIndexOptions, "mode" | "bodyChars"> = {}): SkillSearchIndex {
    const index = new SkillSearchIndex([], options);
    if (data.fields !== JSON.stringify(index.#fields))
      throw new TypeError("the exported index was built with other field weights");
    const n = data.docs.length;
    if (
      data.starts.length !== data.terms.length + 1 ||
      data.postingTf.length !== data.postingDocs.length ||
      data.postingMask.length !== data.postingDocs.length ||
      // Ranking breaks ties by position, so positions must be in id order (as `export` writes them).
      data.docs.some((d, i) => i > 0 && compareCodeUnits((data.docs[i - 1] as { id: string }).id, d.id) >= 0)
    ) {
      throw new TypeError("the exported index is inconsistent");
    }
    const docs: AnalysedSkill[] = data.docs.map((d) => ({
      id: d.id,
      hidden: d.hidden,
      fields: {},
      ...(d.negative !== undefined && { negative: d.negative }),
    }));
    for (const doc of docs) index.#docs.set(doc.id, doc);
    const scratch = scratchFor(n);
    index.#built = {
      docs,
      postings: new Map(),
      negative: negativePostings(docs),
      lengths: [],
      average: [],
      scan: false,
      missing: new Set(),
      loaded: data,
      allowed: new WeakMap(),
      scratch,
    };
    index.#frozen = true;
    return index;
  }

  /** The skill as the index holds it (for caching), or undefined. */
  analysed(id: string): AnalysedSkill | undefined {
    return this.#docs.get(id);
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const limit = options.limit ?? 10;
    const minConfidence = options.minConfidence ?? 0;
    // Confidence can drop hits only when a threshold is set: then the page is chosen among more candidates.
    const candidates = minConfidence > 0 ? limit * CANDIDATES_PER_HIT : limit;
    return this.#rank(query, 0, limit, candidates, minConfidence, options).hits;
  }

  /**
   * Hits `offset` … `offset + limit − 1` of the ranking (the same order as `search`) and the number of matches. Only
   * the best `offset + limit` are ordered (a bounded heap); the rest are counted, so a page costs the scoring of the
   * query's postings plus O(matches · log(offset + limit)).
   */
  searchPage(query: string, options: SearchPageOptions = {}): SearchPage {
    const offset = Math.max(0, options.offset ?? 0);
    const limit = options.limit ?? 10;
    return this.#rank(query, offset, limit, offset + limit, 0, options);
  }

  #rank(
    query: string,
    offset: number,
    limit: number,
    candidates: number,
    minConfidence: number,
    options: SearchPageOptions,
  ): SearchPage {
    const terms = [...new Set(searchTokens(query))];
    if (terms.length === 0 || this.#docs.size === 0) return { total: 0, hits: [] };
    const built = (this.#built ??= this.#build());
    const { score, masks, touched } = built.scratch;
    let count = 0;
    try {
      const scored = this.#score(built, terms);
      count = scored.touched;
      const allowed = options.among && allowedOf(built, options.among);
      const { total, best } = selectBest(
        built,
        touched.subarray(0, count),
        candidates,
        !!options.includeHidden,
        allowed,
      );
      return { total, hits: this.#hits(built, best, offset, limit, scored, minConfidence, options) };
    } finally {
      if (count * 4 > touched.length) {
        // Most documents were touched (common words): clearing whole arrays is cheaper than visiting each.
        score.fill(0);
        masks.fill(0);
      } else {
        for (let j = 0; j < count; j++) {
          const i = touched[j] as number;
          score[i] = 0;
          masks[i] = 0;
        }
      }
    }
  }

  /**
   * Accumulates every touched document's BM25F score and matched fields in the scratch arrays (the documents
   * themselves in `touched`); returns how many were touched and what the hits' confidences need.
   */
  #score(built: Built, terms: readonly string[]): Scored {
    const { score, masks, touched } = built.scratch;
    const found: Scored["terms"] = [];
    let count = 0;
    const n = built.docs.length;
    const k1 = this.#k1;
    const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    let queryWeight = 0;
    for (const term of terms) {
      const postings = this.#postingsOf(built, term);
      const idf = idfOf(postings?.docs.length ?? 0);
      queryWeight += idf;
      if (!postings) continue;
      found.push({ postings, idf });
      for (let j = 0; j < postings.docs.length; j++) {
        const i = postings.docs[j] as number;
        const tf = postings.tf[j] as number;
        if (masks[i] === 0) touched[count++] = i;
        masks[i] = (masks[i] as number) | (postings.mask[j] as number);
        score[i] = (score[i] as number) + (idf * tf) / (k1 + tf);
      }
    }
    if (built.negative.size > 0) {
      for (const term of terms) {
        const postings = built.negative.get(term);
        if (!postings) continue;
        const idf = idfOf(this.#postingsOf(built, term)?.docs.length ?? 0);
        for (let j = 0; j < postings.docs.length; j++) {
          const i = postings.docs[j] as number;
          const tf = postings.tf[j] as number;
          score[i] = (score[i] as number) - (this.#negativeWeight * idf * tf) / (k1 + tf);
        }
      }
    }
    return { queryWeight, touched: count, terms: found };
  }

  /** The hits from `offset` on among `best` (documents best first), with confidences; below `minConfidence` dropped. */
  #hits(
    built: Built,
    best: Int32Array,
    offset: number,
    limit: number,
    { queryWeight, terms }: Scored,
    minConfidence: number,
    options: SearchPageOptions,
  ): SearchHit[] {
    const { score, masks } = built.scratch;
    const top = best.length > 0 ? (score[best[0] as number] as number) : 0;
    const hits: SearchHit[] = [];
    for (let at = offset; at < best.length && hits.length < limit; at++) {
      const i = best[at] as number;
      const s = score[i] as number;
      // Coverage is summed here, for the page only, term by term in query order (as scoring met them).
      let matched = 0;
      let metadata = 0;
      let named = 0;
      for (const { postings, idf } of terms) {
        const j = positionOf(postings.docs, i);
        if (j < 0) continue;
        const mask = postings.mask[j] as number;
        matched += idf;
        if (mask & METADATA_BITS) metadata += idf;
        if (mask & NAME_BIT) named += idf;
      }
      const features: ConfidenceFeatures = {
        coverage: matched / queryWeight,
        metadataCoverage: metadata / queryWeight,
        normalisedScore: s / queryWeight,
        relativeScore: s / top,
        nameCoverage: named / queryWeight,
      };
      const confidence = confidenceOf(features, this.#model);
      if (confidence < minConfidence) continue;
      const fields = SEARCH_FIELDS.filter((_, f) => ((masks[i] as number) & (1 << f)) !== 0);
      hits.push({
        id: built.docs[i]?.id ?? "",
        score: s,
        confidence,
        matched: fields,
        ...(options.explain && { features }),
      });
    }
    return hits;
  }

  /** A term's postings: from the inverted index, or (scan mode) found in the analysed text once and kept. */
  #postingsOf(built: Built, term: string): Postings | undefined {
    if (built.loaded) return loadedPostings(built.loaded, term);
    if (!built.scan || built.postings.has(term) || built.missing.has(term)) return built.postings.get(term);
    const docs: number[] = [];
    const tfs: number[] = [];
    const masks: number[] = [];
    for (let i = 0; i < built.docs.length; i++) {
      const fields = (built.docs[i] as AnalysedSkill).fields;
      let tf = 0;
      let mask = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const text = fields[SEARCH_FIELDS[f] as SearchField];
        const count = text === undefined ? 0 : occurrences(text, term);
        if (count === 0) continue;
        const { weight, b } = this.#fields[f] as FieldWeights;
        tf +=
          (weight * count) /
          (1 - b + (b * ((built.lengths[f] as Int32Array)[i] as number)) / (built.average[f] as number));
        mask |= 1 << f;
      }
      if (mask === 0) continue;
      docs.push(i);
      tfs.push(tf);
      masks.push(mask);
    }
    const postings =
      docs.length === 0
        ? undefined
        : { docs: Int32Array.from(docs), tf: Float32Array.from(tfs), mask: Uint8Array.from(masks) };
    if (postings) built.postings.set(term, postings);
    else built.missing.add(term);
    return postings;
  }

  #build(): Built {
    if (!this.#scan) return this.#buildPostings();
    const docs = [...this.#docs.values()].sort((a, b) => compareCodeUnits(a.id, b.id));
    const n = docs.length;
    const lengths = SEARCH_FIELDS.map((f) => Int32Array.from(docs, (d) => termCount(d.fields[f])));
    const average = lengths.map((l) => l.reduce((sum, x) => sum + x, 0) / Math.max(1, n) || 1);
    const scratch = scratchFor(n);
    return {
      docs,
      postings: new Map(),
      negative: negativePostings(docs),
      lengths,
      average,
      scan: true,
      missing: new Set(),
      allowed: new WeakMap(),
      scratch,
    };
  }

  #buildPostings(): Built {
    const docs = [...this.#docs.values()].sort((a, b) => compareCodeUnits(a.id, b.id));
    const n = docs.length;
    const lengths = SEARCH_FIELDS.map((f) => Int32Array.from(docs, (d) => termCount(d.fields[f])));
    const average = lengths.map((l) => l.reduce((sum, x) => sum + x, 0) / Math.max(1, n) || 1);
    const negative = negativePostings(docs);
    const scratch = scratchFor(n);
    const fieldTerms = docs.map((d) => SEARCH_FIELDS.map((f) => split(d.fields[f])));
    const lists = new Map<string, { docs: number[]; tf: number[]; mask: number[] }>();
    const counts = new Map<string, Float64Array>();
    for (let i = 0; i < n; i++) {
      counts.clear();
      const terms = fieldTerms[i] as string[][];
      for (let f = 0; f < FIELD_COUNT; f++) {
        for (const term of terms[f] as string[]) {
          let c = counts.get(term);
          if (!c) counts.set(term, (c = new Float64Array(FIELD_COUNT)));
          c[f] = (c[f] as number) + 1;
        }
      }
      for (const [term, c] of counts) {
        let tf = 0;
        let mask = 0;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const count = c[f] as number;
          if (count === 0) continue;
          const { weight, b } = this.#fields[f] as FieldWeights;
          const length = (terms[f] as string[]).length;
          tf += (weight * count) / (1 - b + (b * length) / (average[f] as number));
          mask |= 1 << f;
        }
        let list = lists.get(term);
        if (!list) lists.set(term, (list = { docs: [], tf: [], mask: [] }));
        list.docs.push(i);
        list.tf.push(tf);
        list.mask.push(mask);
      }
    }
    const postings = new Map<string, Postings>();
    for (const [term, list] of lists)
      postings.set(term, {
        docs: Int32Array.from(list.docs),
        tf: Float32Array.from(list.tf),
        mask: Uint8Array.from(list.mask),
      });
    return {
      docs,
      postings,
      negative,
      lengths,
      average,
      scan: false,
      missing: new Set(),
      allowed: new WeakMap(),
      scratch,
    };
  }
}

/** Terms of `when_not_to_use` count against a skill (few skills have any: built eagerly in both modes). */
function negativePostings(docs: readonly AnalysedSkill[]): Map<string, Postings> {
  const negative = new Map<string, Postings>();
  docs.forEach((doc, i) => {
    const terms = split(doc.negative);
    if (terms.length === 0) return;
    const tally = new Map<string, number>();
    for (const t of terms) tally.set(t, (tally.get(t) ?? 0) + 1);
    for (const [term, count] of tally) {
      const old = negative.get(term);
      const tf = count / (0.5 + (0.5 * terms.length) / 8);
      negative.set(term, {
        docs: Int32Array.from([...(old?.docs ?? []), i]),
        tf: Float32Array.from([...(old?.tf ?? []), tf]),
        mask: Uint8Array.from([...(old?.mask ?? []), 0]),
      });
    }
  });
  return negative;
}

/** One term's postings in a loaded export: views into its arrays (binary search over the sorted terms). */
function loadedPostings(data: SearchIndexExport, term: string): Postings | undefined {
  let lo = 0;
  let hi = data.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const order = compareCodeUnits(data.terms[mid] as string, term);
    if (order === 0) {
      const start = data.starts[mid] as number;
      const end = data.starts[mid + 1] as number;
      return {
        docs: data.postingDocs.subarray(start, end),
        tf: data.postingTf.subarray(start, end),
        mask: data.postingMask.subarray(start, end),
      };
    }
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** A byte per document: 1 when `among` holds its id; kept per set while the set and the built index live. */
function allowedOf(built: Built, among: ReadonlySet<string>): Uint8Array {
  let allowed = built.allowed.get(among);
  if (!allowed) {
    allowed = Uint8Array.from(built.docs, (d) => (among.has(d.id) ? 1 : 0));
    built.allowed.set(among, allowed);
  }
  return allowed;
}

/** Where document `i` is in a posting list (lists are in document order), or −1. */
function positionOf(docs: Int32Array, i: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = docs[mid] as number;
    if (d === i) return mid;
    if (d < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Terms in a space-separated field, without splitting it. */
function termCount(text: string | undefined): number {
  if (text === undefined || text === "") return 0;
  let count = 1;
  for (let at = text.indexOf(" "); at >= 0; at = text.indexOf(" ", at + 1)) count++;
  return count;
}

/** How often `term` occurs as a whole term in a space-separated field. */
function occurrences(text: string, term: string): number {
  let count = 0;
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
    const end = at + term.length;
    if ((at === 0 || text.charCodeAt(at - 1) === 32) && (end === text.length || text.charCodeAt(end) === 32)) count++;
  }
  return count;
}

/**
 * The `k` best of the touched documents that score above 0 (visible, and allowed when `allowed` is given), best first — score
 * descending, ties by id — and how many qualified. Documents are held in id order (built and loaded alike), so a tie
 * is broken by position: numbers compared, no strings. A bounded heap: O(n log k), and only k are sorted.
 */
function selectBest(
  built: Built,
  touched: Int32Array,
  k: number,
  includeHidden: boolean,
  allowed: Uint8Array | undefined,
): { total: number; best: Int32Array } {
  const { score } = built.scratch;
  const { docs } = built;
  const skipHidden = !includeHidden;
  // `a` ranks below `b`.
  const worse = (a: number, b: number) => {
    const sa = score[a] as number;
    const sb = score[b] as number;
    return sa < sb || (sa === sb && a > b);
  };
  // A heap whose root is the worst document kept, replaced whenever a better one comes.
  const heap = new Int32Array(Math.max(0, Math.min(k, touched.length)));
  let size = 0;
  let total = 0;
  // Once the heap is full, most documents lose to its root: its score is kept at hand for that test.
  let floor = -Infinity;
  for (let j = 0; j < touched.length; j++) {
    const i = touched[j] as number;
    const s = score[i] as number;
    if (s <= 0) continue;
    if (allowed !== undefined && allowed[i] === 0) continue;
    if (skipHidden && (docs[i] as AnalysedSkill).hidden) continue;
    total++;
    if (s < floor) continue;
    if (size < heap.length) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        const p = heap[parent] as number;
        if (!worse(i, p)) break;
        heap[at] = p;
        at = parent;
      }
      heap[at] = i;
      if (size === heap.length) floor = score[heap[0] as number] as number;
    } else if (size > 0 && worse(heap[0] as number, i)) {
      // Sift down from the root.
      let at = 0;
      for (;;) {
        const l = 2 * at + 1;
        if (l >= size) break;
        const r = l + 1;
        const child = r < size && worse(heap[r] as number, heap[l] as number) ? r : l;
        const c = heap[child] as number;
        if (!worse(c, i)) break;
        heap[at] = c;
        at = child;
      }
      heap[at] = i;
      floor = score[heap[0] as number] as number;
    }
  }
  const best = heap.subarray(0, size).sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  return { total, best };
}
