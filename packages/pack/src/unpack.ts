import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { errorCode, siblingTemp } from "@skillport/fs";
import { listArchive, type ArchiveFormat, type ReadArchiveOptions } from "./archive/read.js";
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
 * exist or be empty. The whole listing is checked before anything is written; each file is then inflated, checked
 * against the listing (size, CRC-32) and written into a sibling temp directory that is renamed into place only when
 * every file passed, so a refused or failed unpack leaves `destDir` (and its parents) exactly as they were.
 */
export async function unpackArchive(
  input: string | Uint8Array,
  destDir: string,
  options: UnpackOptions = {},
): Promise<UnpackResult> {
  assertEmptyOrMissing(destDir);
  const archive = await listArchive(input, options);
  const files = await writeTree(archive, destDir);
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

/** A file to write; its content is produced when it is written (an archive entry is inflated then, not earlier). */
export interface TreeFile {
  path: string;
  mode: 0o755 | 0o644;
  read(): Uint8Array;
}

/** Bytes written between yields to the event loop, so unpacking a large package never stalls a server for long. */
const YIELD_EVERY_BYTES = 4 * 1024 * 1024;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes files to a fresh temp dir beside `destDir`, then renames it into place, and returns what was written (in
 * order, hashed). One file's content is in memory at a time: it is read, written and dropped before the next, so a
 * large package does not need its whole size in memory (decision 0222). A read that throws (a corrupt entry) removes the
 * temp dir and any parent folders this call created. Every step is synchronous, in path order, yielding every few
 * MiB: for package-sized files a thread-pool round trip per mkdir/open/write/close/rename costs more than the call
 * itself (decisions 0100, 0211).
 */
export async function writeTree(
  tree: { files: readonly TreeFile[]; directories: readonly string[] },
  destDir: string,
): Promise<ManifestFile[]> {
  const target = path.resolve(destDir);
  const createdParent = mkdirSync(path.dirname(target), { recursive: true });
  const temp = siblingTemp(target, path.basename(target));
  const written: ManifestFile[] = [];
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
    for (const dir of tree.directories) ensureDir(dir);
    let sinceYield = 0;
    for (const file of tree.files) {
      const bytes = file.read();
      ensureDir(path.posix.dirname(file.path));
      const out = path.join(temp, ...file.path.split("/"));
      writeFileSync(out, bytes, { flag: "wx", mode: file.mode });
      if (!umaskSafe) chmodSync(out, file.mode);
      written.push({ path: file.path, size: bytes.byteLength, sha256: sha256Hex(bytes), mode: file.mode });
      sinceYield += bytes.byteLength;
      if (sinceYield >= YIELD_EVERY_BYTES) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    if (!umaskSafe) chmodSync(temp, 0o755);
    renameSync(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (createdParent !== undefined) removeEmptyUpTo(path.dirname(target), createdParent);
    throw error;
  }
  return written;
}

/** Removes `dir` and its parents up to and including `top` while they are empty (never anything with content). */
function removeEmptyUpTo(dir: string, top: string): void {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      rmdirSync(current);
    } catch {
      return;
    }
    if (current === top || current === path.dirname(current)) return;
  }
}

function assertEmptyOrMissing(dir: string): void {
  let isDir: boolean;
  try {
    isDir = lstatSync(dir).isDirectory();
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  if (!isDir || readdirSync(dir).length > 0) {
    throw new InvalidPathError(path.basename(dir), "the destination already exists and is not an empty directory");
  }
}
