import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError, normalizeResourcePath, ResourceNotFoundError, type SafePathLimits } from "@skillport/core";
import { isMissing } from "./errno.js";

export interface ResolveConfinedOptions {
  /**
   * Accept a target that does not exist yet (for writes): its deepest existing ancestor must be inside the root and
   * no missing component may be a dangling link. Default false.
   */
  allowMissing?: boolean;
  /** Names the skill in not-found errors (never the host path). */
  skillId?: string;
  limits?: Partial<SafePathLimits>;
}

/**
 * True when `childReal` is `parentReal` itself or lies below it. Both must already be real (symlink-free) absolute
 * paths; this is a path comparison, not a string-prefix test (`/a/bc` is not inside `/a/b`).
 */
export function isInside(parentReal: string, childReal: string): boolean {
  const rel = path.relative(parentReal, childReal);
  if (rel === "") return true;
  if (path.isAbsolute(rel)) return false; // another drive on Windows
  return rel !== ".." && !rel.startsWith(`..${path.sep}`);
}

/**
 * `path.join(baseReal, rel)` for a base that is already an absolute, normalised real path and a `rel` that already
 * passed the shared path rules (POSIX separators, no empty, `.` or `..` segments) or is one name read from a
 * directory: plain concatenation, since per-skill paths are built tens of thousands of times in a listing and
 * `path.join` re-normalises both halves each time.
 */
export function joinReal(baseReal: string, rel: string): string {
  const native = path.sep === "/" ? rel : rel.split("/").join(path.sep);
  return baseReal.endsWith(path.sep) ? baseReal + native : baseReal + path.sep + native;
}

/**
 * Resolves `relPath` (checked by the shared safe-path rules) against `rootDir` and returns the target's REAL absolute
 * path, guaranteeing by `realpath` that it stays inside the real path of `rootDir` even when links are involved.
 * - unsafe path or a link that escapes → InvalidPathError (message names only the relative path)
 * - missing target (without `allowMissing`) → ResourceNotFoundError
 * - missing root → the underlying Node error (a configuration problem, not a lookup)
 */
export async function resolveConfined(
  rootDir: string,
  relPath: string,
  options: ResolveConfinedOptions = {},
): Promise<string> {
  const segments = normalizeResourcePath(relPath, options.limits).split("/");
  const rootReal = await realpath(rootDir);
  const target = path.join(rootReal, ...segments);
  try {
    return checkInside(rootReal, await realpath(target), relPath);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (!options.allowMissing) throw notFound(options.skillId, relPath);
  // Walk up to the deepest ancestor that exists; every missing component must be truly absent (not a dangling link,
  // which a later write would follow out of the root).
  for (let keep = segments.length - 1; keep >= 0; keep--) {
    const ancestor = path.join(rootReal, ...segments.slice(0, keep));
    let ancestorReal: string;
    try {
      ancestorReal = await realpath(ancestor);
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    checkInside(rootReal, ancestorReal, relPath);
    for (let i = keep; i < segments.length; i++) {
      const missing = path.join(ancestorReal, ...segments.slice(keep, i + 1));
      if (await exists(missing)) throw new InvalidPathError(relPath, "passes through a dangling link");
    }
    return path.join(ancestorReal, ...segments.slice(keep));
  }
  /* c8 ignore next */ throw notFound(options.skillId, relPath); // unreachable: the root itself exists
}

function checkInside(rootReal: string, real: string, relPath: string): string {
  if (!isInside(rootReal, real)) throw new InvalidPathError(relPath, "resolves outside its directory");
  return real;
}

function notFound(skillId: string | undefined, relPath: string): ResourceNotFoundError {
  return new ResourceNotFoundError(
    skillId ?? "",
    relPath,
    skillId === undefined ? `not found: ${JSON.stringify(relPath)}` : undefined,
  );
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}
