// Where runners fetch package archives from. The registry's blob store implements the same interface later; until
// then a blob folder (shared by NFS, a volume, or one machine) does. Every fetch is verified against the job's digest.
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import path from "node:path";
import { isMissing, writeFileAtomic } from "@skillport/fs";
import { RunnerError } from "./errors.js";

/** Archives by versionId. `get` must return exactly the bytes whose sha256 is `digest`, or throw `RunnerError`. */
export interface PackageStore {
  get(versionId: string, digest: string): Promise<Uint8Array>;
}

/** The largest archive a runner fetches (the unpacker's own limit is 50 MiB too). */
export const DEFAULT_MAX_PACKAGE_BYTES = 50 * 1024 * 1024;

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Checks fetched bytes against the digest a job names; the one verification every store goes through. */
export function verifyDigest(versionId: string, bytes: Uint8Array, digest: string): Uint8Array {
  const actual = sha256Digest(bytes);
  if (actual !== digest)
    throw new RunnerError(
      "PACKAGE_DIGEST",
      `package ${versionId}: archive digest ${actual} is not the job's ${digest}`,
    );
  return bytes;
}

/** A folder of `<versionId>.zip` files. */
export class BlobDirPackageStore implements PackageStore {
  constructor(
    readonly dir: string,
    private readonly maxBytes = DEFAULT_MAX_PACKAGE_BYTES,
  ) {}

  /** Stores an archive (from `packDirectory`); returns what a job names it by. */
  async put(versionId: string, archive: Uint8Array): Promise<{ versionId: string; digest: string }> {
    if (!/^[a-f0-9]{24}$/.test(versionId))
      throw new RunnerError("JOB_INVALID", `${JSON.stringify(versionId)} is not a versionId`);
    await writeFileAtomic(this.file(versionId), archive, { mode: 0o644 });
    return { versionId, digest: sha256Digest(archive) };
  }

  async get(versionId: string, digest: string): Promise<Uint8Array> {
    if (!/^[a-f0-9]{24}$/.test(versionId))
      throw new RunnerError("JOB_INVALID", `${JSON.stringify(versionId)} is not a versionId`);
    let handle;
    try {
      handle = await open(this.file(versionId), "r");
    } catch (error) {
      if (isMissing(error))
        throw new RunnerError("PACKAGE_NOT_FOUND", `package ${versionId} is not in the package store`);
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile())
        throw new RunnerError("PACKAGE_NOT_FOUND", `package ${versionId} is not a regular file in the package store`);
      if (info.size > this.maxBytes)
        throw new RunnerError("PACKAGE_DIGEST", `package ${versionId} is larger than ${this.maxBytes} bytes`);
      const bytes = new Uint8Array(info.size);
      const { bytesRead } = await handle.read(bytes, 0, info.size, 0);
      return verifyDigest(versionId, bytes.subarray(0, bytesRead), digest);
    } finally {
      await handle.close();
    }
  }

  private file(versionId: string): string {
    return path.join(this.dir, `${versionId}.zip`);
  }
}
