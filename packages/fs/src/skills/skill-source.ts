import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import {
  AgentSkillsError,
  InvalidPathError,
  LimitExceededError,
  ProviderUnavailableError,
  requireSafeResourcePath,
  requireSafeSkillId,
  ResourceNotFoundError,
  SkillNotFoundError,
  SkillSourceProvider,
  SkillUnavailableError,
  SkillValidationError,
  type Frontmatter,
  type ParseLimits,
  type SkillFile,
} from "@skillport/core";
import { DEFAULT_PARSE_LIMITS, findFrontmatterEnd } from "@skillport/core/internal";
import { ResourceTooLargeError, SkillFileTooLargeError } from "./errors.js";
import { errorCode, isMissing } from "../floor/errno.js";
import { descriptorReader, readBounded, type ReadAt } from "../floor/files.js";
import { readHead, readHeadSync, type HeadResult } from "./frontmatter-head.js";
import type { SkippedSkill, SkillLocator } from "./locators.js";
import { parseMetadata } from "./metadata.js";
import { MetadataIndex } from "./metadata-index.js";
import type { ConfinedFile } from "../floor/open-confined.js";
import { DEFAULT_MAX_FILE_BYTES } from "../floor/file-limits.js";
import { DEFAULT_MAX_LIST_DEPTH, DEFAULT_MAX_LIST_FILES, type SkillDirectory } from "./skill-directory.js";

export const DEFAULT_HEAD_CHUNK_BYTES = 8 * 1024;

export interface SkillDirectorySourceOptions {
  /** Largest file served (SKILL.md or resource), in bytes; a file exactly this size passes. Default 10 MiB. */
  maxFileBytes?: number;
  /** First read size for metadata; more is read only while the frontmatter is still open. Default 8 KiB. */
  headChunkBytes?: number;
  /**
   * Probe skill folders and read SKILL.md with blocking calls (microseconds each on a local disk, far cheaper than a
   * thread-pool round trip). Turn off for network filesystems. Default true (docs/decisions/0037).
   */
  syncReads?: boolean;
  /** Frontmatter parser limits (size, lines, aliases, depth). Defaults from core. */
  parseLimits?: Partial<ParseLimits>;
  /** Most files `listFiles` returns for one skill. Default 10,000. */
  maxListFiles?: number;
  /** Deepest directory nesting `listFiles` walks. Default 32. */
  maxListDepth?: number;
  /** Refuse files with more than one hard link (untrusted trees; docs/decisions/0123). Default false. */
  refuseHardLinks?: boolean;
  /** A persistent metadata index file (docs/decisions/0036). Default none. */
  metadataIndex?: string;
  /**
   * Told when the metadata index file cannot be used (unreadable, truncated, not an index) and is being rebuilt
   * (decision 0321). Default: a process warning.
   */
  warn?: (message: string) => void;
}

interface CachedText {
  text: string;
  file: string;
}

/**
 * The narrow source contract implemented ONCE over skill folders (docs/decisions/0121): a locator finds the folders,
 * `SkillDirectory` applies the one link, file-name and size policy, and the derived kind getters come from core's
 * adapter. The filesystem provider (flat root) and the deployed-workspace provider (explicit list from a nested scan)
 * are this class with different locators.
 */
export abstract class SkillDirectorySource extends SkillSourceProvider {
  abstract override readonly name: string;
  readonly maxFileBytes: number;
  protected readonly locator: SkillLocator;
  readonly #headChunkBytes: number;
  readonly #syncReads: boolean;
  readonly #parseLimits: Partial<ParseLimits> | undefined;
  readonly #maxFrontmatterBytes: number;
  readonly #indexFile: string | undefined;
  readonly #warn: (message: string) => void;
  #skills = new Map<string, SkillDirectory>();
  #skipped: SkippedSkill[] = [];
  // Values when read with blocking calls, promises while an asynchronous read is under way.
  readonly #heads = new Map<string, CachedText | Promise<CachedText>>();
  readonly #texts = new Map<string, CachedText | Promise<CachedText>>();
  #index: Promise<MetadataIndex | undefined> | undefined;
  /** Bumped by invalidate: a read that started before must not cache what it read. */
  #generation = 0;

