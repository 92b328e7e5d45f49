import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { type AnalysedSkill, type RegistryEntry, type SearchDocumentCache } from "@skillport/core";
import { SEARCH_ANALYSIS_VERSION, SEARCH_FIELDS } from "@skillport/core/internal";
import { errorCode, isMissing, parseStateText, writeFileAtomic } from "@skillport/fs";

// Bump when the file's shape changes; analysis changes bump core's SEARCH_ANALYSIS_VERSION instead.
const CACHE_FORMAT = 1;
// A SKILL.md changed this recently is not stored: a same-size edit within one timestamp tick would go unnoticed.
const RACY_WINDOW_MS = 2000;

interface Entry {
  /** SKILL.md's dev:ino:size:mtime:ctime and path when the skill was analysed. */
  key: string;
  /** Hash of the metadata it was analysed with (the registry's copy, read before the stamp was taken). */
  meta: string;
  doc: AnalysedSkill;
}

interface CacheFile {
  format: number;
  scope: string;
  entries: Record<string, Entry>;
}

/** The file's shape (zod v4 mini, loaded when a cache is opened). */
async function cacheSchema() {
  const z = await import("zod/mini");
  const doc = z.object({
    id: z.string(),
    hidden: z.boolean(),
    fields: z.partialRecord(z.enum(SEARCH_FIELDS), z.string()),
    negative: z.optional(z.string()),
  });
  const entry = z.object({ key: z.string(), meta: z.string(), doc });
  return z.object({ format: z.number(), scope: z.string(), entries: z.record(z.string(), entry) });
}

function stampOf(file: string): { key: string; mtimeMs: number } | undefined {
  try {
    const s = lstatSync(file);
    if (!s.isFile()) return undefined;
    return { key: `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${file}`, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/**
 * Analysed skills on disk, keyed by qualified id and checked against SKILL.md's stamp (the same identity and times
 * the metadata index uses) and the metadata they were made from. A hit costs one lstat: no read, no tokenising.
 * The file is read through a schema (decision 0321): missing, or of another format or scope, starts empty quietly;
 * unreadable, truncated or foreign starts empty with `problem` set (the command warns) and is replaced at the next
 * save. The file is written only by `save()`, atomically.
 */
export class DiskSearchCache implements SearchDocumentCache {
  readonly file: string;
  readonly #scope: string;
  readonly #entries: Map<string, Entry>;
  /** The stamp taken by `get` before the body was read: what `set` stores under (a later edit then misses). */
  readonly #pending = new Map<string, { key: string; meta: string; mtimeMs: number }>();
  readonly #used = new Set<string>();
  #dirty: boolean;
  /** Why the file on disk could not be used (it is being rebuilt), or undefined. */
  readonly problem: string | undefined;
  reused = 0;
  analysed = 0;

  private constructor(file: string, scope: string, entries: Map<string, Entry>, problem: string | undefined) {
    this.file = file;
    this.#scope = scope;
    this.#entries = entries;
    this.problem = problem;
    this.#dirty = problem !== undefined; // a bad file is replaced at the next save
  }

  static async open(file: string, scope: string): Promise<DiskSearchCache> {
    const scoped = `${scope}\0analysis=${SEARCH_ANALYSIS_VERSION}`;
    const entries = new Map<string, Entry>();
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      return new DiskSearchCache(
        file,
        scoped,
        entries,
        isMissing(error)
          ? undefined
          : `search cache ${file} cannot be read (${errorCode(error) ?? String(error)}); rebuilding it`,
      );
    }
    const parsed = parseStateText<CacheFile>(text, await cacheSchema());
    if ("problem" in parsed)
      return new DiskSearchCache(file, scoped, entries, `search cache ${file} is ${parsed.problem}; rebuilding it`);
    // Another format, other roots or another analysis: a cache of other settings, not ours to use.
    if (parsed.value.format === CACHE_FORMAT && parsed.value.scope === scoped)
      for (const [id, entry] of Object.entries(parsed.value.entries)) entries.set(id, entry);
    return new DiskSearchCache(file, scoped, entries, undefined);
  }

  async get(entry: RegistryEntry): Promise<AnalysedSkill | undefined> {
    this.#used.add(entry.qualifiedId);
    const location = await entry.getLocation().catch(() => undefined);
    const stamp = location === undefined ? undefined : stampOf(location);
    if (!stamp) return undefined;
    const meta = hashOf(JSON.stringify(entry.getMetadata()));
    const cached = this.#entries.get(entry.qualifiedId);
    if (cached && cached.key === stamp.key && cached.meta === meta) {
      this.reused++;
      return cached.doc;
    }
    this.#pending.set(entry.qualifiedId, { key: stamp.key, meta, mtimeMs: stamp.mtimeMs });
    return undefined;
  }

  set(entry: RegistryEntry, analysed: AnalysedSkill): void {
    this.analysed++;
    const pending = this.#pending.get(entry.qualifiedId);
    this.#pending.delete(entry.qualifiedId);
    if (!pending || !(Date.now() - pending.mtimeMs > RACY_WINDOW_MS)) return;
    this.#entries.set(entry.qualifiedId, { key: pending.key, meta: pending.meta, doc: analysed });
    this.#dirty = true;
  }

  /** Writes the cache if it changed, dropping skills this run did not see. Returns true when it wrote. */
  async save(): Promise<boolean> {
    for (const id of this.#entries.keys()) {
      if (!this.#used.has(id)) {
        this.#entries.delete(id);
        this.#dirty = true;
      }
    }
    if (!this.#dirty) return false;
    await writeFileAtomic(
      this.file,
      JSON.stringify({ format: CACHE_FORMAT, scope: this.#scope, entries: Object.fromEntries(this.#entries) }),
    );
    this.#dirty = false;
    return true;
  }
}
