import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core/errors";
import { siblingTemp } from "@skillport/fs/floor";
import { readArchive, type ArchiveContents, type ArchiveFormat, type ReadArchiveOptions } from "./archive/read.js";
import type { ManifestFile } from "./pack.js";
import { computeVersionId, sha256Hex } from "./version.js";
import type { ExcludedEntry } from "./walk.js";

export type UnpackOptions = ReadArchiveOptions;

export interface UnpackResult {
  format: ArchiveFormat;
  /** Every file written, sorted, with size, sha256 and mode. */
  files: ManifestFile[];
  directories: string[];
  /** OS junk left out. */
  dropped: ExcludedEntry[];
  strippedPrefix: string | undefined;
  totalBytes: number;
  /** Content address of what was unpacked: equal to the packer's versionId for the same files. */
  versionId: string;
  digest: string;
}

/**
 * Safely unpacks a zip, tar or tar.gz (`.skill` included; format by magic bytes) into `destDir`, which must not
 * exist or be empty. Everything is checked in memory first; files go to a sibling temp directory that is renamed
 * into place, so a refused or failed unpack leaves `destDir` exactly as it was.
 */
export async function unpackArchive(input: string | Uint8Array, destDir: string, options: UnpackOptions = {}): Promise<UnpackResult> {
  assertEmptyOrMissing(destDir);
  const archive = await readArchive(input, options);
  await writeTree(archive, destDir);
  const files = archive.files.map((f): ManifestFile => ({ path: f.path, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes), mode: f.mode }));
  const { versionId, digest } = computeVersionId(files);
  return {
    format: archive.format,
    files,
    directories: archive.directories,
    dropped: archive.dropped,
    strippedPrefix: archive.strippedPrefix,
    totalBytes: files.reduce((sum, f) => sum + f.size, 0),
    versionId,
    digest,
  };
}

/** Bytes written between yields to the event loop, so unpacking a large package never stalls a server for long. */
const YIELD_EVERY_BYTES = 4 * 1024 * 1024;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes checked archive contents to a fresh temp dir beside `destDir`, then renames it into place.
 * Every step is synchronous, in path order, yielding every few MiB: for package-sized files a thread-pool round trip
 * per mkdir/open/write/close/rename costs more than the call itself (decisions 0100, 0211).
 */
export async function writeTree(archive: Pick<ArchiveContents, "files" | "directories">, destDir: string): Promise<void> {
  const target = path.resolve(destDir);
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = siblingTemp(target, path.basename(target));
  try {
    mkdirSync(temp, { mode: 0o755 });
    // The umask must not change what a package deploys as. When it leaves 0755 alone (the usual 022), files
    // created with 0644/0755 come out exact and the per-file chmod can be skipped.
    const umaskSafe = (statSync(temp).mode & 0o777) === 0o755;
    const made = new Set<string>();
    const ensureDir = (dir: string): void => {
      if (dir === "." || made.has(dir)) return;
      mkdirSync(path.join(temp, ...dir.split("/")), { recursive: true, mode: 0o755 });
      made.add(dir);
    };
    for (const dir of archive.directories) ensureDir(dir);
    let sinceYield = 0;
    for (const file of archive.files) {
      ensureDir(path.posix.dirname(file.path));
      const out = path.join(temp, ...file.path.split("/"));
      writeFileSync(out, file.bytes, { flag: "wx", mode: file.mode });
      if (!umaskSafe) chmodSync(out, file.mode);
      sinceYield += file.bytes.byteLength;
      if (sinceYield >= YIELD_EVERY_BYTES) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    if (!umaskSafe) chmodSync(temp, 0o755);
    renameSync(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

function assertEmptyOrMissing(dir: string): void {
  let isDir: boolean;
  try {
    isDir = lstatSync(dir).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!isDir || readdirSync(dir).length > 0) {
    throw new InvalidPathError(path.basename(dir), "the destination already exists and is not an empty directory");
  }
}
