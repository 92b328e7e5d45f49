import { lstatSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import {
  InvalidPathError,
  isSafeResourcePath,
  LimitExceededError,
  normalizeResourcePath,
  SkillUnavailableError,
} from "@skillport/core";
import { compareCodeUnits } from "@skillport/core/internal";
import { isInside, joinReal } from "./confine.js";
import { readDirectorySync, type DirectoryEntries } from "./dir-entries.js";
import { errorCode, isMissing } from "./errno.js";

/**
 * What the walker does with a symbolic link:
 * - `refuse`: a problem (`link`), never followed;
 * - `follow-inside`: followed when its real path stays inside `boundary` (directories too, with loop detection); a
 *   link leaving the boundary (`link-outside`), a dangling one (`link-dangling`) or a loop (`link-loop`) is a problem;
 * - `exclude`: left out and listed in `excluded` with `linkReason`, never followed and never a problem.
 */
export type WalkLinkPolicy = "refuse" | "follow-inside" | "exclude";

/** `name-not-utf8`: the entry's name is not valid UTF-8; `path` writes the bad bytes as `\xHH` (docs/decisions/0281). */
export type WalkProblemKind =
  | "link"
  | "link-outside"
  | "link-dangling"
  | "link-loop"
  | "special"
  | "unsafe-name"
  | "name-not-utf8"
  | "unreadable"
  | "limit";

export interface WalkProblem {
  /** POSIX path relative to the root (`""` for the root itself). */
  path: string;
  kind: WalkProblemKind;
  /** Names only the relative path, never a host path. */
  message: string;
  /** For `limit`: which limit (`maxDepth`, `maxFiles`, `maxDirs`). */
  limit?: WalkLimitName;
}

export type WalkLimitName = "maxDepth" | "maxFiles" | "maxDirs";

export interface WalkEntry {
  /** POSIX path relative to the root. */
  path: string;
  /** Absolute real path (through any followed link). */
  realPath: string;
  kind: "file" | "directory";
  /** Bytes, of the link's target when reached through a link. 0 for directories. */
  size: number;
  mode: number;
  /** Hard-link count (`st_nlink`): above 1 the same bytes are reachable under another name, maybe outside the tree. */
  nlink: number;
  /** Reached through a symbolic link: the entry itself or one of the directories above it is a link. */
  viaLink: boolean;
}

/** Something an `exclude` callback (or the `exclude` link policy) left out. Directories end with `/`. */
export interface WalkExcluded {
  path: string;
  reason: string;
}

/** One directory about to be walked, as the per-directory hook sees it. */
export interface WalkDirectory {
  /** POSIX path relative to the root (`""` for the root). */
  path: string;
  realPath: string;
  /** Nesting below the root: 0 for the root, 1 for its subdirectories. */
  depth: number;
  /** The directory's entries, sorted by name (code units). */
  entries: readonly Dirent[];
}

export interface WalkOptions {
  /** Deepest directory nesting walked below the root (the root's subdirectories are at depth 1). Default 32. */
  maxDepth?: number;
  /** Most file entries. Default 10,000. */
  maxFiles?: number;
  /** Most directories walked, the root included. Default 10,000. */
  maxDirs?: number;
  /** Default `refuse`. */
  links?: WalkLinkPolicy;
  /** Real path links must stay inside under `follow-inside`. Default the root's real path. */
  boundary?: string;
  /** How messages name the boundary (`the skill`, `the package`). Default "its directory". */
  boundaryName?: string;
  /** Reason recorded for links under the `exclude` policy. Default "symbolic link". */
  linkReason?: string;
  /**
   * `throw` (default): the first problem throws — InvalidPathError for links, special files and unsafe names,
   * LimitExceededError (naming the limit) for limits, SkillUnavailableError for unreadable directories.
   * `collect`: problems are reported in the result and the walk goes on ("report, don't refuse"); a depth limit skips
   * that directory, a count limit stops the walk (`truncated`).
   */
  onProblem?: "throw" | "collect";
  /**
   * Leaves an entry out: return a reason to exclude it (a directory is then not entered), undefined to keep it.
   * Called before the name and link rules, with the target's type for a link (false when dangling).
   */
  exclude?: (relPath: string, isDir: boolean, info: { link: boolean }) => string | undefined;
  /**
   * Called for every directory before its entries are judged (e.g. to read a nested `.gitignore` for `exclude`).
   * Return false to skip the directory's entries (its files are not listed and its subdirectories not walked).
   */
  onDirectory?: (dir: WalkDirectory) => boolean | void;
  /** Refuse names the shared path rules refuse (`a\b`, `x:y`, control characters), as `unsafe-name`. Default true. */
  checkNames?: boolean;
  /** List files. Default true; false walks directories only (no stat per file). */
  files?: boolean;
  /** List directories too. Default false. */
  directories?: boolean;
}

export interface WalkResult {
  /** Sorted by path (code units). */
  entries: WalkEntry[];
  /** Empty in `throw` mode. In walk order. */
  problems: WalkProblem[];
  /** Sorted by path. */
  excluded: WalkExcluded[];
  /** Directories walked, the root included. */
  directories: number;
  /** A count limit stopped the walk early (`collect` mode only). */
  truncated: boolean;
}

export const DEFAULT_WALK_MAX_DEPTH = 32;
export const DEFAULT_WALK_MAX_FILES = 10_000;
export const DEFAULT_WALK_MAX_DIRS = 10_000;

interface PendingDir {
  rel: string;
  real: string;
  depth: number;
  viaLink: boolean;
  /** Real paths of the directories above (and including) this one, when links are followed: for loop detection. */
  chain: readonly string[];
}

/** Stops the walk in collect mode once a count limit is hit. */
class StopWalk {}

/**
 * THE bounded directory walker (one per codebase: docs/decisions/0120). Breadth first, synchronous calls (each takes
 * microseconds; a thread-pool round trip per entry costs more than the call — decisions 0037, 0045), output sorted by
 * code units. Every limit is an option; nothing is skipped silently: what is left out is either `excluded` (by the
 * caller's rule) or a problem (thrown, or reported in `collect` mode).
 *
 * The root itself is trusted (the caller chose it): a missing root throws Node's own error.
 */
export function walkTree(root: string, options: WalkOptions = {}): WalkResult {
  const maxDepth = options.maxDepth ?? DEFAULT_WALK_MAX_DEPTH;
  const maxFiles = options.maxFiles ?? DEFAULT_WALK_MAX_FILES;
  const maxDirs = options.maxDirs ?? DEFAULT_WALK_MAX_DIRS;
  const policy = options.links ?? "refuse";
  const collect = options.onProblem === "collect";
  const checkNames = options.checkNames ?? true;
  const wantFiles = options.files ?? true;
  const wantDirs = options.directories ?? false;
  // One realpath(3) call; the JavaScript realpathSync lstats every component of the path, for every skill walked.
  const rootReal = realpathSync.native(root);
  const boundary = options.boundary ?? rootReal;
  const following = policy === "follow-inside";

  const entries: WalkEntry[] = [];
  const problems: WalkProblem[] = [];
  const excluded: WalkExcluded[] = [];
  let files = 0;
  let directories = 0;
  let truncated = false;

  const problem = (
    rel: string,
    kind: WalkProblemKind,
    message: string,
    limit?: WalkLimitName,
    cause?: unknown,
  ): void => {
    if (!collect) {
      if (kind === "limit") throw new LimitExceededError(limit ?? "maxFiles", message);
      if (kind === "unreadable") throw new SkillUnavailableError(message, { cause });
      throw new InvalidPathError(rel, message);
    }
    problems.push(limit === undefined ? { path: rel, kind, message } : { path: rel, kind, message, limit });
  };
  const countLimit = (rel: string, limit: WalkLimitName, message: string): never => {
    problem(rel, "limit", message, limit);
    truncated = true;
    throw new StopWalk();
  };

  const queue: PendingDir[] = [
    { rel: "", real: rootReal, depth: 0, viaLink: false, chain: following ? [rootReal] : [] },
  ];
  if (!isInside(boundary, rootReal)) {
    // The root was resolved through a link that leaves the boundary (e.g. a skill folder swapped for a link).
    problem(
      "",
      "link-outside",
      `the root is a symbolic link that leads outside ${options.boundaryName ?? "its directory"}`,
    );
    queue.length = 0;
  }
  try {
    for (let next = 0; next < queue.length; next++) {
      const dir = queue[next]!;
      queue[next] = undefined as unknown as PendingDir; // let walked directories be collected
      if (++directories > maxDirs) countLimit(dir.rel, "maxDirs", `more than ${maxDirs} directories`);
      let listed: DirectoryEntries;
      try {
        listed = readDirectorySync(dir.real);
      } catch (error) {
        problem(
          dir.rel,
          "unreadable",
          `${describeDir(dir.rel)} cannot be read (${errorCode(error) ?? "unknown error"})`,
          undefined,
          error,
        );
        continue;
      }
      // A name that is not UTF-8 cannot be reached through a string path: excluded by the caller's rule, or a problem.
      for (const bad of listed.undecodable) {
        const rel = dir.rel === "" ? bad.escaped : `${dir.rel}/${bad.escaped}`;
        const reason = options.exclude?.(rel, bad.isDirectory, { link: bad.isSymbolicLink });
        if (reason !== undefined) excluded.push({ path: bad.isDirectory ? `${rel}/` : rel, reason });
        else problem(rel, "name-not-utf8", "is not valid UTF-8; rename it");
      }
      const dirents = listed.entries;
      dirents.sort((a, b) => compareCodeUnits(a.name, b.name));
      if (options.onDirectory?.({ path: dir.rel, realPath: dir.real, depth: dir.depth, entries: dirents }) === false)
        continue;

      for (const dirent of dirents) {
        const rel = dir.rel === "" ? dirent.name : `${dir.rel}/${dirent.name}`;
        const abs = joinReal(dir.real, dirent.name); // a directory entry's name is one segment
        const isLink = dirent.isSymbolicLink();
        let real = abs;
        let target: Stats | undefined; // a link's target, when it resolves
        let dangling = false;
        if (isLink) {
          try {
            real = realpathSync(abs);
            target = statSync(real);
          } catch (error) {
            if (!isMissing(error) && errorCode(error) !== "ELOOP") {
              problem(
                rel,
                "unreadable",
                `${JSON.stringify(rel)} cannot be resolved (${errorCode(error) ?? "unknown error"})`,
                undefined,
                error,
              );
              continue;
            }
            dangling = true;
          }
        }
        const isDir = isLink ? target?.isDirectory() === true : dirent.isDirectory();
        const reason = options.exclude?.(rel, isDir, { link: isLink });
        if (reason !== undefined) {
          excluded.push({ path: isDir ? `${rel}/` : rel, reason });
          continue;
        }
        if (checkNames && !isSafeResourcePath(rel, { maxDepth: Number.POSITIVE_INFINITY })) {
          problem(rel, "unsafe-name", unsafeReason(rel));
          continue;
        }
        if (isLink) {
          if (policy === "exclude") {
            excluded.push({ path: rel, reason: options.linkReason ?? "symbolic link" });
            continue;
          }
          if (policy === "refuse") {
            problem(rel, "link", "is a symbolic link; links are not followed here");
            continue;
          }
          if (dangling || target === undefined) {
            problem(rel, "link-dangling", "is a symbolic link whose target does not exist (or loops)");
            continue;
          }
          if (!isInside(boundary, real)) {
            problem(
              rel,
              "link-outside",
              `is a symbolic link that leads outside ${options.boundaryName ?? "its directory"}`,
            );
            continue;
          }
        }
        const viaLink = dir.viaLink || isLink;
        if (isDir) {
          if (following && dir.chain.includes(real)) {
            problem(rel, "link-loop", "is a symbolic link to a directory that contains it (a loop)");
            continue;
          }
          if (dir.depth + 1 > maxDepth) {
            problem(rel, "limit", `is nested deeper than ${maxDepth} directories`, "maxDepth");
            continue;
          }
          if (wantDirs)
            entries.push({
              path: rel,
              realPath: real,
              kind: "directory",
              size: 0,
              mode: (target ?? lstatOrEmpty(abs)).mode,
              nlink: 1,
              viaLink,
            });
          queue.push({ rel, real, depth: dir.depth + 1, viaLink, chain: following ? [...dir.chain, real] : dir.chain });
          continue;
        }
        const isFile = isLink ? target?.isFile() === true : dirent.isFile();
        if (!isFile) {
          problem(rel, "special", "is not a regular file or directory (a device, socket or FIFO)");
          continue;
        }
        if (!wantFiles) continue;
        if (++files > maxFiles) countLimit(rel, "maxFiles", `more than ${maxFiles} files`);
        let stats = target;
        if (stats === undefined) {
          try {
            stats = lstatSync(abs);
          } catch (error) {
            problem(
              rel,
              "unreadable",
              `${JSON.stringify(rel)} cannot be read (${errorCode(error) ?? "unknown error"})`,
              undefined,
              error,
            );
            continue;
          }
        }
        entries.push({
          path: rel,
          realPath: real,
          kind: "file",
          size: stats.size,
          mode: stats.mode,
          nlink: stats.nlink,
          viaLink,
        });
      }
    }
  } catch (error) {
    if (!(error instanceof StopWalk)) throw error;
  }
  const byPath = (a: { path: string }, b: { path: string }) => compareCodeUnits(a.path, b.path);
  return {
    entries: entries.sort(byPath),
    problems,
    excluded: excluded.sort(byPath),
    directories: Math.min(directories, maxDirs),
    truncated,
  };
}

/** Why the shared path rules refuse `rel`, in their own words (`contains ':'`). */
function unsafeReason(rel: string): string {
  try {
    normalizeResourcePath(rel, { maxDepth: Number.POSITIVE_INFINITY });
  } catch (error) {
    if (error instanceof InvalidPathError) return error.reason;
  }
  return "is not a portable, safe path; rename it";
}

function describeDir(rel: string): string {
  return rel === "" ? "the root directory" : `directory ${JSON.stringify(rel)}`;
}

function lstatOrEmpty(abs: string): { mode: number } {
  try {
    return lstatSync(abs);
  } catch {
    return { mode: 0 };
  }
}
