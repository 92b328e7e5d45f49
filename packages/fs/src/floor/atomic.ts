import { lstatSync, renameSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** A sibling temp name, so the final rename never crosses file systems. */
export function siblingTemp(target: string, label: string): string {
  return path.join(path.dirname(target), tempName(label));
}

/** The name of a temp entry for `label` (`.tmp-<label>-<time>-<random>`), for callers that work inside a folder. */
export function tempName(label: string): string {
  return `.tmp-${label}-${Date.now()}-${randomHex(4)}`;
}

/**
 * `bytes` random bytes as hex, for temp and aside names. `node:crypto` is fetched on the first call, not imported:
 * importing it loads ~20 of Node's internal modules, and every process that lists skills imports this floor while
 * only the ones that write need a random name (decision 0215).
 */
export function randomHex(bytes: number): string {
  return process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("hex");
}

/**
 * Puts the entry `staged` (a folder or link built beside `target`) at `target` by rename, replacing whatever is there
 * without a moment where neither is: an old entry is first renamed to `aside`, and renamed back when the move fails.
 * True when an old entry was set aside: the caller removes `aside` (slow, out of sight) once it no longer needs it.
 * All three paths must be on one file system (siblings, or `PinnedDir.at` names in one folder). The only routine that
 * swaps a folder into place (decision 0316).
 */
export function swapIntoPlace(staged: string, target: string, aside: string): boolean {
  if (lstatSync(target, { throwIfNoEntry: false }) === undefined) {
    renameSync(staged, target);
    return false;
  }
  renameSync(target, aside);
  try {
    renameSync(staged, target);
  } catch (error) {
    renameSync(aside, target);
    throw error;
  }
  return true;
}

/**
 * Writes a file so readers see either the old content or the whole new content, never a half: a sibling temp file
 * (created with `wx`, so a link planted at that name is never followed), then a rename. Creates the parent folder.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = siblingTemp(target, path.basename(target));
  try {
    await writeFile(temp, data, { flag: "wx", mode: options.mode ?? 0o644 });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