  constructor(locator: SkillLocator, options: SkillDirectorySourceOptions = {}) {
    super();
    this.maxFileBytes = checkCount("maxFileBytes", options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, 0);
    this.#headChunkBytes = checkCount("headChunkBytes", options.headChunkBytes ?? DEFAULT_HEAD_CHUNK_BYTES, 1);
    checkCount("maxListFiles", options.maxListFiles ?? DEFAULT_MAX_LIST_FILES, 1);
    checkCount("maxListDepth", options.maxListDepth ?? DEFAULT_MAX_LIST_DEPTH, 0);
    this.#syncReads = options.syncReads ?? true;
    this.#parseLimits = options.parseLimits;
    this.#maxFrontmatterBytes = options.parseLimits?.maxFrontmatterBytes ?? DEFAULT_PARSE_LIMITS.maxFrontmatterBytes;
    this.#indexFile = options.metadataIndex;
    this.#warn = options.warn ?? ((message) => process.emitWarning(message, "SkillportWarning"));
    this.locator = locator;
  }

  /** Sorted ids. Reads no SKILL.md and validates nothing; what was skipped, and why, is in `skipped()`. */
  async discover(): Promise<string[]> {
    const generation = this.#generation;
    let located;
    try {
      located = await this.locator.locate();
    } catch (error) {
      throw new ProviderUnavailableError(
        `${this.name}: the skills root can no longer be read (${errorCode(error) ?? "unknown error"})`,
        { cause: error },
      );
    }
    if (generation === this.#generation) {
      this.#skills = located.skills;
      this.#skipped = located.skipped;
    }
    (await this.#loadIndex())?.retain(new Set(located.skills.keys()));
    return [...located.skills.keys()].sort();
  }

  /**
   * Folders the last `discover` looked at and did not serve as skills, with codes, severities and reasons (a folder
   * without SKILL.md, a SKILL.md link leaving the skill, …). Nothing is dropped silently (docs/decisions/0125).
   */
  skipped(): SkippedSkill[] {
    return this.#skipped.map((s) => ({ ...s }));
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    // Without an index, a located skill read with blocking calls costs no promise but this method's own.
    if (this.#indexFile === undefined) return this.#parseMetadata(id);
    const index = await this.#loadIndex();
    if (index === undefined) return this.#parseMetadata(id);
    const skill = await this.#locate(id);
    if (skill.size > this.maxFileBytes) throw new SkillFileTooLargeError(id, skill.file, this.maxFileBytes);
    const hit = index.get(id, skill);
    if (hit !== undefined) return hit;
    const frontmatter = await this.#parseMetadata(id);
    index.set(id, skill, frontmatter);
    return frontmatter;
  }

  /** Writes the metadata index (option `metadataIndex`) if it changed, atomically. True when it wrote. */
  async saveMetadataIndex(): Promise<boolean> {
    const index = await this.#loadIndex();
    if (index === undefined) return false;
    try {
      return await index.save();
    } catch (error) {
      throw new AgentSkillsError(
        `${this.name}: cannot write the metadata index (${errorCode(error) ?? "unknown error"})`,
        { cause: error },
      );
    }
  }

  async getBody(id: string): Promise<string> {
    const { text, file } = await this.#readText(id);
    const end = findFrontmatterEnd(text);
    if (end.status === "closed") return text.slice(end.bodyOffset);
    const problem =
      end.status === "missing"
        ? "does not start with a '---' frontmatter line"
        : "has a frontmatter that is never closed";
    throw new SkillValidationError(`skill ${JSON.stringify(id)}: ${file} ${problem}`, [
      {
        code: `frontmatter-${end.status}`,
        severity: "error",
        message: `${file} ${problem}`,
        file: `${id}/${file}`,
        line: 1,
        column: 1,
      },
    ]);
  }

  /** Every file, recursively, sorted; links inside the skill listed with the target's size; anything refused throws. */
  async listFiles(id: string): Promise<SkillFile[]> {
    const skill = await this.locateVerified(id);
    return this.#guard(id, "", async () => {
      try {
        return skill.listFiles();
      } catch (error) {
        throw inSkill(id, error);
      }
    });
  }

