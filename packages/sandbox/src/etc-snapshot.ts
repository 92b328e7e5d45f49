import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isInside } from "@skillport/fs/floor";

/**
 * The /etc a bubblewrap sandbox sees, as bwrap arguments. The allow-listed FILES are copied into a small private
 * snapshot bound as /etc with one mount; the allow-listed DIRECTORIES (certificates, alternatives, loader config) are
 * bound live on top of empty mount points in it, so nothing large is copied and nothing inside them goes stale.
 * The snapshot is rebuilt when a file changes (size or mtime), removed at exit; copies left by processes that died
 * are swept on first use. When the snapshot would be writable from a sandbox (the temp directory inside its writable
 * directory) every entry is bound on its own instead.
 */
const PREFIX = "skillport-etc-";
interface Snapshot {
  signature: string;
  dir: string;
  /** What this process put in it: removed one by one at exit (a recursive rm costs a one-shot CLI a few ms). */
  files: string[];
  mountPoints: string[];
}

let current: Snapshot | undefined;
let hooked = false;
let swept = false;

export function etcMounts(sources: readonly string[], writableDirs: readonly string[]): string[] {
  const files: Array<{ src: string; mode: number }> = [];
  const dirs: string[] = [];
  const parts: string[] = [];
  for (const src of sources) {
    try {
      const info = statSync(src); // follows links: a linked /etc/resolv.conf contributes its content
      if (info.isDirectory()) dirs.push(src);
      else if (info.isFile()) {
        files.push({ src, mode: info.mode & 0o7777 });
        parts.push(`${src}:${info.size}:${info.mtimeMs}`);
      }
    } catch {
      // Not on this host.
    }
  }
  const snapshot = snapshotOf(files, dirs, `${parts.join("|")}#${dirs.join("|")}`);
  const args: string[] = [];
  if (snapshot !== undefined && !writableDirs.some((w) => isInside(w, snapshot))) {
    args.push("--ro-bind", snapshot, "/etc");
  } else {
    for (const { src } of files) args.push("--ro-bind", src, src);
  }
  for (const dir of dirs) args.push("--ro-bind", dir, dir);
  return args;
}

function snapshotOf(files: ReadonlyArray<{ src: string; mode: number }>, dirs: readonly string[], signature: string): string | undefined {
  if (current?.signature === signature && existsSync(current.dir)) return current.dir;
  sweepDead();
  let dir: string | undefined;
  const copied: string[] = [];
  const mountPoints: string[] = [];
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
    for (const { src, mode } of files) {
      const dest = path.join(dir, path.basename(src));
      try {
        copyFileSync(src, dest);
        copied.push(dest);
        chmodSync(dest, mode);
      } catch {
        // Unreadable for this user: the sandbox goes without it, as it would with a bind.
      }
    }
    for (const src of dirs) {
      const point = path.join(dir, path.basename(src));
      mkdirSync(point, { mode: 0o755 });
      mountPoints.push(point);
    }
    chmodSync(dir, 0o755);
  } catch {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  if (current) removeSnapshot(current);
  current = { signature, dir, files: copied, mountPoints };
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      if (current) removeSnapshot(current);
    });
  }
  return dir;
}

/** Removes what this process created; anything unexpected in the folder falls back to a recursive removal. */
function removeSnapshot(snapshot: Snapshot): void {
  try {
    for (const file of snapshot.files) unlinkSync(file);
    for (const point of snapshot.mountPoints) rmdirSync(point);
    rmdirSync(snapshot.dir);
  } catch {
    rmSync(snapshot.dir, { recursive: true, force: true });
  }
}

function sweepDead(): void {
  if (swept) return;
  swept = true;
  let names: string[];
  try {
    names = readdirSync(os.tmpdir()).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") continue;
      try {
        rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
      } catch {
        // Another user's snapshot (e.g. root's, seen by an unprivileged host): not ours to remove.
      }
    }
  }
}
