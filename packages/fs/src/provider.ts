import { realpathSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import {
  AgentSkillsError,
  DEFAULT_PARSE_LIMITS,
  findFrontmatterEnd,
  ProviderUnavailableError,
  RESOURCE_KINDS,
  ResourceNotFoundError,
  SkillNotFoundError,
  SkillUnavailableError,
  SkillValidationError,
  requireSafeResourcePath,
  requireSafeSkillId,
  resourceKindPath,
  type Frontmatter,
  type ParseLimits,
  type ResourceKind,
  type ResourceListing,
  type SkillFile,
  type SkillProvider,
} from "@skillport/core";
import { ResourceTooLargeError, SkillFileTooLargeError, SkillsRootError } from "./errors.js";
import { errorCode, isMissing, openNoFollow, openNoFollowSync, openRegularFile, readBounded, type OpenFailure, type ReadAt } from "./files.js";
import { readHead } from "./frontmatter-head.js";
import { parseMetadata } from "./metadata.js";
import { MetadataIndex } from "./metadata-index.js";
import { kindDirReal, kindFileReal, listKind } from "./resources.js";
import { probeSkillDir, scanSkillDirs, type SkillLocation } from "./skill-dirs.js";
import { listTree } from "./tree.js";
import { watchSkillRoot, type WatchOptions } from "./watch.js";

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_HEAD_CHUNK_BYTES = 8 * 1024;
export const DEFAULT_MAX_LIST_FILES = 10_000;
export const DEFAULT_MAX_LIST_DEPTH = 32;

export interface LocalFileSystemProviderOptions {
  /** Largest file served (SKILL.md or resource), in bytes; a file exactly this size passes. Default 10 MiB. */
  maxFileBytes?: number;
  /** Provider name used in qualified ids and messages. Default `fs:<root directory name>`. */
  name?: string;
  /** First read size for metadata; more is read only while the frontmatter is still open. Default 8 KiB. */
  headChunkBytes?: number;
  /**
   * Probe skill folders and read SKILL.md with blocking calls (microseconds each on a local disk, and far cheaper than
   * a thread-pool round trip per call). Turn off for network filesystems, where one call may block for long.
   * Default true (docs/decisions/0037-synchronous-small-reads.md).
   */
  syncReads?: boolean;
  /** Frontmatter parser limits (size, aliases, depth). Defaults from core. */
  parseLimits?: Partial<ParseLimits>;
  /** Most files `listFiles` returns for one skill. Default 10,000. */
  maxListFiles?: number;
  /** Deepest directory nesting `listFiles` walks. Default 32. */
  maxListDepth?: number;
  /**
   * A file for a persistent metadata index (parsed frontmatter keyed by SKILL.md's inode, size and times): with it,
   * unchanged skills cost no read and no parse on the next start. Written only by `saveMetadataIndex()`. Default none.
   */
  metadataIndex?: string;
  /**
   * Defaults for `watch()` (debounce, depth, onReady, onError). Callers that subscribe without options, such as a
   * SkillRegistry, get these. Default: watch's own defaults.
   */
  watch?: WatchOptions;
}

interface CachedText {
  text: string;
  file: string;
}

/**
 * Skills in a local directory: each immediate subdirectory of `root` holding a regular SKILL.md (or `skill.md`) is a
 * skill whose id is the directory name. Every read is confined by real path to the skill's own directory (kind getters
 * to that kind's folder); see docs/filesystem-provider.md.
 */
export class LocalFileSystemSkillProvider implements SkillProvider {
  readonly name: string;
  /** The real path of the skills root. */
  readonly root: string;
  readonly maxFileBytes: number;
  readonly #headChunkBytes: number;
  readonly #syncReads: boolean;
  readonly #parseLimits: Partial<ParseLimits> | undefined;
  readonly #maxFrontmatterBytes: number;
  readonly #treeLimits: { maxFiles: number; maxDepth: number };
  #locations = new Map<string, SkillLocation>();
  readonly #heads = new Map<string, Promise<CachedText>>();
  readonly #texts = new Map<string, Promise<CachedText>>();
  readonly #indexFile: string | undefined;
  readonly #watchDefaults: WatchOptions;
  #index: Promise<MetadataIndex> | undefined;
  /** Bumped by invalidate: a read that started before must not cache what it read. */
  #generation = 0;

  constructor(root: string, options: LocalFileSystemProviderOptions = {}) {
    this.maxFileBytes = checkCount("maxFileBytes", options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, 0);
    this.#headChunkBytes = checkCount("headChunkBytes", options.headChunkBytes ?? DEFAULT_HEAD_CHUNK_BYTES, 1);
    this.#syncReads = options.syncReads ?? true;
    this.#treeLimits = {
      maxFiles: checkCount("maxListFiles", options.maxListFiles ?? DEFAULT_MAX_LIST_FILES, 1),
      maxDepth: checkCount("maxListDepth", options.maxListDepth ?? DEFAULT_MAX_LIST_DEPTH, 0),
    };
    this.#parseLimits = options.parseLimits;
    this.#maxFrontmatterBytes = options.parseLimits?.maxFrontmatterBytes ?? DEFAULT_PARSE_LIMITS.maxFrontmatterBytes;
    this.#watchDefaults = { ...options.watch };
    this.#indexFile = options.metadataIndex === undefined ? undefined : path.resolve(options.metadataIndex);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(root).isDirectory();
    } catch {
      throw new SkillsRootError("does not exist or cannot be read");
    }
    if (!isDirectory) throw new SkillsRootError("is not a directory");
    this.root = realpathSync(root);
    this.name = options.name ?? `fs:${path.basename(this.root)}`;
  }

  /** Sorted ids of the skills directly beneath the root. Reads no SKILL.md and validates nothing. */
  async discover(): Promise<string[]> {
    let found: Map<string, SkillLocation>;
    const generation = this.#generation;
    try {
      found = await scanSkillDirs(this.root, this.#syncReads);
    } catch (error) {
      throw new ProviderUnavailableError(`${this.name}: the skills root can no longer be read`, { cause: error });
    }
    if (generation === this.#generation) this.#locations = found;
    (await this.#loadIndex())?.retain(new Set(found.keys()));
    return [...found.keys()].sort();
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    const index = await this.#loadIndex();
    if (index === undefined) return this.#parseMetadata(id);
    const location = await this.#locate(id);
    if (location.size > this.maxFileBytes) throw new SkillFileTooLargeError(id, location.file, this.maxFileBytes);
    const hit = index.get(id, location);
    if (hit !== undefined) return hit;
    const frontmatter = await this.#parseMetadata(id);
    index.set(id, location, frontmatter);
    return frontmatter;
  }

  /**
   * Writes the metadata index (option `metadataIndex`) if it changed, atomically. Returns true when it wrote.
   * Call it after a listing, e.g. when a CLI command or a server start has read every skill's metadata.
   */
  async saveMetadataIndex(): Promise<boolean> {
    const index = await this.#loadIndex();
    if (index === undefined) return false;
    try {
      return await index.save();
    } catch (error) {
      throw new AgentSkillsError(`${this.name}: cannot write the metadata index (${errorCode(error) ?? "unknown error"})`, { cause: error });
    }
  }

  async getBody(id: string): Promise<string> {
    const { text, file } = await this.#readText(id);
    const end = findFrontmatterEnd(text);
    if (end.status === "closed") return text.slice(end.bodyOffset);
    const problem = end.status === "missing" ? "does not start with a '---' frontmatter line" : "has a frontmatter that is never closed";
    throw new SkillValidationError(`skill ${JSON.stringify(id)}: ${file} ${problem}`, [
      { code: `frontmatter-${end.status}`, severity: "error", message: `${file} ${problem}`, file: `${id}/${file}`, line: 1, column: 1 },
    ]);
  }

  getReference(id: string, name: string): Promise<Uint8Array> {
    return this.#readKind(id, "references", name);
  }

  getScript(id: string, name: string): Promise<Uint8Array> {
    return this.#readKind(id, "scripts", name);
  }

  getAsset(id: string, name: string): Promise<Uint8Array> {
    return this.#readKind(id, "assets", name);
  }

  async listResources(id: string): Promise<ResourceListing> {
    const location = await this.#locateVerified(id);
    const [references = [], scripts = [], assets = []] = await this.#guard(id, "", () =>
      Promise.all(RESOURCE_KINDS.map((kind) => listKind(location.dir, kind))),
    );
    return { references, scripts, assets };
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    const location = await this.#locateVerified(id);
    return this.#guard(id, "", () => listTree(id, location.dir, this.#treeLimits));
  }

  /** Original bytes of one file of the skill; the path and every directory on it must be free of links. */
  async readFile(id: string, filePath: string): Promise<Uint8Array> {
    const location = await this.#locateVerified(id);
    const rel = requireSafeResourcePath(id, filePath);
    const target = path.join(location.dir, ...rel.split("/"));
    const real = await this.#guard(id, rel, async () => {
      try {
        return await realpath(target);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    });
    if (real === undefined) throw new ResourceNotFoundError(id, rel);
    // The skill directory is already real, so any difference means a link somewhere on the path.
    if (real !== target) throw new ResourceNotFoundError(id, rel, `${describe(id, rel)} passes through a link; readFile serves no links`);
    return this.#readConfined(id, rel, target);
  }

  /** The absolute path of the skill's SKILL.md (through the real path of its directory). */
  async getLocation(id: string): Promise<string> {
    const location = await this.#locate(id);
    return path.join(location.dir, location.file);
  }

  /** Forgets cached SKILL.md text and the skill's location, for one skill or all. Unknown ids are ignored. */
  invalidate(id?: string): void {
    this.#generation++;
    if (id === undefined) {
      this.#locations.clear();
      this.#heads.clear();
      this.#texts.clear();
      return;
    }
    this.#locations.delete(id);
    this.#heads.delete(id);
    this.#texts.delete(id);
  }

  /**
   * Watches the root; on changes, drops the affected skills from the cache and then reports their ids (debounced).
   * `options` add to the provider's `watch` defaults. Returns a function that stops watching.
   */
  watch(onChange: (ids: string[]) => void, options: WatchOptions = {}): () => void {
    return watchSkillRoot(
      this.root,
      (ids) => {
        for (const id of ids) this.invalidate(id);
        onChange(ids);
      },
      { ...this.#watchDefaults, ...options },
    );
  }

  async #locate(id: string): Promise<SkillLocation> {
    const known = this.#locations.get(id);
    if (known !== undefined) return known;
    requireSafeSkillId(id);
    const generation = this.#generation;
    const probe = await this.#guard(id, "", () => probeSkillDir(this.root, id, undefined, this.#syncReads));
    if (!probe.ok) throw new SkillNotFoundError(id, `skill not found: ${JSON.stringify(id)} (${probe.reason})`);
    if (generation === this.#generation) this.#locations.set(id, probe.location);
    return probe.location;
  }

  /**
   * #locate, re-checking a cached location against the disk: the skill directory may have been swapped for a link
   * since discovery. Used by every call except getMetadata, whose cost is kept to the bare reads (docs/decisions/0032).
   */
  async #locateVerified(id: string): Promise<SkillLocation> {
    const known = this.#locations.get(id);
    if (known === undefined) return this.#locate(id); // freshly probed: already checked
    const current = await this.#guard(id, "", async () => {
      try {
        return await realpath(known.dir);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    });
    if (current === known.dir) return known;
    this.#locations.delete(id);
    return this.#locate(id);
  }

  #loadIndex(): Promise<MetadataIndex | undefined> {
    if (this.#indexFile === undefined) return Promise.resolve(undefined);
    this.#index ??= MetadataIndex.load(this.#indexFile, JSON.stringify({ parseLimits: this.#parseLimits ?? null }));
    return this.#index;
  }

  async #parseMetadata(id: string): Promise<Frontmatter> {
    const { text, file } = await this.#readHead(id);
    return parseMetadata(id, `${id}/${file}`, text, this.#parseLimits);
  }

  #readHead(id: string): Promise<CachedText> {
    const whole = this.#texts.get(id);
    if (whole !== undefined) return whole;
    return memo(this.#heads, id, async () => {
      const generation = this.#generation;
      const { text, file, wholeFile } = await this.#withSkillMd(id, false, async (readAt, _size, file) => {
        const head = await readHead(readAt, this.maxFileBytes, this.#headChunkBytes, this.#maxFrontmatterBytes);
        if (!head.ok) {
          if (head.reason === "too-large") throw new SkillFileTooLargeError(id, file, this.maxFileBytes);
          throw head.reason === "encoding" ? notUtf8(id, file) : frontmatterTooLarge(id, file, this.#maxFrontmatterBytes);
        }
        return { text: head.text, file, wholeFile: head.wholeFile };
      });
      const cached = { text, file };
      // A small SKILL.md fits in the first chunk: keep it as the full text too, so getBody reads nothing more.
      if (wholeFile && generation === this.#generation && !this.#texts.has(id)) this.#texts.set(id, Promise.resolve(cached));
      return cached;
    });
  }

  #readText(id: string): Promise<CachedText> {
    return memo(this.#texts, id, () =>
      this.#withSkillMd(id, true, async (readAt, size, file) => {
        const bytes = await readBounded(readAt, size, this.maxFileBytes);
        if (bytes === undefined) throw new SkillFileTooLargeError(id, file, this.maxFileBytes);
        try {
          return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), file };
        } catch {
          throw notUtf8(id, file);
        }
      }),
    );
  }

  /**
   * Opens the skill's SKILL.md and runs `use` on it. The size was checked against the limit by the lstat that located
   * the skill (no second stat per read: metadata for thousands of skills is mostly syscalls), every read is bounded by
   * `maxFileBytes + 1` anyway, and the open refuses a link swapped in since.
   */
  async #withSkillMd<T>(id: string, verify: boolean, use: (readAt: ReadAt, size: number, file: string) => Promise<T>): Promise<T> {
    const location = await (verify ? this.#locateVerified(id) : this.#locate(id));
    if (location.size > this.maxFileBytes) throw new SkillFileTooLargeError(id, location.file, this.maxFileBytes);
    const skillMd = path.join(location.dir, location.file);
    const opened = this.#syncReads ? openNoFollowSync(skillMd) : await openNoFollow(skillMd);
    if (!opened.ok) {
      this.#locations.delete(id); // stale: the next call probes again
      throw new SkillNotFoundError(id, `skill not found: ${JSON.stringify(id)} (its ${location.file} ${failureText(opened.reason)})`);
    }
    try {
      return await this.#guard(id, location.file, () => use(opened.file.readAt, location.size, location.file));
    } finally {
      await opened.file.close();
    }
  }

  async #readKind(id: string, kind: ResourceKind, name: string): Promise<Uint8Array> {
    const location = await this.#locateVerified(id);
    const rel = resourceKindPath(id, kind, name);
    const real = await this.#guard(id, rel, async () => {
      const kindReal = await kindDirReal(location.dir, kind);
      return kindReal === undefined ? undefined : kindFileReal(kindReal, name);
    });
    if (real === undefined) throw new ResourceNotFoundError(id, rel);
    return this.#readConfined(id, rel, real);
  }

  /** Reads a file whose real path was already confined; the open refuses a link swapped in meanwhile. */
  async #readConfined(id: string, rel: string, absPath: string): Promise<Uint8Array> {
    const opened = await this.#guard(id, rel, () => openRegularFile(absPath));
    if (!opened.ok) throw new ResourceNotFoundError(id, rel, `${describe(id, rel)} ${failureText(opened.reason)}`);
    try {
      if (opened.size > this.maxFileBytes) throw new ResourceTooLargeError(id, rel, this.maxFileBytes);
      const bytes = await this.#guard(id, rel, () => readBounded(opened.file.readAt, opened.size, this.maxFileBytes));
      if (bytes === undefined) throw new ResourceTooLargeError(id, rel, this.maxFileBytes);
      return bytes;
    } finally {
      await opened.file.close();
    }
  }

  /** Node errors carry absolute paths; callers get a typed error naming the skill and relative path instead. */
  async #guard<T>(id: string, rel: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof AgentSkillsError) throw error;
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown error";
      const what = rel === "" ? `skill ${JSON.stringify(id)}` : describe(id, rel);
      throw new SkillUnavailableError(`${what} cannot be read (${code})`, { cause: error });
    }
  }
}

