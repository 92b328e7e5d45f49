import { AgentSkillsError } from "../errors.js";
import type { SearchHit } from "./index.js";

/**
 * Optional hybrid search: an OpenAI-compatible embeddings endpoint (`POST {url}/embeddings`) ranks skills by cosine
 * similarity, and that ranking is fused with BM25's by reciprocal rank fusion. Off unless a URL is configured; any
 * failure of the endpoint (down, slow, malformed) leaves BM25's answer as it was, with a warning.
 */

export class EmbeddingsError extends AgentSkillsError<"EMBEDDINGS_FAILED"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: "EMBEDDINGS_FAILED", ...options });
  }
}

export interface EmbeddingsClientOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:8080/v1` (`/embeddings` is appended). */
  url: string;
  /** Sent as `Authorization: Bearer …`; never part of a message. */
  apiKey?: string;
  /** The `model` field of the request. Default "text-embedding-3-small". */
  model?: string;
  /** Give up on one request after this many milliseconds. Default 10,000. */
  timeoutMs?: number;
  /**
   * Most texts per request. Default 16: a small model on a shared CPU embeds 64 skill cards in more than the 10 s
   * timeout, so no batch of the first run would ever arrive (decision 0209).
   */
  batchSize?: number;
  /** Most bytes of one response body. Default 32 MiB. */
  maxResponseBytes?: number;
}

/** Calls `POST {url}/embeddings` with `{model, input: string[]}` and checks the answer's shape. */
export class EmbeddingsClient {
  readonly #endpoint: string;
  readonly #apiKey: string | undefined;
  readonly model: string;
  readonly #timeoutMs: number;
  readonly #batchSize: number;
  readonly #maxBytes: number;

  constructor(options: EmbeddingsClientOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch (cause) {
      throw new EmbeddingsError(`embeddings URL is not a URL: ${JSON.stringify(options.url)}`, { cause });
    }
    if (base.protocol !== "http:" && base.protocol !== "https:")
      throw new EmbeddingsError(`embeddings URL must be http or https, got ${base.protocol}`);
    if (base.username || base.password)
      throw new EmbeddingsError("embeddings URL must not carry credentials; give the API key separately");
    this.#endpoint = `${base.href.replace(/\/+$/, "")}/embeddings`;
    this.#apiKey = options.apiKey;
    this.model = options.model ?? "text-embedding-3-small";
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#batchSize = Math.max(1, options.batchSize ?? 16);
    this.#maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  /**
   * One vector per text, in order. Throws EmbeddingsError on any failure; `onBatch` has by then seen every batch that
   * arrived (the vector of `texts[start + i]` is `vectors[i]`), so a caller can keep them and resume next time.
   */
  async embed(texts: readonly string[], onBatch?: (start: number, vectors: number[][]) => void): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      const vectors = await this.#request(texts.slice(i, i + this.#batchSize));
      onBatch?.(i, vectors);
      out.push(...vectors);
    }
    return out;
  }

  async #request(input: readonly string[]): Promise<number[][]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      const declared = Number(response.headers.get("content-length") ?? "0");
      if (declared > this.#maxBytes)
        throw new EmbeddingsError(`embeddings response of ${declared} bytes is over the limit of ${this.#maxBytes}`);
      text = await response.text();
    } catch (cause) {
      if (cause instanceof EmbeddingsError) throw cause;
      const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
      throw new EmbeddingsError(
        timedOut
          ? `embeddings endpoint ${this.#endpoint} did not answer within ${this.#timeoutMs} ms`
          : `embeddings endpoint ${this.#endpoint} unreachable: ${String((cause as Error)?.message ?? cause)}`,
        { cause },
      );
    }
    if (text.length > this.#maxBytes)
      throw new EmbeddingsError(`embeddings response is over the limit of ${this.#maxBytes} bytes`);
    if (!response.ok)
      throw new EmbeddingsError(`embeddings endpoint ${this.#endpoint} answered HTTP ${response.status}`);
    return parseEmbeddings(text, input.length, this.#endpoint);
  }
}

