import { createHash } from "node:crypto";

/** One file of a skill as it is written: POSIX path relative to the skill folder, and its bytes. */
export interface SkillFileBytes {
  path: string;
  bytes: Uint8Array;
}

/**
 * The `computedHash` of Vercel's `skills-lock.json`: sha256 over every file's relative path then bytes, in path order
 * (`localeCompare`), skipping `.git` and `node_modules` folders — the same value their CLI computes from the installed
 * folder, so either tool verifies the other's lock (decision 0300).
 */
export function computedHash(files: readonly SkillFileBytes[]): string {
  const hash = createHash("sha256");
  const kept = files.filter((f) => !f.path.split("/").some((s) => s === ".git" || s === "node_modules"));
  for (const f of [...kept].sort((a, b) => a.path.localeCompare(b.path, "en"))) {
    hash.update(f.path);
    hash.update(f.bytes);
  }
  return hash.digest("hex");
}

/** sha256 of each file, by path (sorted), for the sidecar's per-file record. */
export function fileDigests(files: readonly SkillFileBytes[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    out[f.path] = sha256(f.bytes);
  return out;
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** What changed between a recorded per-file digest map and new files: paths added, removed and modified (sorted). */
export function changedFiles(
  before: Readonly<Record<string, string>>,
  files: readonly SkillFileBytes[],
): { added: string[]; removed: string[]; modified: string[] } {
  const after = fileDigests(files);
  const added = Object.keys(after).filter((p) => !(p in before));
  const removed = Object.keys(before)
    .filter((p) => !(p in after))
    .sort();
  const modified = Object.keys(after).filter((p) => p in before && before[p] !== after[p]);
  return { added, removed, modified };
}
