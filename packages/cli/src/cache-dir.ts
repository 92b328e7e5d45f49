import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";

// Kept free of Skillport's packages: the warm `search` path imports it before anything else is loaded.

/** Where the CLI keeps caches: --cache-dir, else $SKILLPORT_CACHE_DIR, else $XDG_CACHE_HOME/skillport, else ~/.cache/skillport. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (env.SKILLPORT_CACHE_DIR) return path.resolve(env.SKILLPORT_CACHE_DIR);
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, ".cache");
  return path.join(base, "skillport");
}

/** A short name for a cache file, from what the cache is for (roots, options). */
export function cacheFileName(kind: string, parts: readonly string[]): string {
  return `${kind}-${createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 16)}.json`;
}
