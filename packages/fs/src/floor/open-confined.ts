import fs, { constants, type Stats } from "node:fs";
import path from "node:path";
import {
  InvalidPathError,
  normalizeResourcePath,
  ResourceNotFoundError,
  SkillUnavailableError,
  type SafePathLimits,
} from "@skillport/core";
import { isInside, joinReal } from "./confine.js";
import { errorCode, isMissing } from "./errno.js";

// O_NONBLOCK: opening a FIFO never waits for a writer (it is then refused as not a regular file).
const BASE_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
// O_NOFOLLOW: the kernel refuses a link as the LAST component at open time. Links on the directories above are
// followed by the kernel, which is why the opened descriptor is verified afterwards.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface OpenConfinedOptions {
  /**
   * Serve links whose target stays inside the boundary (the skill policy). Default false: the opened file must sit
   * exactly at `<boundary>/<relPath>`, with no link anywhere on the way.
   */
  followLinksInside?: boolean;
  /**
   * Refuse a file with more than one hard link (`st_nlink > 1`): a hard link shares bytes with a name that may be
   * outside the boundary, and no path check can see it. For untrusted trees (a deployed workspace). Default false.
   */
  refuseHardLinks?: boolean;
  /** How messages name the boundary (`the skill`). Default "its directory". */
  boundaryName?: string;
  /** Names the skill in not-found errors (never the host path). */
  skillId?: string;
  limits?: Partial<SafePathLimits>;
  /**
   * How the opened descriptor's location is verified: `proc` reads `/proc/self/fd/N`; `path` compares the
   * descriptor's device and inode with the file found by a link-free walk (or by real path, when links inside are
   * followed); `auto` (default) uses `proc` where it exists. Both are sound; `path` costs more syscalls.
   */
  verify?: "auto" | "proc" | "path";
}

/** A file opened and proven to lie inside the boundary: the descriptor is what was verified, so reads are confined. */
export interface ConfinedFile {
  readonly fd: number;
  /** Bytes, from fstat of the descriptor. */
  readonly size: number;
  readonly mode: number;
  readonly nlink: number;
  /** The verified real path (absolute; never show it to users of an untrusted tree). */
  readonly realPath: string;
  /**
   * Reads the whole file, at most `maxBytes + 1` bytes; undefined when it is larger than `maxBytes`. With `into`, a
   * file that fits is read into it and the result is a view of it (valid until `into` is reused): a caller reading
   * many files one at a time touches no fresh memory per file. A file that does not fit gets memory of its own.
   */
  readAllSync(maxBytes: number, into?: Uint8Array): Uint8Array | undefined;
  /** Idempotent. */
  close(): void;
}

let procFd: boolean | undefined;
function haveProcFd(): boolean {
  procFd ??= fs.existsSync("/proc/self/fd");
  return procFd;
}

/**
 * THE confined read (docs/safe-paths.md, docs/decisions/0122): checks `relPath` with core's rules, OPENS the file
 * (read-only, non-blocking, without following a final link unless links inside are allowed), and only then verifies
 * the opened descriptor — its real path must lie inside `boundaryReal` (exactly at the asked path when links are not
 * allowed) and it must be a regular file. A directory swapped for a link after any earlier check cannot redirect the
 * read: what is verified is the file actually opened.
 *
 * `boundaryReal` must be a real path (from `realpath`). Errors name only `relPath`:
 * - unsafe path, a link where none is allowed, a link leaving the boundary, a dangling link, a hard link when refused
 *   → InvalidPathError
 * - missing, a directory or a special file → ResourceNotFoundError
 * - any other I/O error → SkillUnavailableError (errno code in the message, the Node error as `cause`)
 */
export function openConfined(boundaryReal: string, relPath: string, options: OpenConfinedOptions = {}): ConfinedFile {
  return openVerified(boundaryReal, normalizeResourcePath(relPath, options.limits), options);
}

/**
 * openConfined for a path already known to pass the shared rules (a constant such as `SKILL.md`): the per-call rule
 * check is the only step skipped; the descriptor is verified the same way. Not exported from the package.
 */
export function openVerified(boundaryReal: string, rel: string, options: OpenConfinedOptions = {}): ConfinedFile {
  const follow = options.followLinksInside ?? false;
  const asked = joinReal(boundaryReal, rel);
  let fd: number;
  try {
    fd = fs.openSync(asked, follow ? BASE_FLAGS : BASE_FLAGS | NOFOLLOW);
  } catch (error) {
    throw openError(error, boundaryReal, rel, options.skillId);
  }
  try {
    const stats = fs.fstatSync(fd);
    const real = verifiedRealPath(
      fd,
      stats,
      boundaryReal,
      rel,
      asked,
      follow,
      options.verify ?? "auto",
      options.boundaryName ?? "its directory",
    );
    if (!stats.isFile())
      throw new ResourceNotFoundError(options.skillId ?? "", rel, `${JSON.stringify(rel)} is not a regular file`);
    if (options.refuseHardLinks && stats.nlink > 1) {
      throw new InvalidPathError(
        rel,
        `has ${stats.nlink} hard links; files with other names are not served from this tree`,
      );
    }
    return new Opened(fd, stats, real);
  } catch (error) {
    fs.closeSync(fd);
    if (error instanceof InvalidPathError || error instanceof ResourceNotFoundError) throw error;
    throw unavailable(rel, error);
  }
}

class Opened implements ConfinedFile {
  readonly fd: number;
  readonly size: number;
  readonly mode: number;
  readonly nlink: number;
  readonly realPath: string;
  #closed = false;

