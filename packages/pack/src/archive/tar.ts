import { gunzipSync } from "node:zlib";
import { LimitExceededError } from "@skillport/core";
import { Parser, type ReadEntry } from "tar";
import { ArchiveError } from "../errors.js";
import { formatBytes, RATIO_EXEMPT_BYTES, type PackageLimits } from "../limits.js";
import type { EntryKind, RawEntry } from "./entries.js";
import { errorCode } from "@skillport/fs";

export interface TarEntry {
  raw: RawEntry;
  bytes: Buffer;
}

/** Header and padding overhead a tar may add on top of its file contents. */
const TAR_OVERHEAD_PER_ENTRY = 3 * 512;

/**
 * Decompresses (bounded) and lists a tar or tar.gz fully in memory. Contents are held, never written: the caller
 * checks the whole listing before extracting anything.
 */
export async function readTar(bytes: Buffer, gzipped: boolean, limits: PackageLimits): Promise<TarEntry[]> {
  const tarBytes = gzipped ? gunzipBounded(bytes, limits) : bytes;
  const entries: TarEntry[] = [];
  const parser = new Parser({ strict: true });
  let tooMany: LimitExceededError | undefined;
  let seen = 0;
  const done = new Promise<void>((resolve, reject) => {
    parser.on("entry", (entry: ReadEntry) => {
      // Stop at the first entry over the limit: a tar of a million empty files is refused without listing it all.
      if (++seen > limits.maxFiles) {
        tooMany = new LimitExceededError(
          "maxFiles",
          `the archive has more than the ${limits.maxFiles} entries allowed`,
        );
        entry.resume();
        parser.abort(tooMany);
        return;
      }
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => entries.push({ raw: describe(entry), bytes: Buffer.concat(chunks) }));
    });
    parser.on("error", (error: Error) =>
      reject(tooMany ?? new ArchiveError("corrupt", `the archive is not a valid tar: ${error.message}`)),
    );
    parser.on("end", () => resolve());
  });
  parser.end(tarBytes);
  await done;
  if (entries.length === 0) throw new ArchiveError("empty", "the archive is empty");
  return entries;
}

function gunzipBounded(bytes: Buffer, limits: PackageLimits): Buffer {
  const cap = limits.maxTotalBytes + limits.maxFiles * TAR_OVERHEAD_PER_ENTRY + 1024 * 1024;
  let out: Buffer;
  try {
    out = gunzipSync(bytes, { maxOutputLength: cap });
  } catch (error) {
    if (error instanceof RangeError || errorCode(error) === "ERR_BUFFER_TOO_LARGE") {
      throw new LimitExceededError(
        "maxTotalBytes",
        `the archive expands to more than ${formatBytes(limits.maxTotalBytes)}`,
      );
    }
    throw new ArchiveError("corrupt", `the archive is not valid gzip: ${(error as Error).message}`);
  }
  if (out.byteLength >= RATIO_EXEMPT_BYTES && out.byteLength > bytes.byteLength * limits.maxCompressionRatio) {
    throw new LimitExceededError(
      "maxCompressionRatio",
      `the archive expands ${Math.round(out.byteLength / bytes.byteLength)}x, over the ${limits.maxCompressionRatio}x ratio limit (gzip bomb?)`,
    );
  }
  return out;
}

function describe(entry: ReadEntry): RawEntry {
  return { name: entry.path, kind: kindOf(entry.type), size: entry.size, mode: (entry.mode ?? 0o644) & 0o777 };
}

function kindOf(type: ReadEntry["type"]): EntryKind {
  switch (type) {
    case "File":
    case "OldFile":
    case "ContiguousFile":
      return "file";
    case "Directory":
      return "directory";
    case "SymbolicLink":
      return "symlink";
    case "Link":
      return "hardlink";
    default:
      return "special";
  }
}
