import fs from "node:fs";
import { createHash } from "node:crypto";
import { isMissing, openPinnedDir, type PinnedDir } from "@skillport/fs";
import { RegistryError } from "./errors.js";

/**
 * Package bytes by content: the key is the lowercase hex sha256 of the bytes. Implementations must make `put`
 * atomic (a reader sees no blob or the whole blob) and durable before it returns.
 */
export interface BlobStore {
  /** Stores `bytes` under `digest`; `upload` names the temp entry so a sweep can find what a crash left. */
  put(digest: string, bytes: Uint8Array, upload: string): Promise<void>;
  /** The bytes, verified against the digest; undefined when absent. */
  get(digest: string): Promise<Uint8Array | undefined>;
  /** Removes the blob and the temp entry of `upload`, if any (missing is fine). */
  remove(digest: string, upload?: string): Promise<void>;
  /** Removes only the temp entry `upload` left next to `digest` (missing is fine). */
  discardUpload(digest: string, upload: string): Promise<void>;
}

const DIGEST = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Blobs as files under `root/sha256/<first two hex>/<digest>`. Every write goes through folder descriptors opened
 * without following links (fs's floor): a temp file created exclusively, written, fsynced, renamed onto its name
 * inside the same pinned folder, and the folder fsynced, so a crash leaves either nothing or the whole blob — plus, at
 * worst, a temp entry named after its upload, which the registry's sweep removes.
 */
export class FileBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  async put(digest: string, bytes: Uint8Array, upload: string): Promise<void> {
    checkDigest(digest);
    const dir = this.#shard(digest, true);
    try {
      const temp = tempOf(upload);
      dir.removeTree(temp);
      const fd = dir.createFile(temp, 0o644);
      try {
        let written = 0;
        while (written < bytes.byteLength) written += fs.writeSync(fd, bytes, written, bytes.byteLength - written);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(dir.at(temp), dir.at(digest));
      fs.fsyncSync(dir.fd);
    } finally {
      dir.close();
    }
  }

  async get(digest: string): Promise<Uint8Array | undefined> {
    checkDigest(digest);
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(`${this.root}/sha256/${digest.slice(0, 2)}/${digest}`, {
        flag: fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW,
      });
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    if (sha256Hex(bytes) !== digest)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `blob ${digest.slice(0, 12)}… is damaged in the store (its bytes do not match its digest)`,
      );
    return bytes;
  }

  async remove(digest: string, upload?: string): Promise<void> {
    await this.#removeIn(digest, [digest, ...(upload === undefined ? [] : [tempOf(upload)])]);
  }

  async discardUpload(digest: string, upload: string): Promise<void> {
    await this.#removeIn(digest, [tempOf(upload)]);
  }

  async #removeIn(digest: string, names: readonly string[]): Promise<void> {
    checkDigest(digest);
    let dir: PinnedDir;
    try {
      dir = this.#shard(digest, false);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    try {
      for (const name of names) dir.removeTree(name);
      fs.fsyncSync(dir.fd);
    } finally {
      dir.close();
    }
  }

  #shard(digest: string, create: boolean): PinnedDir {
    return openPinnedDir(this.root, `sha256/${digest.slice(0, 2)}`, { create });
  }
}

function tempOf(upload: string): string {
  if (!/^[0-9a-f]{8,64}$/.test(upload)) throw new RegistryError("REGISTRY_BAD_REQUEST", "bad upload id");
  return `.tmp-upload-${upload}`;
}

function checkDigest(digest: string): void {
  if (!DIGEST.test(digest))
    throw new RegistryError("REGISTRY_BAD_REQUEST", "a blob digest is 64 lowercase hex characters");
}
