import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The /etc a bubblewrap sandbox sees: a private copy of an allow-list of host files, bound with ONE mount instead of
 * one per file (each mount costs bubblewrap time on every run). Rebuilt when a source changes (size or mtime);
 * removed at exit; copies left by processes that died are swept on first use.
 */
const PREFIX = "skillport-etc-";
let current: { signature: string; dir: string } | undefined;
let hooked = false;
let swept = false;

export function etcSnapshot(sources: readonly string[]): string | undefined {
  const present: Array<{ src: string; dir: boolean; mode: number }> = [];
  const parts: string[] = [];
  for (const src of sources) {
    try {
      const info = statSync(src); // follows links: a linked /etc/resolv.conf contributes its content
      present.push({ src, dir: info.isDirectory(), mode: info.mode & 0o7777 });
      parts.push(`${src}:${info.size}:${info.mtimeMs}`);
    } catch {
      // Not on this host.
    }
  }
  const signature = parts.join("|");
  if (current?.signature === signature) return current.dir;
  sweepDead();
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
    for (const { src, dir: isDir, mode } of present) {
      const dest = path.join(dir, path.basename(src));
      try {
        // Links inside directories stay links (ssl/certs points into /usr/share, which the sandbox also sees).
        if (isDir) cpSync(src, dest, { recursive: true, verbatimSymlinks: true });
        else {
          copyFileSync(src, dest);
          chmodSync(dest, mode);
        }
      } catch {
        // Unreadable for this user: the sandbox goes without it, as it would with a bind.
      }
    }
    chmodSync(dir, 0o755);
  } catch {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  if (current) rmSync(current.dir, { recursive: true, force: true });
  current = { signature, dir };
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      if (current) rmSync(current.dir, { recursive: true, force: true });
    });
  }
  return dir;
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
      if ((error as NodeJS.ErrnoException).code === "ESRCH") rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}