/** `{data: [{index, embedding: number[]}]}` with one finite vector per input, all of one length. */
function parseEmbeddings(text: string, count: number, where: string): number[][] {
  const bad = (why: string) => new EmbeddingsError(`embeddings endpoint ${where} sent a bad response: ${why}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) throw bad(`expected data with ${count} items`);
  const vectors: number[][] = new Array<number[]>(count);
  data.forEach((item: unknown, position) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const at = typeof index === "number" ? index : position;
    if (!Number.isInteger(at) || at < 0 || at >= count || vectors[at] !== undefined)
      throw bad(`item ${position} has a bad index`);
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      !embedding.every((x) => typeof x === "number" && Number.isFinite(x))
    )
      throw bad(`item ${position} has no numeric embedding`);
    vectors[at] = embedding as number[];
  });
  const length = vectors[0]?.length;
  if (vectors.some((v) => v.length !== length)) throw bad("vectors of different lengths");
  return vectors;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Reciprocal rank fusion (Cormack et al. 2009): each list adds weight / (k + rank) to an id, rank from 1. Ids best
 * first, ties by first appearance. k damps the head of each list so neither ranker dominates; `weights` (default 1
 * each) lets a weaker ranker only break near-ties of a stronger one.
 */
export function reciprocalRankFusion(
  rankings: ReadonlyArray<readonly string[]>,
  k = 60,
  weights: readonly number[] = [],
): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  rankings.forEach((ranking, list) => {
    const weight = weights[list] ?? 1;
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + weight / (k + i + 1)));
  });
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** What the embedder reads of a skill: `skillEmbeddingText` of it. */
export interface EmbeddableSkill {
  id: string;
  text: string;
}

/** Chosen on bench/retrieval's train half with a real model (decision 0208). */
const DEFAULT_FUSION_K = 20;
const DEFAULT_EMBEDDINGS_WEIGHT = 0.5;

export interface HybridOptions {
  limit?: number;
  /** RRF constant. Default 20 (decision 0208). */
  k?: number;
  /**
   * Weight of the embeddings ranking against BM25's 1, before the confidence gate. Default 0.5, chosen with a small
   * CPU model on bench/retrieval's train half (decision 0208); a stronger model may deserve more.
   */
  weight?: number;
  /**
   * Scale the embeddings' weight by (1 − confidence of BM25's top hit): where keywords already found the skill
   * with confidence, embeddings only break ties; where they did not, embeddings count fully. Default true.
   */
  confidenceGate?: boolean;
  /** How many of each ranking take part in the fusion. Default 50. */
  depth?: number;
  /**
   * Vectors already known, by `${model}\0${text}` (what a caller persists between runs); filled with new ones batch
   * by batch, also when a later batch fails. Default: none kept.
   */
  vectors?: Map<string, number[]>;
}

export interface HybridHit extends SearchHit {
  /** 1-based rank of this skill in the embeddings ranking, when it was in its first `depth`. */
  embeddingRank?: number;
}

export interface HybridResult {
  hits: HybridHit[];
  /** Set when the endpoint failed and the hits are BM25's alone. */
  warning?: string;
}

/**
 * Fuses BM25 hits (best first, ideally unfiltered and `depth` long) with the embeddings ranking of `skills` by weighted
 * RRF, the embeddings' weight shrinking as BM25's top hit grows more confident (`HybridOptions`). Abstention
 * stays BM25's: when `abstained` is true (BM25 found nothing above the caller's confidence) nothing is returned,
 * because cosine similarities are not calibrated. Hits only the embeddings found carry confidence 0 and score 0.
 */
export async function fuseWithEmbeddings(
  client: EmbeddingsClient,
  query: string,
  bm25: readonly SearchHit[],
  skills: readonly EmbeddableSkill[],
  options: HybridOptions & { abstained?: boolean } = {},
): Promise<HybridResult> {
  const limit = options.limit ?? 10;
  const depth = options.depth ?? 50;
  if (options.abstained) return { hits: [] };
  const vectors = options.vectors ?? new Map<string, number[]>();
  const keyOf = (text: string) => `${client.model}\0${text}`;
  let ranked: string[];
  try {
    const missing = [...new Set(skills.map((s) => s.text).filter((t) => !vectors.has(keyOf(t))))];
    // Skill vectors are kept batch by batch, so a run cut short by a slow endpoint still saves its progress.
    const fresh = await client.embed([query, ...missing], (start, batch) =>
      batch.forEach((v, i) => {
        if (start + i > 0) vectors.set(keyOf(missing[start + i - 1] as string), v);
      }),
    );
    const queryVector = fresh[0] as number[];
    const dims = queryVector.length;
    const scored: Array<{ id: string; sim: number }> = [];
    for (const s of skills) {
      const v = vectors.get(keyOf(s.text)) as number[];
      if (v.length !== dims)
        throw new EmbeddingsError(
          `embeddings of ${v.length} dimensions do not match the query's ${dims} (model changed?)`,
        );
      scored.push({ id: s.id, sim: cosine(queryVector, v) });
    }
    scored.sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    ranked = scored.slice(0, depth).map((s) => s.id);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const known = skills.filter((s) => vectors.has(keyOf(s.text))).length;
    const progress =
      known > 0 && known < skills.length
        ? ` (${known} of ${skills.length} skills embedded so far, kept for the next search)`
        : "";
    return { hits: bm25.slice(0, limit), warning: `${message}${progress}; showing keyword (BM25) results only` };
  }
  const byId = new Map(bm25.map((h) => [h.id, h]));
  const gate = options.confidenceGate === false ? 1 : 1 - Math.min(1, Math.max(0, bm25[0]?.confidence ?? 0));
  const weight = (options.weight ?? DEFAULT_EMBEDDINGS_WEIGHT) * gate;
  const fused = reciprocalRankFusion([bm25.slice(0, depth).map((h) => h.id), ranked], options.k ?? DEFAULT_FUSION_K, [
    1,
    weight,
  ]);
  const hits = fused.slice(0, limit).map(({ id }): HybridHit => {
    const at = ranked.indexOf(id);
    const base: SearchHit = byId.get(id) ?? { id, score: 0, confidence: 0, matched: [] };
    return at >= 0 ? { ...base, embeddingRank: at + 1 } : base;
  });
  return { hits };
}
