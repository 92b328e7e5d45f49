import path from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { skillFields, type SearchHit } from "@skillport/core";
import { DEFAULT_MIN_CONFIDENCE } from "@skillport/core/internal";
import { colors, EXIT_PROBLEMS, printJson, type CliIO } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";
import { positiveInteger } from "../options.js";
import { cacheFileName, defaultCacheDir, DiskSearchCache } from "../search-cache.js";
import { truncateColumns } from "../text-width.js";

interface SearchCommandOptions {
  limit: number;
  minConfidence: number;
  all?: boolean;
  json?: boolean;
  cache: boolean;
  cacheDir?: string;
  embeddingsUrl?: string;
  embeddingsModel?: string;
}

function confidence(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError(`expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return parsed;
}

export function registerSearch(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("search")
    .description(
      "find skills by what they do: name, description, when-to-use, triggers/tags, body headings and the start of each body " +
        "(BM25F; Unicode words, English stemming). Each hit has a calibrated confidence; hits below --min-confidence are left out, " +
        "so no output means no skill fits. An index of analysed skills is kept in the cache folder and reused while skills are unchanged.",
    )
    .argument("<query>", "what you are looking for")
    .argument("[roots...]", "folders of skills, skill folders or source addresses (sqlite:./x.db, postgres://…, mysql://…), highest precedence first")
    .option("-n, --limit <n>", "most results", positiveInteger, 5)
    .option("--min-confidence <x>", "leave out hits below this confidence (0–1; 0 shows every hit that matches)", confidence, DEFAULT_MIN_CONFIDENCE)
    .option("--all", "also find skills hidden from models (disable-model-invocation: true)")
    .option("--json", "print JSON")
    .option("--cache-dir <dir>", "where the search and metadata indexes live (default: $SKILLPORT_CACHE_DIR, $XDG_CACHE_HOME/skillport or ~/.cache/skillport)")
    .option("--no-cache", "neither read nor write the on-disk indexes")
    .option(
      "--embeddings-url <url>",
      "also rank by an OpenAI-compatible embeddings endpoint (base URL, e.g. http://127.0.0.1:8080/v1) fused with BM25 by reciprocal rank fusion; " +
        "API key from $SKILLPORT_EMBEDDINGS_API_KEY (default: $SKILLPORT_EMBEDDINGS_URL; off when unset)",
    )
    .option("--embeddings-model <name>", "model name sent to the embeddings endpoint (default: $SKILLPORT_EMBEDDINGS_MODEL or text-embedding-3-small)")
    .action(async (query: string, roots: string[], options: SearchCommandOptions) => {
      const cacheDir = options.cache ? path.resolve(io.cwd, options.cacheDir ?? defaultCacheDir()) : undefined;
      let cache: DiskSearchCache | undefined;
      const loaded = await loadSkills(roots, io, undefined, {
        ...(cacheDir !== undefined && { cacheDir }),
        registry: {
          search: {
            cache: {
              get: (entry) => cache?.get(entry),
              set: (entry, doc) => cache?.set(entry, doc),
            },
          },
        },
      });
      const { registry, failures, skipped, rootPaths, saveCaches } = loaded;
      try {
        if (failures.length > 0) setExit(EXIT_PROBLEMS);
        if (cacheDir !== undefined) cache = await DiskSearchCache.open(path.join(cacheDir, cacheFileName("search", rootPaths)), rootPaths.join("\0"));
        const embeddingsUrl = options.embeddingsUrl ?? (process.env.SKILLPORT_EMBEDDINGS_URL || undefined);
        let warning: string | undefined;
        let hits: Array<SearchHit & { embeddingRank?: number }>;
        if (embeddingsUrl === undefined) hits = await registry.search(query, { limit: options.limit, minConfidence: options.minConfidence, includeHidden: options.all });
        else {
          // Loaded only when asked for: the plain search path stays small (decision 0176).
          const { hybridSearch } = await import("../hybrid-search.js");
          ({ hits, warning } = await hybridSearch(registry, query, {
            url: embeddingsUrl,
            model: options.embeddingsModel ?? (process.env.SKILLPORT_EMBEDDINGS_MODEL || undefined),
            apiKey: process.env.SKILLPORT_EMBEDDINGS_API_KEY || undefined,
            limit: options.limit,
            minConfidence: options.minConfidence,
            includeHidden: options.all === true,
            cacheDir,
          }));
          if (warning !== undefined && !options.json) io.stderr(`skillport: warning: ${warning}\n`);
        }
        if (cacheDir !== undefined) {
          // A cache that cannot be written costs speed, never the answer.
          await Promise.all([saveCaches(), cache?.save().catch(() => false)]);
        }
        const results = hits.map((hit) => {
          const metadata = registry.get(hit.id).getMetadata();
          return {
            id: hit.id,
            confidence: Number(hit.confidence.toFixed(3)),
            score: Number(hit.score.toFixed(4)),
            matched: hit.matched,
            ...(hit.embeddingRank !== undefined && { embeddingRank: hit.embeddingRank }),
            description: skillFields(metadata).description ?? "",
          };
        });
        if (options.json) {
          const index = { skills: registry.list().length, reused: cache?.reused ?? 0, analysed: cache?.analysed ?? 0, cached: cacheDir !== undefined };
          printJson(io, { query, minConfidence: options.minConfidence, results, index, ...(embeddingsUrl !== undefined && { hybrid: true }), ...(warning !== undefined && { warning }) });
          return;
        }
        reportLoadProblems(io, failures, registry.shadowed, skipped);
        const c = colors(io);
        if (results.length === 0) {
          io.stdout(`No skill fits ${JSON.stringify(query)}${options.minConfidence > 0 ? ` (confidence ≥ ${options.minConfidence}; --min-confidence 0 shows weaker matches)` : ""}.\n`);
          return;
        }
        for (const r of results) {
          io.stdout(`${c.bold(r.id)}  ${c.dim(`${Math.round(r.confidence * 100)}%`)}\n  ${truncateColumns(r.description.replace(/\s+/g, " ").trim(), 110)}\n`);
        }
      } finally {
        await loaded.close();
      }
    });
}
