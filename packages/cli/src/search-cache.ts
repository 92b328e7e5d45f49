import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { type AnalysedSkill, type RegistryEntry, type SearchDocumentCache } from "@skillport/core";
import { SEARCH_ANALYSIS_VERSION } from "@skillport/core/internal";
import { writeFileAtomic } from "@skillport/fs";

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
 * Unreadable, corrupt or foreign files are ignored; the file is written only by `save()`, atomically.
 */
export class DiskSearchCache implements SearchDocumentCache {
  readonly file: string;
  readonly #scope: string;
  readonly #entries: Map<string, Entry>;
  /** The stamp taken by `get` before the body was read: what `set` stores under (a later edit then misses). */
  readonly #pending = new Map<string, { key: string; meta: string; mtimeMs: number }>();
  readonly #used = new Set<string>();
  #dirty = false;
  reused = 0;
  analysed = 0;

  private constructor(file: string, scope: string, entries: Map<string, Entry>) {
    this.file = file;
    this.#scope = scope;
    this.#entries = entries;
  }

  static async open(file: string, scope: string): Promise<DiskSearchCache> {
    const scoped = `${scope}\0analysis=${SEARCH_ANALYSIS_VERSION}`;
    const entries = new Map<string, Entry>();
    try {
      const data = JSON.parse(await readFile(file, "utf8")) as { format?: unknown; scope?: unknown; entries?: Record<string, Entry> };
      if (data.format === CACHE_FORMAT && data.scope === scoped && data.entries && typeof data.entries === "object") {
        for (const [id, entry] of Object.entries(data.entries)) {
          if (typeof entry?.key === "string" && typeof entry.meta === "string" && typeof entry.doc?.id === "string" && typeof entry.doc.fields === "object") entries.set(id, entry);
        }
      }
    } catch {
      // missing or unreadable: start empty
    }
    return new DiskSearchCache(file, scoped, entries);
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
    await writeFileAtomic(this.file, JSON.stringify({ format: CACHE_FORMAT, scope: this.#scope, entries: Object.fromEntries(this.#entries) }));
    this.#dirty = false;
    return true;
  }
}
