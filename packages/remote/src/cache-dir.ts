import { createHash, createHmac, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, mkdir, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { errorCode, tempName } from "@skillport/fs";
import { RemoteSourceError } from "./errors.js";

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
  await createPrivateDir(dir);
  return dir;
}

/** ensurePrivateDir, telling whether the folder was missing (made now, so empty). */
async function createPrivateDir(dir: string): Promise<boolean> {
  return (await mkdir(dir, { recursive: true, mode: 0o700 })) !== undefined;
}

const KEY_FILE = "identity.key";
const KEY_BYTES = 32;

/**
 * The folder inside a source's cache folder that holds the copies made with one set of credentials (decision 0240):
 * `<cacheDir>/id-<HMAC-SHA256(key, credentials)>`. Anonymous access is an identity too. The key is 32 random bytes
 * kept in `<cacheDir>/identity.key` (0600, created once), so a folder name tells nothing about a password and cannot
 * be tested against guesses without the key. `credentials` is every value that may grant access (user, password,
 * token, request headers), in a fixed order.
 * Also says whether the cache folder was made by this call: then nothing can be kept in it yet, and neither the key
 * nor a state file is looked for (a first run's reads that can only fail, before its first fetch).
 */
export async function openIdentityDir(
  cacheDir: string,
  credentials: readonly (readonly [string, string])[],
): Promise<{ dir: string; fresh: boolean }> {
  const fresh = await createPrivateDir(cacheDir);
  const key = await readOrCreateKey(path.join(cacheDir, KEY_FILE), fresh);
  const digest = createHmac("sha256", key).update(JSON.stringify(credentials)).digest("hex").slice(0, 32);
  return { dir: path.join(cacheDir, `id-${digest}`), fresh };
}

/**
 * Reads the key; creates it first when missing (a temp file linked into place, so two processes agree on one key).
 * The key this process linked into place is the one it wrote; one another process linked first is read back.
 */
async function readOrCreateKey(file: string, fresh: boolean): Promise<Buffer> {
  const kept = fresh ? undefined : await readKey(file);
  if (kept !== undefined) return kept;
  const temp = path.join(path.dirname(file), tempName(KEY_FILE));
  const written = randomBytes(KEY_BYTES);
  let linked = false;
  try {
    await writeFile(temp, written, { flag: "wx", mode: 0o600 });
    linked = await link(temp, file).then(
      () => true,
      (error: unknown) => {
        if (errorCode(error) !== "EEXIST") throw error;
        return false;
      },
    );
  } finally {
    // The temp name goes either way; nothing waits for it (a leftover is a private file no one reads).
    void rm(temp, { force: true }).catch(() => undefined);
  }
  if (linked) return written;
  const key = await readKey(file);
  if (key === undefined) throw new RemoteSourceError(`the cache key ${file} could not be created`, "REMOTE_CONFIG");
  return key;
}

/** The key, or undefined when there is none; a key that is a link, not ours, readable by others or short is refused. */
async function readKey(file: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new RemoteSourceError(
      `the cache key ${file} cannot be opened (${errorCode(error) ?? "error"}); remove it`,
      "REMOTE_CONFIG",
      { cause: error },
    );
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (
      !info.isFile() ||
      info.size !== KEY_BYTES ||
      (info.mode & 0o077) !== 0 ||
      (uid !== undefined && info.uid !== uid)
    ) {
      throw new RemoteSourceError(
        `the cache key ${file} is not a private ${KEY_BYTES}-byte file of this user; remove it`,
        "REMOTE_CONFIG",
      );
    }
    const key = Buffer.alloc(KEY_BYTES);
    const { bytesRead } = await handle.read(key, 0, KEY_BYTES, 0);
    if (bytesRead !== KEY_BYTES)
      throw new RemoteSourceError(`the cache key ${file} could not be read whole; remove it`, "REMOTE_CONFIG");
    return key;
  } finally {
    await handle.close();
  }
}
