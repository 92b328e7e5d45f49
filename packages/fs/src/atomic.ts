import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** A sibling temp name, so the final rename never crosses file systems. */
export function siblingTemp(target: string, label: string): string {
  const suffix = `${Date.now()}-${randomBytes(4).toString("hex")}`;
  return path.join(path.dirname(target), `.tmp-${label}-${suffix}`);
}

/**
 * Writes a file so readers see either the old content or the whole new content, never a half: a sibling temp file
 * (created with `wx`, so a link planted at that name is never followed), then a rename. Creates the parent folder.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
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
