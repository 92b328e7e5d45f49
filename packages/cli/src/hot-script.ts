// Runs a hot command's one-file script (dist/cli-<command>.cjs) from a V8 code cache (decision 0446). Node 20 keeps no
// compiled code between runs (`module.enableCompileCache` is Node 22), so every start parses and compiles the modules
// it loads again; a script compiled with the cached data V8 produced after an earlier run starts with the functions
// that run already compiled. The cache is code: it is read only from a folder and a file of this user that no one else
// can write, through the opened folder's descriptor, and V8 refuses data made for another source, V8 or flag set.
import fs, { constants, type Stats } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { openPinnedDir, readDirectorySync, type PinnedDir } from "@skillport/fs";
import { defaultCacheDir } from "./cache-dir.js";

/** The most cached data read for one script; a larger file is not ours (a full cache is ~0.7 MB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
const CACHE_SUFFIX = ".v8cache";
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {";

type HotModule = { exports: { run?: (argv: readonly string[]) => Promise<number> } };

/**
 * Compiles and runs `script` (a CommonJS script whose exports have `run`) with the cached data kept for it, and returns
 * what `run(argv)` returns. When there was no usable cache, V8's data for the script as it ran is written for the
 * next run. A cache that cannot be read or written is skipped in silence: it only ever costs the compile.
 */
export async function runHotScript(script: URL, argv: readonly string[]): Promise<number> {
  const file = fileURLToPath(script);
  // One open: the script's bytes and the stat its cache is named by come from the same file.
  const fd = fs.openSync(file, constants.O_RDONLY);
  let source: string;
  let name: string;
  try {
    const st = fs.fstatSync(fd);
    name = cacheName(file, st);
    source = fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
  const dir = openCacheDir();
  const cachedData = dir && readCache(dir, name);
  const compiled = new vm.Script(`${WRAPPER}\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    ...(cachedData !== undefined && { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const hot: HotModule = { exports: {} };
  (compiled.runInThisContext() as (...args: unknown[]) => void).call(
    hot.exports,
    hot.exports,
    createRequire(file),
    hot,
    file,
    path.dirname(file),
  );
  if (typeof hot.exports.run !== "function") throw new Error(`${file} is not a hot command's script (no run)`);
  try {
    return await hot.exports.run(argv);
  } finally {
    if (dir && (cachedData === undefined || compiled.cachedDataRejected === true))
      writeCache(dir, name, `${path.basename(file, ".cjs")}-`, compiled);
    dir?.close();
  }
}

/** `<script>-<V8>-<arch>-<size>-<mtime>-<inode>.v8cache`: a rebuilt or moved script has a cache of its own. */
function cacheName(file: string, st: Stats): string {
  const v8 = process.versions.v8.replace(/[^\w.]/g, "_");
  return `${path.basename(file, ".cjs")}-${v8}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}${CACHE_SUFFIX}`;
}

/** Owned by this user and writable by no one else. */
function privateToUs(st: Stats): boolean {
  return st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
}

/** `<cache folder>/code`, made private when missing, opened without following a link; undefined when not ours. */
function openCacheDir(): PinnedDir | undefined {
  let dir: PinnedDir | undefined;
  try {
    const root = defaultCacheDir();
    fs.mkdirSync(path.join(root, "code"), { recursive: true, mode: 0o700 });
    dir = openPinnedDir(root, "code");
    if (privateToUs(fs.fstatSync(dir.fd))) return dir;
  } catch {
    // no cache folder: the script compiles as it would without one
  }
  dir?.close();
  return undefined;
}

function readCache(dir: PinnedDir, name: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || !privateToUs(st) || st.size === 0 || st.size > MAX_CACHE_BYTES) return undefined;
    const data = Buffer.allocUnsafe(st.size);
    let read = 0;
    while (read < data.length) {
      const n = fs.readSync(fd, data, read, data.length - read, read);
      if (n === 0) return undefined;
      read += n;
    }
    return data;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces the cache (a temp file renamed into place) and removes the caches of earlier builds of the same script. */
function writeCache(dir: PinnedDir, name: string, prefix: string, script: vm.Script): void {
  try {
    dir.replaceFile(name, script.createCachedData(), 0o600);
    for (const { name: entry } of readDirectorySync(dir.self()).entries)
      if (entry !== name && entry.startsWith(prefix) && entry.endsWith(CACHE_SUFFIX)) fs.rmSync(dir.at(entry));
  } catch {
    // a read-only or full cache folder: the next run compiles again
  }
}
