import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SkillRegistry } from "@skillport/core";
import {
  EmbeddingsClient,
  fuseWithEmbeddings,
  isHiddenFromModel,
  skillEmbeddingText,
  type HybridResult,
} from "@skillport/core/internal";
import { errorCode, isMissing, parseStateText, writeFileAtomic } from "@skillport/fs";
import { cacheFileName } from "./cache-dir.js";

export interface HybridSearchOptions {
  url: string;
  model?: string;
  apiKey?: string;
  limit: number;
  minConfidence: number;
  includeHidden: boolean;
  /** Where skill vectors are kept between runs, one file per endpoint and model; none when undefined. */
  cacheDir?: string;
  timeoutMs?: number;
}

// Bump when the vectors file's shape changes.
const VECTORS_FORMAT = 1;

/** The vectors file's shape (zod v4 mini, loaded with the file). */
async function vectorsSchema() {
  const z = await import("zod/mini");
  return z.object({ format: z.number(), vectors: z.record(z.string(), z.array(z.number())) });
}

/** Cached skill vectors: none when missing or of another format; a bad file is `problem` (said, then rebuilt; 0321). */
async function loadVectors(file: string): Promise<{ vectors: Map<string, number[]>; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return {
      vectors: new Map(),
      ...(!isMissing(error) && {
        problem: `embeddings cache ${file} cannot be read (${errorCode(error) ?? String(error)}); rebuilding it`,
      }),
    };
  }
  const parsed = parseStateText<{ format: number; vectors: Record<string, number[]> }>(text, await vectorsSchema());
  if ("problem" in parsed)
    return { vectors: new Map(), problem: `embeddings cache ${file} is ${parsed.problem}; rebuilding it` };
  return {
    vectors: parsed.value.format === VECTORS_FORMAT ? new Map(Object.entries(parsed.value.vectors)) : new Map(),
  };
}

/**
 * `skillport search --embeddings-url`: BM25 (unfiltered, 50 deep) fused with the endpoint's ranking of every skill's
 * metadata (`skillEmbeddingText`). Skill vectors are cached by model and text, so a second run embeds only the query.
 */
export async function hybridSearch(
  registry: SkillRegistry,
  query: string,
  options: HybridSearchOptions,
): Promise<HybridResult> {
  const client = new EmbeddingsClient({
    url: options.url,
    apiKey: options.apiKey,
    model: options.model,
    timeoutMs: options.timeoutMs,
  });
  const bm25 = await registry.search(query, { limit: 50, minConfidence: 0, includeHidden: options.includeHidden });
  // Abstention only when asked for (decision 0265): by default the embeddings may rank what no keyword found.
  const abstained = options.minConfidence > 0 && !bm25.some((h) => h.confidence >= options.minConfidence);
  const skills = registry
    .list()
    .filter((entry) => options.includeHidden || !isHiddenFromModel(entry.getMetadata()))
    .map((entry) => ({ id: entry.id, text: skillEmbeddingText({ id: entry.id, metadata: entry.getMetadata() }) }));
  // The file name hides the URL (it may name an internal host); the model is part of each key anyway.
  const file =
    options.cacheDir === undefined
      ? undefined
      : path.join(options.cacheDir, cacheFileName("embeddings", [options.url, client.model]));
  const loaded = file === undefined ? { vectors: new Map<string, number[]>() } : await loadVectors(file);
  const { vectors } = loaded;
  const before = vectors.size;
  const result = await fuseWithEmbeddings(client, query, bm25, skills, { limit: options.limit, vectors, abstained });
  if (loaded.problem !== undefined)
    result.warning = result.warning === undefined ? loaded.problem : `${loaded.problem}; ${result.warning}`;
  if (file !== undefined && (vectors.size !== before || loaded.problem !== undefined)) {
    const live = new Set(skills.map((s) => `${client.model}\0${s.text}`));
    const kept = Object.fromEntries([...vectors].filter(([key]) => live.has(key)));
    await writeFileAtomic(file, JSON.stringify({ format: VECTORS_FORMAT, vectors: kept })).catch(() => undefined); // a cache is optional
  }
  return result;
}
