import { readFileSync, statSync } from "node:fs";
import { LimitExceededError } from "@skillport/core";
import { ArchiveError } from "../errors.js";
import { formatBytes, resolveLimits, type PackageLimits } from "../limits.js";
import { comparePaths } from "../paths.js";
import type { ExcludedEntry } from "../walk.js";
import { checkListing, wrapperPrefix, type CheckedEntry } from "./entries.js";
import { listZip, readZipEntry } from "./zip.js";

export type ArchiveFormat = "zip" | "tar" | "tar.gz";

/** A regular file from an archive, checked and held in memory. */
export interface ArchiveFile {
  /** Canonical POSIX path (after any wrapper was stripped). */
  path: string;
  bytes: Uint8Array;
  /** 0o755 when the archive marked it executable (or it is a `.sh`), else 0o644. */
  mode: 0o755 | 0o644;
}

export interface ArchiveContents {
  format: ArchiveFormat;
  /** Sorted by path. */
  files: ArchiveFile[];
  /** Directories the archive listed (so empty ones survive), sorted. */
  directories: string[];
  /** OS junk left out. */
  dropped: ExcludedEntry[];
  /** The wrapper directory removed from in front of `skills/`, if any. */
  strippedPrefix: string | undefined;
}

export interface ReadArchiveOptions {
  limits?: Partial<PackageLimits>;
  /** Strip one wrapper directory in front of `skills/`. Default true. */
  stripWrapper?: boolean;
}

/** Recognises zip, gzip and tar by their magic bytes (file names can lie; `.skill` is a zip). */
export function detectArchiveFormat(bytes: Uint8Array): ArchiveFormat | undefined {
  if (
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    (bytes[2] === 0x03 || bytes[2] === 0x05) &&
    (bytes[3] === 0x04 || bytes[3] === 0x06)
  )
    return "zip";
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return "tar.gz";
  if (bytes.byteLength >= 262 && Buffer.from(bytes.subarray(257, 262)).toString("latin1") === "ustar") return "tar";
  return undefined;
}

/** A checked file of an archive whose content is produced on demand (inflated and verified when `read` is called). */
interface ListedArchiveFile {
  /** Canonical POSIX path (after any wrapper was stripped). */
  path: string;
  mode: 0o755 | 0o644;
  /** The content, checked against the listing (size cap, CRC-32); throws ArchiveError when it does not match. */
  read(): Buffer;
}

/** An archive whose listing passed every rule; contents are read one file at a time. */
export interface ListedArchive extends Omit<ArchiveContents, "files"> {
  /** Sorted by path. */
  files: ListedArchiveFile[];
}

/**
 * Checks an archive's whole listing (paths, kinds, duplicates, sizes, ratios) without inflating anything: a zip's
 * entries are inflated, capped at their declared size and CRC-checked only when read, so an unpacker can write each
 * file as it is inflated instead of holding every file in memory first (decision 0222). Never touches the file system.
 */
export async function listArchive(
  input: string | Uint8Array,
  options: ReadArchiveOptions = {},
): Promise<ListedArchive> {
  const limits = resolveLimits(options.limits);
  const bytes = loadBytes(input, limits);
  const format = detectArchiveFormat(bytes);
  if (format === undefined)
    throw new ArchiveError("unknown-format", "not a zip, tar or tar.gz archive (checked by content, not by name)");

  let checked: CheckedEntry[];
  let dropped: ExcludedEntry[];
  let contentOf: (e: CheckedEntry) => () => Buffer;
  if (format === "zip") {
    const entries = listZip(bytes, limits.maxFiles);
    ({ entries: checked, dropped } = checkListing(
      entries.map((e) => e.raw),
      limits,
    ));
    const byRaw = new Map(entries.map((e) => [e.raw, e.entry]));
    contentOf = (e) => {
      const entry = byRaw.get(e.raw);
      return entry ? () => readZipEntry(bytes, entry, e.path, e.raw.size) : () => Buffer.alloc(0);
    };
  } else {
    // Loaded on demand: the tar parser's module graph is the largest of the archive readers.
    const { readTar } = await import("./tar.js");
    const entries = await readTar(bytes, format === "tar.gz", limits);
    ({ entries: checked, dropped } = checkListing(
      entries.map((e) => e.raw),
      limits,
    ));
    const byRaw = new Map(entries.map((e) => [e.raw, e.bytes]));
    contentOf = (e) => {
      const content = byRaw.get(e.raw) ?? Buffer.alloc(0);
      return () => content;
    };
  }

  const strippedPrefix = options.stripWrapper === false ? undefined : wrapperPrefix(checked.map((e) => e.path));
  const strip = (p: string) => (strippedPrefix === undefined ? p : p.slice(strippedPrefix.length + 1));
  const files: ListedArchiveFile[] = [];
  const directories: string[] = [];
  for (const e of checked) {
    if (strippedPrefix !== undefined && e.path === strippedPrefix) continue;
    if (e.kind === "directory") directories.push(strip(e.path));
    else files.push({ path: strip(e.path), mode: modeOf(e.path, e.raw.mode), read: contentOf(e) });
  }
  if (files.length === 0) throw new ArchiveError("empty", "the archive holds no files");
  files.sort((a, b) => comparePaths(a.path, b.path));
  directories.sort(comparePaths);
  return { format, files, directories, dropped, strippedPrefix };
}

/**
 * Reads an archive into memory with every safety rule applied: the whole listing is checked (paths, kinds,
 * duplicates, sizes, ratios) before any content is inflated, and content is checked against the listing while it
 * is inflated. Throws InvalidPathError, LimitExceededError or ArchiveError; never touches the file system.
 */
export async function readArchive(
  input: string | Uint8Array,
  options: ReadArchiveOptions = {},
): Promise<ArchiveContents> {
  const { files, ...listed } = await listArchive(input, options);
  return { ...listed, files: files.map((f) => ({ path: f.path, bytes: f.read(), mode: f.mode })) };
}

function modeOf(path: string, mode: number): 0o755 | 0o644 {
  return (mode & 0o111) !== 0 || path.endsWith(".sh") ? 0o755 : 0o644;
}

/** Blocking reads on purpose: one `read` of a package-sized archive beats a thread-pool round trip per chunk. */
function loadBytes(input: string | Uint8Array, limits: PackageLimits): Buffer {
  if (typeof input === "string") {
    const info = statSync(input);
    if (!info.isFile()) throw new ArchiveError("unknown-format", "the archive path is not a regular file");
    checkArchiveSize(info.size, limits);
    return readFileSync(input);
  }
  checkArchiveSize(input.byteLength, limits);
  return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

function checkArchiveSize(size: number, limits: PackageLimits): void {
  if (size > limits.maxArchiveBytes) {
    throw new LimitExceededError(
      "maxArchiveBytes",
      `the archive is ${formatBytes(size)}, over the ${formatBytes(limits.maxArchiveBytes)} limit`,
    );
  }
}
