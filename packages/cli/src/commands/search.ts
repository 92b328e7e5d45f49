import path from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { DEFAULT_MIN_CONFIDENCE } from "@skillport/core/internal";
import { type SearchHit } from "@skillport/core";
import { defaultCacheDir } from "../cache-dir.js";
import { CliError, colors, EXIT_PROBLEMS, printJson, warnOn, type CliOutput } from "../io.js";
import { atLeastOne } from "../options.js";
import type { DiskSearchCache } from "../search-cache.js";
import {
  readSnapshot,
  snapshotLocation,
  type LoadedSkillForSnapshot,
  type SnapshotSkill,
  type WarmIndex,
} from "../search-snapshot.js";
import { truncateColumns } from "../text-width.js";

// Only light modules above: a search answered from the warm snapshot never loads the registry, the fs provider or
// the YAML parser (decision 0176). The normal path imports them when it runs.

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

type Hit = SearchHit & { embeddingRank?: number };

interface Answer {
  hits: Hit[];
  describe: (id: string) => string;
  index: { skills: number; reused: number; analysed: number; cached: boolean; snapshot?: boolean };
  /** An embeddings endpoint was configured (its warning, when it failed). */
  hybrid?: boolean;
  warning?: string;
  /** Skills the sources hold but the search left out, and why (for --json; text output warns on stderr). */
  failures?: Array<{ source: string; id: string | null; message: string }>;
}

