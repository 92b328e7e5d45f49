import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isSafeResourcePath, type ResourceKind } from "@skillport/core";
import { isInside } from "./confine.js";
import { isMissing } from "./files.js";

/** The real path of `<skillDir>/<kind>` when it is a directory strictly inside the skill, else undefined. */
export async function kindDirReal(skillDirReal: string, kind: ResourceKind): Promise<string | undefined> {
  try {
    const real = await realpath(path.join(skillDirReal, kind));
    if (real === skillDirReal || !isInside(skillDirReal, real)) return undefined;
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The real path of `name` inside a kind folder, when it resolves (through links, if any) to a regular file strictly
 * inside that same folder; undefined otherwise. `name` must already be a single safe segment.
 */
export async function kindFileReal(kindReal: string, name: string): Promise<string | undefined> {
  try {
    const real = await realpath(path.join(kindReal, name));
    if (real === kindReal || !isInside(kindReal, real)) return undefined;
    return real;
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === "ELOOP") return undefined;
    throw error;
  }
}

/**
 * Regular files directly inside one kind folder, sorted. Dotfiles, subdirectories, names a getter would refuse, and
 * links that leave the folder or do not end at a regular file are skipped, never raised.
 */
export async function listKind(skillDirReal: string, kind: ResourceKind): Promise<string[]> {
  const kindReal = await kindDirReal(skillDirReal, kind);
  if (kindReal === undefined) return [];
  const entries = await readdir(kindReal, { withFileTypes: true });
  const names = await Promise.all(
    entries.map(async (entry) => {
      if (entry.name.startsWith(".") || !isSafeResourcePath(entry.name)) return undefined;
      if (entry.isFile()) return entry.name;
      if (!entry.isSymbolicLink()) return undefined;
      try {
        const real = await kindFileReal(kindReal, entry.name);
        return real !== undefined && (await stat(real)).isFile() ? entry.name : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return names.filter((name): name is string => name !== undefined).sort();
}
