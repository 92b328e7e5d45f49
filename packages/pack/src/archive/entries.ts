import { InvalidPathError, LimitExceededError, normalizeResourcePath } from "@skillport/core";
import { ArchiveError } from "../errors.js";
import { formatBytes, RATIO_EXEMPT_BYTES, type PackageLimits } from "../limits.js";
import { comparePaths, pathDepth } from "../paths.js";
import type { ExcludedEntry } from "../walk.js";

export type EntryKind = "file" | "directory" | "symlink" | "hardlink" | "special";

/** An archive entry as a reader saw it in the listing, before any content is read. */
export interface RawEntry {
  /** Name exactly as stored (decoded to a string). */
  name: string;
  kind: EntryKind;
  /** Declared uncompressed size. */
  size: number;
  /** Declared compressed size, when the format compresses per entry (zip). */
  compressedSize?: number;
  /** Unix permission bits when the archive recorded them. */
  mode: number;
}

/** A listed entry that passed every check; `path` is canonical POSIX relative to the archive root. */
export interface CheckedEntry {
  raw: RawEntry;
  path: string;
  kind: "file" | "directory";
}

export interface CheckedListing {
  entries: CheckedEntry[];
  dropped: ExcludedEntry[];
}

/** Names operating systems leave behind; dropped silently (but reported in `dropped`). */
function osJunkReason(path: string): string | undefined {
  const segments = path.split("/");
  if (segments.includes("__MACOSX")) return "os junk (__MACOSX)";
  const base = (segments[segments.length - 1] ?? "").toLowerCase();
  if (base === ".ds_store") return "os junk (.DS_Store)";
  if (base.startsWith("._")) return "os junk (._*)";
  if (base === "thumbs.db") return "os junk (Thumbs.db)";
  if (base === "desktop.ini") return "os junk (desktop.ini)";
  return undefined;
}

/** `./a/b/` → `a/b`: the two spellings archivers add that carry no meaning. */
function stripDecorations(name: string): string {
  let out = name;
  while (out.startsWith("./")) out = out.slice(2);
  while (out.endsWith("/")) out = out.slice(0, -1);
  return out;
}

/**
 * Checks a whole listing against the path rules and limits, before any content is read or written.
 * Throws on the first refused entry, naming it; returns the entries to extract and what was dropped.
 */
export function checkListing(raw: readonly RawEntry[], limits: PackageLimits): CheckedListing {
  if (raw.length > limits.maxFiles) {
    throw new LimitExceededError(
      "maxFiles",
      `the archive has ${raw.length} entries, more than the ${limits.maxFiles} allowed`,
    );
  }
  const entries: CheckedEntry[] = [];
  const dropped: ExcludedEntry[] = [];
  const seen = new Map<string, { path: string; kind: "file" | "directory" }>();
  let total = 0;
  for (const entry of raw) {
    if (entry.name.includes("\u0000")) throw new InvalidPathError(entry.name.replace(/\u0000/g, "\\0"), "contains NUL");
    const path = stripDecorations(entry.name);
    if (path === "" && entry.kind === "directory") continue; // "./" itself
    if (pathDepth(path) > limits.maxDepth) {
      throw new LimitExceededError("maxDepth", `archive entry ${path} is nested deeper than ${limits.maxDepth} levels`);
    }
    normalizeResourcePath(path, { maxDepth: Number.POSITIVE_INFINITY });
    if (entry.kind === "symlink")
      throw new ArchiveError(
        "symlink",
        `archive entry ${path} is a symbolic link; links are not allowed in packages`,
        path,
      );
    if (entry.kind === "hardlink")
      throw new ArchiveError(
        "hardlink",
        `archive entry ${path} is a hard link; links are not allowed in packages`,
        path,
      );
    if (entry.kind === "special")
      throw new ArchiveError(
        "special-file",
        `archive entry ${path} is a device, FIFO or socket, not a regular file`,
        path,
      );
    const junk = osJunkReason(path);
    if (junk) {
      dropped.push({ path: entry.kind === "directory" ? `${path}/` : path, reason: junk });
      continue;
    }
    if (entry.kind === "file") {
      if (entry.size > limits.maxFileBytes) {
        throw new LimitExceededError(
          "maxFileBytes",
          `archive entry ${path} is ${formatBytes(entry.size)}, over the ${formatBytes(limits.maxFileBytes)} per-file limit`,
        );
      }
      total += entry.size;
      if (total > limits.maxTotalBytes) {
        throw new LimitExceededError(
          "maxTotalBytes",
          `the archive expands to more than ${formatBytes(limits.maxTotalBytes)}`,
        );
      }
      const packed = entry.compressedSize;
      if (
        packed !== undefined &&
        entry.size >= RATIO_EXEMPT_BYTES &&
        entry.size > packed * limits.maxCompressionRatio
      ) {
        throw new LimitExceededError(
          "maxCompressionRatio",
          `archive entry ${path} expands ${Math.round(entry.size / Math.max(packed, 1))}x, over the ${limits.maxCompressionRatio}x ratio limit (zip bomb?)`,
        );
      }
    }
    const key = path.normalize("NFC").toLowerCase();
    const previous = seen.get(key);
    if (previous) {
      if (previous.kind === "directory" && entry.kind === "directory") continue; // tar and zip may both list a dir twice
      throw new ArchiveError(
        "duplicate",
        `archive entries ${previous.path} and ${path} name the same file (case-insensitive, after NFC)`,
        path,
      );
    }
    seen.set(key, { path, kind: entry.kind });
    entries.push({ raw: entry, path, kind: entry.kind });
  }
  // A file may not also be a directory on the way to another entry (`a` and `a/b`).
  for (const entry of entries) {
    const parts = entry.path.normalize("NFC").toLowerCase().split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = seen.get(parts.slice(0, i).join("/"));
      if (parent?.kind === "file") {
        throw new ArchiveError(
          "path-conflict",
          `archive entry ${entry.path} lies below ${parent.path}, which is a file`,
          entry.path,
        );
      }
    }
  }
  entries.sort((a, b) => comparePaths(a.path, b.path));
  dropped.sort((a, b) => comparePaths(a.path, b.path));
  return { entries, dropped };
}

/**
 * The single wrapper directory in front of `skills/` (`my-pkg/skills/a/SKILL.md` → `my-pkg`), when every entry sits
 * under it and there is no `skills/` at the root; otherwise undefined.
 */
export function wrapperPrefix(paths: readonly string[]): string | undefined {
  if (paths.length === 0 || paths.some((p) => p === "skills" || p.startsWith("skills/"))) return undefined;
  const first = paths[0]?.split("/")[0];
  if (first === undefined) return undefined;
  if (!paths.every((p) => p === first || p.startsWith(`${first}/`))) return undefined;
  return paths.some((p) => p.startsWith(`${first}/skills/`)) ? first : undefined;
}
