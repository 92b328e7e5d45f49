import { closeSync, constants, fstatSync, mkdirSync, openSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * This user's host-only state directory for the sandbox (`<tmp>/skillport-<uid>`: the bwrap probe cache, the /etc
 * snapshots). Usable only when it is a real directory of this user's own that nobody else can enter (mode 0700):
 * checked on the directory as opened (no link followed), not on an earlier look at the path. The temp directory's
 * sticky bit keeps anyone else from renaming it away afterwards. Undefined: do without it (no cache).
 */
export function stateDir(create: boolean): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = path.join(os.tmpdir(), `skillport-${uid}`);
  if (create) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch {
      // Exists (checked below) or cannot be made.
    }
  }
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return undefined; // missing, a link, or not a directory
  }
  try {
    const info = fstatSync(fd);
    return info.uid === uid && (info.mode & 0o077) === 0 ? dir : undefined;
  } finally {
    closeSync(fd);
  }
}
