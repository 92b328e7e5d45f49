import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { errorCode } from "@skillport/fs";

/**
 * The one rule for a host-only folder (this package's state directory, a workspace's deploy state folder): a real
 * folder of this user's own that nobody else can enter, checked on the folder as opened (no link followed), not on an
 * earlier look at the path. A folder another user made (planted before us, in a shared parent) is refused, never
 * adopted: its owner could still rename, replace or link what we then write into it (issue 19). Returns what is wrong,
 * or undefined when the folder is fine. `fixMode`: take group and other bits away (through the descriptor) instead of
 * refusing them.
 */
export function privateDirProblem(dir: string, options: { fixMode: boolean }): string | undefined {
  const uid = process.getuid?.();
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    return code === "ELOOP" || code === "ENOTDIR"
      ? "is a symbolic link or not a folder"
      : `cannot be opened (${code ?? "error"})`;
  }
  try {
    const info = fstatSync(fd);
    if (uid !== undefined && info.uid !== uid) return `belongs to uid ${info.uid}, not to this user (uid ${uid})`;
    if ((info.mode & 0o077) === 0) return undefined;
    if (!options.fixMode) return `is open to other users (mode ${(info.mode & 0o777).toString(8)})`;
    fchmodSync(fd, info.mode & 0o700);
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * This user's host-only state directory for the sandbox (`<tmp>/skillport-<uid>`: the bwrap probe cache, the /etc
 * snapshots), when it passes `privateDirProblem` as it is (mode 0700). The temp directory's sticky bit keeps anyone else
 * from renaming it away afterwards. Undefined: do without it (no cache).
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
  return privateDirProblem(dir, { fixMode: false }) === undefined ? dir : undefined;
}
