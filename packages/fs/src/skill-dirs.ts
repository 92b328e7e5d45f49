import { lstatSync } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isSafeSkillId } from "@skillport/core";
import { isInside } from "./confine.js";
import { isMissing } from "./files.js";

/** Where a skill lives: its directory's REAL path and the name its SKILL.md has on disk. */
export interface SkillLocation {
  dir: string;
  file: "SKILL.md" | "skill.md";
  /** SKILL.md's size when the location was probed: checked against the limit before opening (reads stay bounded). */
  size: number;
  /** SKILL.md's identity and change times when probed: what a persistent metadata index is keyed by. */
  stamp: string;
}

export type Probe = { ok: true; location: SkillLocation } | { ok: false; reason: string };

/**
 * Decides whether `root/<name>` is a skill. `rootReal` must be a real path. A directory link counts only when it
 * resolves strictly inside the root; SKILL.md (or `skill.md` when SKILL.md is absent) must be a regular file, not a link.
 * `isLink` skips the lstat when discovery already knows the entry type from readdir.
 */
export async function probeSkillDir(rootReal: string, name: string, isLink?: boolean, sync = false): Promise<Probe> {
  let dir = path.join(rootReal, name);
  try {
    let link = isLink;
    if (link === undefined) {
      const stats = await lstat(dir);
      if (!stats.isDirectory() && !stats.isSymbolicLink()) return { ok: false, reason: "it is not a directory" };
      link = stats.isSymbolicLink();
    }
    if (link) {
      const real = await realpath(dir);
      if (real === rootReal || !isInside(rootReal, real)) return { ok: false, reason: "its directory is a link that leads outside the skills root" };
      if (!(await stat(real)).isDirectory()) return { ok: false, reason: "it is not a directory" };
      dir = real;
    }
  } catch (error) {
    if (isMissing(error)) return { ok: false, reason: "no such skill directory" };
    throw error;
  }
  for (const file of ["SKILL.md", "skill.md"] as const) {
    try {
      const target = path.join(dir, file);
      const stats = sync ? lstatSync(target) : await lstat(target);
      if (stats.isFile()) {
        const stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
        return { ok: true, location: { dir, file, size: stats.size, stamp } };
      }
      return { ok: false, reason: `its ${file} is ${stats.isSymbolicLink() ? "a link" : "not a regular file"}` };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  return { ok: false, reason: "it has no SKILL.md" };
}

/** Every skill directly beneath the root, by id. Dot-entries, loose files, unsafe names and escaping links are skipped. */
export async function scanSkillDirs(rootReal: string, sync = false): Promise<Map<string, SkillLocation>> {
  const entries = await readdir(rootReal, { withFileTypes: true });
  const candidates = entries.filter(
    (entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()) && isSafeSkillId(entry.name),
  );
  const probes = await Promise.all(
    candidates.map(async (entry) => {
      try {
        return [entry.name, await probeSkillDir(rootReal, entry.name, entry.isSymbolicLink(), sync)] as const;
      } catch {
        return [entry.name, { ok: false, reason: "unreadable" }] as const; // one unreadable entry never hides the rest
      }
    }),
  );
  const found = new Map<string, SkillLocation>();
  for (const [id, probe] of probes) if (probe.ok) found.set(id, probe.location);
  return found;
}