  constructor(fd: number, stats: Stats, realPath: string) {
    this.fd = fd;
    this.size = stats.size;
    this.mode = stats.mode;
    this.nlink = stats.nlink;
    this.realPath = realPath;
  }

  readAllSync(maxBytes: number, into?: Uint8Array): Uint8Array | undefined {
    const cap = maxBytes + 1;
    const want = Math.max(1, Math.min(this.size + 1, cap));
    // Unpooled memory, so the returned view owns its whole ArrayBuffer (unless the caller lent one).
    let buffer =
      into !== undefined && into.byteLength >= want
        ? Buffer.from(into.buffer, into.byteOffset, into.byteLength)
        : Buffer.allocUnsafeSlow(want);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length >= cap) break;
        const bigger = Buffer.allocUnsafeSlow(Math.min(buffer.length * 2, cap));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const read = fs.readSync(this.fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) return undefined;
    return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      fs.closeSync(this.fd);
    } catch {
      // nothing useful to do with a close error
    }
  }
}

/** Where the descriptor really points, checked against the boundary; throws InvalidPathError when it may not be read. */
function verifiedRealPath(
  fd: number,
  stats: Stats,
  boundaryReal: string,
  rel: string,
  asked: string,
  follow: boolean,
  verify: "auto" | "proc" | "path",
  boundaryName: string,
): string {
  const useProc = verify === "proc" || (verify === "auto" && haveProcFd());
  const real = useProc ? fs.readlinkSync(`/proc/self/fd/${fd}`) : pathIdentity(stats, boundaryReal, rel, asked, follow);
  if (real === asked) return real;
  if (!follow) throw new InvalidPathError(rel, "passes through a symbolic link; links are not served here");
  if (real === boundaryReal || !isInside(boundaryReal, real))
    throw new InvalidPathError(rel, `is a symbolic link that leads outside ${boundaryName}`);
  return real;
}

/**
 * Without /proc: the file at a link-free path inside the boundary (the asked path, or its real path when links inside
 * are followed) must be the very file that was opened (same device and inode), and the directories on the way must be
 * the same directories, unchanged (device, inode, change and modification times), before and after that lookup.
 * A swap that stays in place during the lookup makes them differ, so it is refused. This narrows the window to swaps
 * done and undone within one timestamp tick; closing it needs `openat`, which Node lacks, so `proc` is preferred
 * (docs/decisions/0122).
 */
function pathIdentity(stats: Stats, boundaryReal: string, rel: string, asked: string, follow: boolean): string {
  let candidate = asked;
  if (follow) {
    try {
      candidate = fs.realpathSync(asked);
    } catch {
      throw new InvalidPathError(rel, "changed while it was opened");
    }
    if (candidate === boundaryReal || !isInside(boundaryReal, candidate))
      throw new InvalidPathError(rel, "resolves outside its directory");
  }
  const segments = path.relative(boundaryReal, candidate).split(path.sep);
  const dirs = [
    boundaryReal,
    ...segments.slice(0, -1).map((_, i) => path.join(boundaryReal, ...segments.slice(0, i + 1))),
  ];
  const before = dirs.map((dir) => dirStamp(dir, rel));
  const found = fs.lstatSync(candidate, { throwIfNoEntry: false });
  const after = dirs.map((dir) => dirStamp(dir, rel));
  if (
    found === undefined ||
    found.isSymbolicLink() ||
    found.dev !== stats.dev ||
    found.ino !== stats.ino ||
    before.join() !== after.join()
  ) {
    throw new InvalidPathError(rel, "changed while it was opened");
  }
  return candidate;
}

function dirStamp(dir: string, rel: string): string {
  const info = fs.lstatSync(dir, { throwIfNoEntry: false, bigint: true });
  if (info === undefined || !info.isDirectory())
    throw new InvalidPathError(rel, "passes through a symbolic link; links are not served here");
  return `${info.dev}:${info.ino}:${info.ctimeNs}:${info.mtimeNs}`;
}

function openError(error: unknown, boundaryReal: string, rel: string, skillId: string | undefined): Error {
  const code = errorCode(error);
  if (code === "ELOOP" || code === "EMLINK") {
    // O_NOFOLLOW met a link as the last component, or a chain of links loops.
    return new InvalidPathError(rel, "is a symbolic link; links are not served here");
  }
  if (isMissing(error)) {
    // A dangling link says more than "not found": it is reported as the link it is.
    if (isDanglingLink(boundaryReal, rel))
      return new InvalidPathError(rel, "is a symbolic link whose target does not exist");
    return new ResourceNotFoundError(
      skillId ?? "",
      rel,
      skillId === undefined ? `not found: ${JSON.stringify(rel)}` : undefined,
    );
  }
  if (code === "ENXIO" || code === "EISDIR")
    return new ResourceNotFoundError(skillId ?? "", rel, `${JSON.stringify(rel)} is not a regular file`);
  return unavailable(rel, error);
}

function isDanglingLink(boundaryReal: string, rel: string): boolean {
  try {
    return fs.lstatSync(path.join(boundaryReal, ...rel.split("/"))).isSymbolicLink();
  } catch {
    return false;
  }
}

function unavailable(rel: string, error: unknown): SkillUnavailableError {
  return new SkillUnavailableError(`${JSON.stringify(rel)} cannot be read (${errorCode(error) ?? "unknown error"})`, {
    cause: error,
  });
}
