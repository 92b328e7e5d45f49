import { lstat, mkdir, readFile, realpath } from "node:fs/promises";
import { InvalidPathError } from "@skillport/core";
import { isInside, writeFileAtomic } from "@skillport/fs";
import path from "node:path";

/** Reads a JSON object; anything missing or malformed reads as `{}` (the files this is used for are caches). */
export async function readJsonRecord(file: string): Promise<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(await readFile(file, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Writes JSON so readers see the old file or the whole new one (temp file + rename). */
export async function writeJsonAtomic(file: string, value: unknown, confineTo?: string): Promise<void> {
  // Check before mkdir: a recursive mkdir would follow a planted link and create directories outside.
  if (confineTo !== undefined) await assertInside(confineTo, path.dirname(file), true);
  await mkdir(path.dirname(file), { recursive: true });
  if (confineTo !== undefined) await assertInside(confineTo, path.dirname(file));
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + "\n", { mode: 0o600 });
}

/**
 * Sandboxed code can write the workspace, so it can replace a directory the host is about to write into with a link
 * to somewhere else. Host-side writes check the real path first.
 */
export async function assertInside(root: string, dir: string, allowMissing = false): Promise<void> {
  const rootReal = await realpath(root);
  let existing = path.resolve(dir);
  // With allowMissing, judge the deepest ancestor that exists (what a recursive mkdir would start from).
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      if (!allowMissing || (error as NodeJS.ErrnoException).code !== "ENOENT" || path.dirname(existing) === existing) throw error;
      existing = path.dirname(existing);
    }
  }
  const dirReal = await realpath(existing);
  if (!isInside(rootReal, dirReal)) {
    throw new InvalidPathError(path.relative(root, dir), "resolves outside the workspace (a symbolic link?); refusing to write there");
  }
}