  /** Original bytes of one file, confined to the skill by the opened descriptor; links inside the skill are served. */
  async readFile(id: string, filePath: string): Promise<Uint8Array> {
    const skill = await this.locateVerified(id);
    const rel = requireSafeResourcePath(id, filePath);
    let file: ConfinedFile;
    try {
      file = skill.openFile(rel);
    } catch (error) {
      throw inSkill(id, error);
    }
    try {
      if (file.size > this.maxFileBytes) throw new ResourceTooLargeError(id, rel, this.maxFileBytes);
      const bytes = await this.#guard(id, rel, () =>
        readBounded(descriptorReader(file.fd, this.#syncReads), file.size, this.maxFileBytes),
      );
      if (bytes === undefined) throw new ResourceTooLargeError(id, rel, this.maxFileBytes);
      return bytes;
    } finally {
      file.close();
    }
  }

  /** The absolute path of the skill's SKILL.md (through the real path of its folder). */
  async getLocation(id: string): Promise<string> {
    return (await this.#locate(id)).skillMdPath;
  }

  /** Forgets cached SKILL.md text and the skill's location, for one skill or all. Unknown ids are ignored. */
  invalidate(id?: string): void {
    this.#generation++;
    if (id === undefined) {
      this.#skills.clear();
      this.#heads.clear();
      this.#texts.clear();
      return;
    }
    this.#skills.delete(id);
    this.#heads.delete(id);
    this.#texts.delete(id);
  }

  async #locate(id: string): Promise<SkillDirectory> {
    const known = this.#skills.get(id);
    if (known !== undefined) return known;
    requireSafeSkillId(id);
    const generation = this.#generation;
    const probe = await this.#guard(id, "", async () => this.locator.probe(id));
    if (!probe.ok)
      throw new SkillNotFoundError(id, `skill not found: ${JSON.stringify(id)} (${probe.problem.message})`);
    if (generation === this.#generation) this.#skills.set(id, probe.skill);
    return probe.skill;
  }

  /**
   * #locate, re-checking a cached folder against the disk (it may have been replaced since discovery; the reads
   * themselves are confined by the opened file either way). getMetadata skips this: its cost stays the bare reads.
   */
  protected async locateVerified(id: string): Promise<SkillDirectory> {
    const known = this.#skills.get(id);
    if (known === undefined) return this.#locate(id);
    const current = await this.#guard(id, "", async () => {
      try {
        // With blocking reads, one realpath(3) call and no thread-pool round trip: this runs before every file read.
        return this.#syncReads ? realpathSync.native(known.dir) : await realpath(known.dir);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    });
    if (current === known.dir) return known;
    this.#skills.delete(id);
    return this.#locate(id);
  }

  #loadIndex(): Promise<MetadataIndex | undefined> {
    if (this.#indexFile === undefined) return Promise.resolve(undefined);
    this.#index ??= MetadataIndex.load(
      this.#indexFile,
      JSON.stringify({ parseLimits: this.#parseLimits ?? null }),
    ).then((index) => {
      if (index.problem !== undefined) this.#warn(index.problem);
      return index;
    });
    return this.#index;
  }

  #parseMetadata(id: string): Frontmatter | Promise<Frontmatter> {
    const head = this.#readHead(id);
    const parse = ({ text, file }: CachedText) => parseMetadata(id, `${id}/${file}`, text, this.#parseLimits);
    return head instanceof Promise ? head.then(parse) : parse(head);
  }

  /** The cached head (or whole text), else a fresh read: synchronous for a located skill with blocking reads. */
  #readHead(id: string): CachedText | Promise<CachedText> {
    const cached = this.#texts.get(id) ?? this.#heads.get(id);
    if (cached !== undefined) return cached;
    const located = this.#syncReads ? this.#skills.get(id) : undefined;
    if (located === undefined) return memo(this.#heads, id, async () => this.#readHeadOf(id, await this.#locate(id)));
    const head = this.#readHeadOf(id, located);
    this.#heads.set(id, head);
    return head;
  }

  /** Opens the skill file (verified on the descriptor) and reads only its head (docs/decisions/0033, 0082). */
  #readHeadOf(id: string, skill: SkillDirectory): CachedText | Promise<CachedText> {
    const generation = this.#generation;
    const file = this.#openSkillMd(id, skill);
    const done = (head: HeadResult): CachedText => {
      if (!head.ok) {
        if (head.reason === "too-large") throw new SkillFileTooLargeError(id, skill.file, this.maxFileBytes);
        throw head.reason === "encoding"
          ? notUtf8(id, skill.file)
          : frontmatterTooLarge(id, skill.file, this.#maxFrontmatterBytes);
      }
      const cached = { text: head.text, file: skill.file };
      // A small SKILL.md fits in the first chunk: keep it as the full text too, so getBody reads nothing more.
      if (head.wholeFile && generation === this.#generation && !this.#texts.has(id)) this.#texts.set(id, cached);
      return cached;
    };
    const tooLarge = file.size > this.maxFileBytes;
    if (this.#syncReads) {
      try {
        if (tooLarge) throw new SkillFileTooLargeError(id, skill.file, this.maxFileBytes);
        let head: HeadResult;
        try {
          head = readHeadSync(file.fd, this.maxFileBytes, this.#headChunkBytes, this.#maxFrontmatterBytes);
        } catch (error) {
          throw this.#unavailable(id, skill.file, error);
        }
        return done(head);
      } finally {
        file.close();
      }
    }
    return (async () => {
      try {
        if (tooLarge) throw new SkillFileTooLargeError(id, skill.file, this.maxFileBytes);
        return done(
          await this.#guard(id, skill.file, () =>
            readHead(
              descriptorReader(file.fd, false),
              this.maxFileBytes,
              this.#headChunkBytes,
              this.#maxFrontmatterBytes,
            ),
          ),
        );
      } finally {
        file.close();
      }
    })();
  }

  #readText(id: string): CachedText | Promise<CachedText> {
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
   * Opens the skill's SKILL.md (verified on the descriptor: a folder swapped for a link since it was located is
   * refused) and runs `use` on it. Every read is bounded by `maxFileBytes + 1`.
   */
  async #withSkillMd<T>(
    id: string,
    verify: boolean,
    use: (readAt: ReadAt, size: number, file: string) => Promise<T>,
  ): Promise<T> {
    const skill = await (verify ? this.locateVerified(id) : this.#locate(id));
    const file = this.#openSkillMd(id, skill);
    try {
      if (file.size > this.maxFileBytes) throw new SkillFileTooLargeError(id, skill.file, this.maxFileBytes);
      return await this.#guard(id, skill.file, () =>
        use(descriptorReader(file.fd, this.#syncReads), file.size, skill.file),
      );
    } finally {
      file.close();
    }
  }

  /** The skill file, opened under the policy; a skill whose file can no longer be opened is forgotten and not found. */
  #openSkillMd(id: string, skill: SkillDirectory): ConfinedFile {
    try {
      return skill.openSkillMd();
    } catch (error) {
      this.#skills.delete(id); // stale: the next call probes again
      if (!(error instanceof AgentSkillsError)) throw error;
      const why =
        error instanceof InvalidPathError ? error.message.replace(/^invalid path "[^"]*": /, "") : "cannot be opened";
      throw new SkillNotFoundError(id, `skill not found: ${JSON.stringify(id)} (its ${skill.file} ${why})`, {
        cause: error,
      });
    }
  }

  /** Node errors carry absolute paths; callers get a typed error naming the skill and relative path instead. */
  async #guard<T>(id: string, rel: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#unavailable(id, rel, error);
    }
  }

  /** A typed error passes as it is; anything else becomes SkillUnavailableError naming the skill and relative path. */
  #unavailable(id: string, rel: string, error: unknown): unknown {
    if (error instanceof AgentSkillsError) return error;
    const what = rel === "" ? `skill ${JSON.stringify(id)}` : describe(id, rel);
    return new SkillUnavailableError(`${what} cannot be read (${errorCode(error) ?? "unknown error"})`, {
      cause: error,
    });
  }
}

/** Errors from the floor name relative paths; here they also name the skill. */
function inSkill(id: string, error: unknown): unknown {
  if (error instanceof InvalidPathError) {
    const wrapped = new InvalidPathError(
      error.path,
      `in skill ${JSON.stringify(id)}: ${error.message.replace(/^invalid path "[^"]*": /, "")}`,
    );
    return Object.assign(wrapped, { cause: error });
  }
  if (error instanceof ResourceNotFoundError && error.skillId === "")
    return new ResourceNotFoundError(id, error.path, `skill ${JSON.stringify(id)}: ${error.message}`, { cause: error });
  if (error instanceof LimitExceededError)
    return new LimitExceededError(error.limit, `skill ${JSON.stringify(id)}: ${error.message}`);
  return error;
}

function memo<T>(cache: Map<string, T | Promise<T>>, key: string, load: () => Promise<T>): T | Promise<T> {
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

export function checkCount(option: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${option} must be an integer of at least ${min}, got ${String(value)}`);
  }
  return value;
}

function describe(id: string, rel: string): string {
  return `skill ${JSON.stringify(id)}: ${JSON.stringify(rel)}`;
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
