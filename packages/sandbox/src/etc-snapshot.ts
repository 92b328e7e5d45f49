import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import path from "node:path";
import { isInside } from "@skillport/fs";
import { stateDir } from "./state-dir.js";

/**
 * The /etc a bubblewrap sandbox sees, as bwrap arguments. The allow-listed FILES are copied into a small snapshot bound
 * as /etc with one mount; the allow-listed DIRECTORIES (certificates, alternatives, loader config) are bound live on
 * top of empty mount points in it, so nothing large is copied and nothing inside them goes stale.
 *
 * The snapshot is host-only state shared by this user's processes (decision 0221): `etc-<hash>` in the sandbox state
 * directory (state-dir.ts: this user's own, mode 0700), named by everything it is built from, so a changed source names
 * a new one. Before each use it is checked entry by entry without following links: exactly the expected entries, each
 * this user's own and writable by nobody else, each file with its source's size and mtime (a copy edited in place has
 * a new mtime). A snapshot that fails is rebuilt beside it and renamed into place. Without a usable state directory, or
 * when the snapshot would lie inside a sandbox's writable directory, every entry is bound on its own instead.
 */
const LAYOUT_REVISION = 1;
const PREFIX = "etc-";
const BUILDING = ".etc-building-";
/** Snapshots kept besides the one in use: a long-lived sandbox may still mount an older one (sources changed since). */
const KEPT = 4;

interface Source {
  src: string;
  name: string;
  size: number;
  mtimeMs: number;
  mode: number;
}

export function etcMounts(sources: readonly string[], writableDirs: readonly string[]): string[] {
  const files: Source[] = [];
  const dirs: string[] = [];
  for (const src of sources) {
    try {
      const info = statSync(src); // follows links: a linked /etc/resolv.conf contributes its content
      if (info.isDirectory()) dirs.push(src);
      else if (info.isFile()) {
        accessSync(src, constants.R_OK); // unreadable for this user: the sandbox goes without it, as with a bind
        // Copies are never writable by group or others, whatever the source's mode.
        files.push({ src, name: path.basename(src), size: info.size, mtimeMs: info.mtimeMs, mode: info.mode & 0o755 });
      }
    } catch {
      // Not on this host, or not readable.
    }
  }
  const snapshot = snapshotOf(files, dirs, writableDirs);
  const args: string[] = [];
  if (snapshot !== undefined) {
    args.push("--ro-bind", snapshot, "/etc");
  } else {
    for (const { src } of files) args.push("--ro-bind", src, src);
  }
  for (const dir of dirs) args.push("--ro-bind", dir, dir);
  return args;
}

/** The snapshot folder bwrap arguments bind as /etc, or undefined when every entry is bound on its own. */
export function boundSnapshot(args: readonly string[]): string | undefined {
  const i = args.findIndex((a, k) => a === "--ro-bind" && args[k + 2] === "/etc");
  return i < 0 ? undefined : args[i + 1];
}

/** The checked snapshot, or undefined when there is no usable state directory or a writable directory holds it. */
function snapshotOf(
  files: readonly Source[],
  dirs: readonly string[],
  writableDirs: readonly string[],
): string | undefined {
  const parent = stateDir(true);
  if (parent === undefined) return undefined;
  const signature = JSON.stringify([LAYOUT_REVISION, process.getuid?.(), files, dirs]);
  const name =
    PREFIX + process.getBuiltinModule("node:crypto").createHash("sha256").update(signature).digest("hex").slice(0, 32);
  const dir = path.join(parent, name);
  // A sandbox could write a snapshot inside its writable directory: none is checked or built for it.
  if (writableDirs.some((w) => isInside(w, dir))) return undefined;
  if (intact(dir, files, dirs)) return dir;
  try {
    build(parent, dir, files, dirs);
  } catch {
    return undefined;
  }
  // Another process may have put its own copy in place meanwhile; whichever is there must pass the same check.
  if (!intact(dir, files, dirs)) return undefined;
  sweep(parent, name);
  return dir;
}

/** Whether `dir` is exactly the snapshot of `files` and `dirs`, made by this user and writable by nobody else. */
function intact(dir: string, files: readonly Source[], dirs: readonly string[]): boolean {
  const uid = process.getuid?.();
  try {
    const own = (info: { uid: number; mode: number }) => info.uid === uid && (info.mode & 0o022) === 0;
    const top = lstatSync(dir);
    if (!top.isDirectory() || !own(top)) return false;
    const expected = new Set([...files.map((f) => f.name), ...dirs.map((d) => path.basename(d))]);
    const present = readdirSync(dir);
    if (present.length !== expected.size || present.some((n) => !expected.has(n))) return false;
    for (const f of files) {
      const info = lstatSync(path.join(dir, f.name));
      if (!info.isFile() || !own(info) || info.size !== f.size || Math.abs(info.mtimeMs - f.mtimeMs) >= 1) return false;
    }
    for (const d of dirs) {
      const info = lstatSync(path.join(dir, path.basename(d)));
      if (!info.isDirectory() || !own(info)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Builds the snapshot in a private folder beside its final name, then renames it into place (a bad one first aside). */
function build(parent: string, dir: string, files: readonly Source[], dirs: readonly string[]): void {
  const temp = mkdtempSync(path.join(parent, BUILDING));
  try {
    for (const f of files) {
      const dest = path.join(temp, f.name);
      copyFileSync(f.src, dest);
      chmodSync(dest, f.mode);
      // The source's mtime marks the copy as unchanged (see intact); a copied file whose source changed meanwhile
      // keeps a size or mtime that no longer matches, and the next check rebuilds it.
      utimesSync(dest, f.mtimeMs / 1000, f.mtimeMs / 1000);
    }
    for (const d of dirs) mkdirSync(path.join(temp, path.basename(d)), { mode: 0o755 });
    chmodSync(temp, 0o755);
    try {
      renameSync(temp, dir);
    } catch {
      // Taken: by a bad snapshot (moved aside, removed) or by another process's good one (kept; ours is dropped).
      if (intact(dir, files, dirs)) return;
      const aside = mkdtempSync(path.join(parent, BUILDING));
      renameSync(dir, path.join(aside, "old"));
      rmSync(aside, { recursive: true, force: true });
      renameSync(temp, dir);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * Removes all but the newest few snapshots, and build folders left by processes that died. Off the path of every
 * run but one per /etc change. A build folder younger than a minute may belong to a process still building.
 */
function sweep(parent: string, current: string): void {
  try {
    const now = Date.now();
    const snapshots: Array<{ name: string; mtimeMs: number }> = [];
    for (const name of readdirSync(parent)) {
      if (name === current || !(name.startsWith(PREFIX) || name.startsWith(BUILDING))) continue;
      const { mtimeMs } = lstatSync(path.join(parent, name));
      if (name.startsWith(PREFIX)) snapshots.push({ name, mtimeMs });
      else if (now - mtimeMs > 60_000) rmSync(path.join(parent, name), { recursive: true, force: true });
    }
    snapshots.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const { name } of snapshots.slice(KEPT)) rmSync(path.join(parent, name), { recursive: true, force: true });
  } catch {
    // Left for the next sweep.
  }
}
