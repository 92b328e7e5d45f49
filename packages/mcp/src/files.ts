import { AgentSkillsError } from "@skillport/core";
import { ByteBudgetCache } from "./byte-cache.js";
import { sha256Digest, type ServedFile, type ServedSkill } from "./snapshot.js";

/** A served file whose bytes at the source are no longer the snapshot's (changed, removed or unreadable). */
export class FileChangedError extends AgentSkillsError<"MCP_FILE_CHANGED"> {
  readonly uri: string;
  constructor(uri: string, why: string) {
    super(`${uri} ${why} since the snapshot was taken; list the skills again for the current version`, {
      code: "MCP_FILE_CHANGED",
    });
    this.uri = uri;
  }
}

/**
 * The bytes of served files (decision 0381). A snapshot keeps each file's index (path, size, digest), not its bytes:
 * a read goes to the source through the skill's registry entry (for folders: the confined provider of
 * `@skillport/fs`) and is served only when its size and SHA-256 are the snapshot's — otherwise it is refused with
 * {@link FileChangedError}, never served as the snapshot's. Hot files stay in a cache bounded by bytes (about the least
 * recently used dropped first), keyed by digest: a digest names one content, so a cached file can never be stale. Reads of one
 * file at once share one read.
 */
export class FileBytes {
  readonly #cache: ByteBudgetCache<Uint8Array>;
  readonly #reading = new Map<string, Promise<Uint8Array>>();

  constructor(budget: number) {
    this.#cache = new ByteBudgetCache(budget);
  }

  /** The file's bytes, verified against the snapshot's digest; rejects with {@link FileChangedError} when they differ. */
  read(skill: ServedSkill, file: ServedFile): Promise<Uint8Array> {
    const hit = this.#cache.get(file.digest);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.#reading.get(file.digest);
    if (pending !== undefined) return pending;
    const read = this.#readVerified(skill, file).finally(() => this.#reading.delete(file.digest));
    this.#reading.set(file.digest, read);
    return read;
  }

  /** Bytes held for hot files now (at most the budget). */
  get heldBytes(): number {
    return this.#cache.bytes;
  }

  async #readVerified(skill: ServedSkill, file: ServedFile): Promise<Uint8Array> {
    let bytes: Uint8Array;
    try {
      bytes = await skill.readFile(file.path);
    } catch (error) {
      throw new FileChangedError(
        file.uri,
        `could not be read (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (bytes.byteLength !== file.size || sha256Digest(bytes) !== file.digest)
      throw new FileChangedError(file.uri, "changed at its source");
    this.keep(file.digest, bytes);
    return bytes;
  }

  /** Holds bytes already verified against `digest` (a skill just rebuilt), as if just read. */
  keep(digest: string, bytes: Uint8Array): void {
    // A view of a larger read buffer would hold all of it: keep a copy of exactly the file.
    const exact =
      bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength
        ? bytes
        : Uint8Array.prototype.slice.call(bytes);
    this.#cache.set(digest, exact);
  }
}
