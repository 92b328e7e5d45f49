import { computedHash, fileDigests, type SkillFileBytes } from "./digest.js";
import { InstallError } from "./errors.js";
import type { LockEntry, SidecarEntry } from "./lock.js";

/**
 * Checks fetched files against what the lock (and, when it still matches, the sidecar) says: the `computedHash`, then
 * every file's sha256. Throws INSTALL_DRIFT naming the skill and the first difference.
 */
export function verifyAgainstLock(
  name: string,
  files: readonly SkillFileBytes[],
  entry: LockEntry,
  sidecar?: SidecarEntry,
): void {
  const actual = computedHash(files);
  if (actual !== entry.computedHash) {
    throw new InstallError(
      `${name}: content does not match skills-lock.json (computedHash ${short(entry.computedHash)} expected, ${short(actual)} found)`,
      "INSTALL_DRIFT",
    );
  }
  if (sidecar === undefined) return;
  const digests = fileDigests(files);
  for (const file of new Set([...Object.keys(sidecar.files), ...Object.keys(digests)])) {
    if (sidecar.files[file] !== digests[file])
      throw new InstallError(`${name}/${file}: sha256 differs from skillport-lock.json`, "INSTALL_DRIFT");
  }
}

function short(hash: string): string {
  return hash.length > 12 ? `${hash.slice(0, 12)}…` : hash;
}