function confidence(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !(parsed >= 0 && parsed <= 1))
    throw new InvalidArgumentError(`expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return parsed;
}

export function registerSearch(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("search")
    .description(
      "find skills by what they do: name, description, when-to-use, triggers/tags, body headings and the start of each body " +
        "(BM25F; Unicode words, English stemming). Hits are ranked best first, each with a calibrated confidence; every hit is shown " +
        "unless --min-confidence asks to leave out weaker ones (then no output means no skill fits). An index of analysed skills is " +
        "kept in the cache folder and reused while skills are unchanged.",
    )
    .argument("<query>", "what you are looking for")
    .argument(
      "[roots...]",
      "folders of skills, skill folders or source addresses (sqlite:./x.db, postgres://…, mysql://…, git+https://…#ref:path, https://…, npm:<package>), highest precedence first",
    )
    .option("-n, --limit <n>", "most results (at least 1)", atLeastOne, 5)
    .option(
      "--min-confidence <x>",
      "abstain: leave out hits below this confidence (0–1; default 0, every hit that matches; see docs/search.md)",
      confidence,
      DEFAULT_MIN_CONFIDENCE,
    )
    .option("--all", "also find skills hidden from models (disable-model-invocation: true)")
    .option("--json", "print JSON")
    .option(
      "--cache-dir <dir>",
      "where the search and metadata indexes live (default: $SKILLPORT_CACHE_DIR, $XDG_CACHE_HOME/skillport or ~/.cache/skillport)",
    )
    .option("--no-cache", "neither read nor write the on-disk indexes")
    .option(
      "--embeddings-url <url>",
      "also rank by an OpenAI-compatible embeddings endpoint (base URL, e.g. http://127.0.0.1:8080/v1) fused with BM25 by reciprocal rank fusion; " +
        "API key from $SKILLPORT_EMBEDDINGS_API_KEY (default: $SKILLPORT_EMBEDDINGS_URL; off when unset)",
    )
    .option(
      "--embeddings-model <name>",
      "model name sent to the embeddings endpoint (default: $SKILLPORT_EMBEDDINGS_MODEL or text-embedding-3-small)",
    )
    .action(async (query: string, roots: string[], options: SearchCommandOptions) => {
      if (query.trim() === "")
        throw new CliError('the query is empty: say what you are looking for, e.g. skillport search "csv report"');
      const cacheDir = options.cache ? path.resolve(io.cwd, options.cacheDir ?? defaultCacheDir()) : undefined;
      const embeddingsUrl = options.embeddingsUrl ?? (process.env.SKILLPORT_EMBEDDINGS_URL || undefined);
      const absoluteRoots = roots.map((r) => path.resolve(io.cwd, r));
      const snapshot =
        cacheDir !== undefined && roots.length > 0 ? snapshotLocation(cacheDir, absoluteRoots) : undefined;
      const read =
        snapshot !== undefined && embeddingsUrl === undefined
          ? await readSnapshot(snapshot.file, snapshot.scope)
          : undefined;
      if (read !== undefined && "problem" in read) warnOn(io)(read.problem);
      const warm = read !== undefined && "index" in read ? read : undefined;
      const answer = warm
        ? answerFromSnapshot(warm, query, options)
        : await answerFromSources(query, roots, absoluteRoots, options, {
            io,
            setExit,
            cacheDir,
            embeddingsUrl,
            snapshot,
          });
      print(io, query, options, answer);
    });
}

function answerFromSnapshot(warm: WarmIndex, query: string, options: SearchCommandOptions): Answer {
  const hits = warm.index.search(query, {
    limit: options.limit,
    minConfidence: options.minConfidence,
    includeHidden: options.all,
  });
  return {
    hits,
    describe: (id) => warm.descriptions.get(id) ?? "",
    index: { skills: warm.skills, reused: warm.skills, analysed: 0, cached: true, snapshot: true },
  };
}

interface PathContext {
  io: CliOutput;
  setExit: (code: number) => void;
  cacheDir: string | undefined;
  embeddingsUrl: string | undefined;
  snapshot: { file: string; scope: string } | undefined;
}

/** The normal path: load every source, search, and leave a snapshot behind when the load was clean. */
async function answerFromSources(
  query: string,
  roots: string[],
  absoluteRoots: string[],
  options: SearchCommandOptions,
  context: PathContext,
): Promise<Answer> {
  const { io, setExit, cacheDir, embeddingsUrl, snapshot } = context;
  const [{ skillFields }, { loadSkills, reportLoadProblems }, { cacheFileName }, { DiskSearchCache: SearchCache }] =
    await Promise.all([
      import("@skillport/core"),
      import("../load.js"),
      import("../cache-dir.js"),
      import("../search-cache.js"),
    ]);
  const loadStartedMs = Date.now();
  let cache: DiskSearchCache | undefined;
  const analysed = new Map<string, SnapshotSkill["doc"]>();
  const loaded = await loadSkills(roots, io, undefined, {
    ...(cacheDir !== undefined && { cacheDir }),
    registry: {
      search: {
        // One search per process: find the query's terms only, build no inverted index (decision 0176).
        mode: "scan",
        cache: {
          get: async (entry) => {
            const doc = await cache?.get(entry);
            if (doc) analysed.set(entry.qualifiedId, doc);
            return doc;
          },
          set: (entry, doc) => {
            analysed.set(entry.qualifiedId, doc);
            return cache?.set(entry, doc);
          },
        },
      },
    },
  });
  const { registry, failures, skipped, rootPaths, saveCaches } = loaded;
  try {
    if (failures.length > 0) setExit(EXIT_PROBLEMS);
    if (cacheDir !== undefined)
      cache = await SearchCache.open(path.join(cacheDir, cacheFileName("search", rootPaths)), rootPaths.join("\0"));
    if (cache?.problem !== undefined) warnOn(io)(cache.problem);
    let hits: Hit[];
    let warning: string | undefined;
    if (embeddingsUrl === undefined)
      hits = await registry.search(query, {
        limit: options.limit,
        minConfidence: options.minConfidence,
        includeHidden: options.all,
      });
    else {
      // Loaded only when asked for: the plain search path stays small.
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
    const describe = (id: string) => skillFields(registry.get(id).getMetadata()).description ?? "";
    if (cacheDir !== undefined) {
      // A cache that cannot be written costs speed, never the answer.
      await Promise.all([saveCaches(), cache?.save().catch(() => false)]);
      if (snapshot !== undefined && failures.length === 0 && skipped.length === 0 && registry.shadowed.length === 0) {
        await leaveSnapshot(snapshot, registry.list(), absoluteRoots, analysed, describe, loadStartedMs);
      }
    }
    if (!options.json) reportLoadProblems(io, failures, registry.shadowed, skipped);
    const left = failures.map((f) => ({ source: f.source, id: f.id ?? null, message: f.message }));
    return {
      hits,
      describe,
      warning,
      failures: left,
      hybrid: embeddingsUrl !== undefined,
      index: {
        skills: registry.list().length,
        reused: cache?.reused ?? 0,
        analysed: cache?.analysed ?? 0,
        cached: cacheDir !== undefined,
      },
    };
  } finally {
    await loaded.close();
  }
}

interface ListedEntry {
  id: string;
  qualifiedId: string;
  getLocation(): Promise<string | undefined>;
}

async function leaveSnapshot(
  snapshot: { file: string; scope: string },
  entries: readonly ListedEntry[],
  roots: readonly string[],
  analysed: ReadonlyMap<string, SnapshotSkill["doc"]>,
  describe: (id: string) => string,
  loadStartedMs: number,
): Promise<void> {
  const { saveSnapshot, snapshotStamps } = await import("../search-snapshot.js");
  const skills: LoadedSkillForSnapshot[] = [];
  for (const entry of entries) {
    const location = await entry.getLocation().catch(() => undefined);
    const doc = analysed.get(entry.qualifiedId);
    const root = location === undefined ? undefined : roots.find((r) => path.dirname(path.dirname(location)) === r);
    if (location === undefined || doc === undefined || root === undefined) return; // not a plain folder of skills
    skills.push({ root, id: entry.id, location, snapshot: { doc, description: describe(entry.id) } });
  }
  const stamps = snapshotStamps(roots, skills, loadStartedMs);
  if (stamps !== undefined)
    await saveSnapshot(
      snapshot.file,
      snapshot.scope,
      stamps,
      skills.map((s) => s.snapshot),
    );
}

function print(io: CliOutput, query: string, options: SearchCommandOptions, answer: Answer): void {
  const results = answer.hits.map((hit) => ({
    id: hit.id,
    confidence: Number(hit.confidence.toFixed(3)),
    score: Number(hit.score.toFixed(4)),
    matched: hit.matched,
    ...(hit.embeddingRank !== undefined && { embeddingRank: hit.embeddingRank }),
    description: answer.describe(hit.id),
  }));
  if (options.json) {
    printJson(io, {
      query,
      minConfidence: options.minConfidence,
      results,
      index: answer.index,
      ...(answer.hybrid === true && { hybrid: true }),
      ...(answer.warning !== undefined && { warning: answer.warning }),
      ...(answer.failures !== undefined && answer.failures.length > 0 && { failures: answer.failures }),
    });
    return;
  }
  const c = colors(io);
  if (results.length === 0) {
    io.stdout(
      `No skill fits ${JSON.stringify(query)}${options.minConfidence > 0 ? ` (confidence ≥ ${options.minConfidence}; --min-confidence 0 shows weaker matches)` : ""}.\n`,
    );
    return;
  }
  for (const r of results) {
    io.stdout(
      `${c.bold(r.id)}  ${c.dim(percent(r.confidence))}\n  ${truncateColumns(r.description.replace(/\s+/g, " ").trim(), 110)}\n`,
    );
  }
}

/** A confidence as a whole percentage; a weak match that rounds to 0 still shows it matched. */
function percent(confidence: number): string {
  return confidence > 0 && confidence < 0.005 ? "<1%" : `${Math.round(confidence * 100)}%`;
}
