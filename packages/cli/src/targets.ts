import { lstatSync, statSync, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { compareCodeUnits } from "@skillport/core";
import { CliError } from "./io.js";

/** One skill the user pointed at: its directory and its SKILL.md (which may be absent or broken). */
export interface SkillTarget {
  dir: string;
  skillMd: string;
  dirName: string;
}

const SKILL_FILE_NAMES = ["SKILL.md", "skill.md"];

/**
 * Resolves command-line paths to skills. A path may be a skill directory, a SKILL.md file, or a folder of skills
 * (every immediate subdirectory holding a SKILL.md). A missing path is a usage error.
 */
export async function resolveSkillTargets(paths: readonly string[], cwd: string): Promise<SkillTarget[]> {
  const targets: SkillTarget[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = statOrUndefined(absolute);
    if (!info) throw new CliError(`no such file or directory: ${given}`);
    if (info.isFile()) {
      const dir = path.dirname(absolute);
      targets.push({ dir, skillMd: absolute, dirName: path.basename(dir) });
      continue;
    }
    const own = findSkillFile(absolute);
    if (own) {
      targets.push({ dir: absolute, skillMd: own, dirName: path.basename(absolute) });
      continue;
    }
    for (const entry of (await readdir(absolute, { withFileTypes: true })).sort((a, b) => compareCodeUnits(a.name, b.name))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const child = path.join(absolute, entry.name);
      if (!statOrUndefined(child)?.isDirectory()) continue;
      const skillMd = findSkillFile(child);
      if (skillMd) targets.push({ dir: child, skillMd, dirName: entry.name });
    }
  }
  return targets;
}

/** The skill's SKILL.md path when the directory has an entry by that name (even a broken one: the reader reports it). */
function findSkillFile(dir: string): string | undefined {
  for (const name of SKILL_FILE_NAMES) {
    const candidate = path.join(dir, name);
    if (lstatOrUndefined(candidate)) return candidate;
  }
  return undefined;
}

export function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

// Blocking stats: resolving thousands of skill folders is little else (docs/decisions/0037-synchronous-small-reads.md).
export function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A path for people: relative to the working directory, with forward slashes. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file) || ".";
  return relative.split(path.sep).join("/");
}
