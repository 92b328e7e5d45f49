import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * The folder under which remote sources keep what they fetched: `$SKILLPORT_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/skillport`, else `~/.cache/skillport`.
 */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILLPORT_CACHE_DIR) return path.resolve(env.SKILLPORT_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), "skillport");
  return path.join(os.homedir(), ".cache", "skillport");
}

/** A stable folder name for one remote address (hashed: the name must not carry the address, which may be long). */
export function cacheKey(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32);
}

/** Creates a cache folder readable by this user only (it may hold private repositories). */
export async function ensurePrivateDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