function memo<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const pending = load();
  cache.set(key, pending);
  // Failures are not cached: the next call tries again.
  pending.catch(() => {
    if (cache.get(key) === pending) cache.delete(key);
  });
  return pending;
}

function checkCount(option: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${option} must be an integer of at least ${min}, got ${String(value)}`);
  }
  return value;
}

function describe(id: string, rel: string): string {
  return `skill ${JSON.stringify(id)}: ${JSON.stringify(rel)}`;
}

function failureText(reason: OpenFailure): string {
  switch (reason) {
    case "missing":
      return "does not exist";
    case "link":
      return "is a link; links are not served";
    case "not-a-file":
      return "is not a regular file";
    case "unreadable":
      return "cannot be opened";
  }
}

/** The same diagnostic core's parser gives, raised before the rest of an oversized frontmatter is even read. */
function frontmatterTooLarge(id: string, file: string, maxBytes: number): SkillValidationError {
  const message = `the frontmatter is larger than the limit of ${maxBytes} bytes`;
  return new SkillValidationError(`skill ${JSON.stringify(id)}: ${id}/${file}: ${message}`, [
    { code: "frontmatter-too-large", severity: "error", message, file: `${id}/${file}`, line: 2, column: 1 },
  ]);
}

function notUtf8(id: string, file: string): SkillValidationError {
  const message = `${file} is not valid UTF-8`;
  return new SkillValidationError(`skill ${JSON.stringify(id)}: ${message}`, [
    { code: "encoding-invalid", severity: "error", message, file: `${id}/${file}`, line: 0, column: 0 },
  ]);
}
