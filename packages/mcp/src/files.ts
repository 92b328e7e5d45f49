import { sha256Digest, type ServedFile, type ServedSkill } from "./snapshot.js";

/** A served file whose bytes at the source are no longer the snapshot's (changed, removed or unreadable). */
export class FileChangedError extends Error {
  readonly uri: string;
  constructor(uri: string, why: string) {
    super(`${uri} ${why} since the snapshot was taken; list the skills again for the current version`);
    this.name = "FileChangedError";
    this.uri = uri;
  }
}

/**
 * The bytes of served files (decision 0381). A snapshot keeps each file's index (path, size, digest), not its bytes:
 * a read goes to the source through the skill's registry entry (for folders: the confined provider of
 * `@skillport/fs`) and is served only when its size and SHA-256 are the snapshot's — otherwise it is refused with
 * {@link FileChangedError}, never served as the snapshot's. Hot files stay in a cache bounded by bytes (least recently
 * used dropped first), keyed by digest: a digest names one content, so a cached file can never be stale. Reads of one
 * file at once share one read.
 */
export class FileBytes {
  readonly #budget: number;
  readonly #cache = new Map<string, Uint8Array>();
  readonly #reading = new Map<string, Promise<Uint8Array>>();
  #bytes = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** The file's bytes, verified against the snapshot's digest; rejects with {@link FileChangedError} when they differ. */
  read(skill: ServedSkill, file: ServedFile): Promise<Uint8Array> {
    const hit = this.#cache.get(file.digest);
    if (hit !== undefined) {
      this.#touch(file.digest, hit);
      return Promise.resolve(hit);
    }
    const pending = this.#reading.get(file.digest);
    if (pending !== undefined) return pending;
    const read = this.#readVerified(skill, file).finally(() => this.#reading.delete(file.digest));
    this.#reading.set(file.digest, read);
    return read;
  }

  /** Bytes held for hot files now (at most the budget). */
  get heldBytes(): number {
    return this.#bytes;
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

  #touch(digest: string, bytes: Uint8Array): void {
    // Re-inserting moves it to the newest end; skipped when it is already there (the common case under one hot file).
    if (this.#newest === digest) return;
    this.#cache.delete(digest);
    this.#cache.set(digest, bytes);
    this.#newest = digest;
  }

  #newest: string | undefined;

  /** Holds bytes already verified against `digest` (a skill just rebuilt), as if just read. */
  keep(digest: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.#budget || this.#cache.has(digest)) return;
    // A view of a larger read buffer would hold all of it: keep a copy of exactly the file.
    if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== bytes.byteLength)
      bytes = Uint8Array.prototype.slice.call(bytes);
    this.#cache.set(digest, bytes);
    this.#newest = digest;
    this.#bytes += bytes.byteLength;
    for (const [oldest, dropped] of this.#cache) {
      if (this.#bytes <= this.#budget) break;
      this.#cache.delete(oldest);
      this.#bytes -= dropped.byteLength;
    }
  }
}
