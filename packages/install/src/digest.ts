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
  for (const f of [...kept].sort((a, b) => englishOrder(a.path, b.path))) {
    hash.update(f.path);
    hash.update(f.bytes);
  }
  return hash.digest("hex");
}

// Primary weights of the characters most paths are made of, in the order of ICU's root collation (which `en` keeps):
// `_ - . /`, then digits, then letters without regard to case.
const PRIMARY = new Map<string, number>(
  [..."_-./0123456789abcdefghijklmnopqrstuvwxyz"].flatMap((c, i) => [
    [c, i],
    [c.toUpperCase(), i],
  ]),
);
const PLAIN_PATH = /^[A-Za-z0-9_./-]*$/;

/**
 * `a.localeCompare(b, "en")`, the order Vercel's CLI hashes in, without ICU for paths of ASCII letters, digits and
 * `_ - . /`: the first collation in a process initialises ICU (~6–9 ms of a restore's CPU). Such characters differ
 * at the primary level (the map above, a shorter prefix first) and then only by case (lower before upper, at the
 * first difference). Any other character takes `localeCompare` itself. `digest.test.ts` checks the two agree.
 */
export function englishOrder(a: string, b: string): number {
  if (!PLAIN_PATH.test(a) || !PLAIN_PATH.test(b)) return a.localeCompare(b, "en");
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (PRIMARY.get(a[i] as string) ?? 0) - (PRIMARY.get(b[i] as string) ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  for (let i = 0; i < n; i++) {
    const upperA = a[i] !== (a[i] as string).toLowerCase();
    const upperB = b[i] !== (b[i] as string).toLowerCase();
    if (upperA !== upperB) return upperA ? 1 : -1;
  }
  return 0;
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
