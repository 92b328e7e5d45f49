import { realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import {
  FlatRootLocator,
  SKILL_FILE_NAMES,
  SkillDirectory,
  type SkillDirectoryOptions,
  type SkillProbe,
  type SkillProblem,
} from "@skillport/fs";
import { CliError } from "./io.js";

/**
 * One folder the user pointed at (or that a folder of skills holds), judged by fs's one skill-directory policy: a
 * skill, or the problem that keeps it from being one (a folder without SKILL.md, a SKILL.md link leaving the skill…).
 * Nothing found is dropped: every folder looked at becomes a target (docs/decisions/0125).
 */
export type SkillTarget = { dir: string; dirName: string } & ({ skill: SkillDirectory } | { problem: SkillProblem });

/** A folder that simply is not a skill (no SKILL.md, a name that cannot be an id): a note, not a skill checked. */
export function isNotSkill(target: SkillTarget): boolean {
  return "problem" in target && target.problem.severity !== "error";
}

/**
 * Resolves command-line paths to skills. A path may be a skill folder, its SKILL.md (or skill.md), or a folder of
 * skills (every immediate subdirectory; hidden ones are skipped, as documented). A missing path, or a file that is not
 * a skill file, is a usage error (docs/decisions/0280).
 */
export async function resolveSkillTargets(
  paths: readonly string[],
  cwd: string,
  options: SkillDirectoryOptions = {},
): Promise<SkillTarget[]> {
  const targets: SkillTarget[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = statOrUndefined(absolute);
    if (!info) throw new CliError(`no such file or directory: ${given}`);
    if (info.isFile()) {
      if (!(SKILL_FILE_NAMES as readonly string[]).includes(path.basename(absolute))) {
        throw new CliError(`${given} is a file, not a skill: give a skill folder, its SKILL.md, or a folder of skills`);
      }
      // A skill file names its folder; the folder is judged whole (a SKILL.md link leaving it is refused).
      targets.push(probeFolder(path.dirname(absolute), options));
      continue;
    }
    const probe = probeSkillFolder(absolute, options);
    if (probe !== undefined) {
      targets.push(targetOf(absolute, probe));
      continue;
    }
    const rootReal = realpathSync(absolute);
    const located = await new FlatRootLocator(rootReal, options).locate();
    const byName = new Map<string, SkillTarget>();
    for (const [name, skill] of located.skills)
      byName.set(name, { dir: path.join(absolute, name), dirName: name, skill });
    for (const skipped of located.skipped)
      byName.set(skipped.where, { dir: path.join(absolute, skipped.where), dirName: skipped.where, problem: skipped });
    targets.push(...[...byName.keys()].sort(compare).map((name) => byName.get(name)!));
  }
  return targets;
}

function probeFolder(dir: string, options: SkillDirectoryOptions): SkillTarget {
  return targetOf(dir, SkillDirectory.probe(realpathSync(dir), options));
}

function targetOf(dir: string, probe: SkillProbe): SkillTarget {
  const dirName = path.basename(dir);
  return probe.ok ? { dir, dirName, skill: probe.skill } : { dir, dirName, problem: probe.problem };
}

/**
 * The CLI's one "is this a skill folder" check, by fs's one probe: a folder holding an entry named like a skill file,
 * of any type, is a skill folder, and the probe's answer is returned (the skill, or what is wrong with its skill file:
 * a link leaving it, a folder, unreadable…). A folder with no such entry is not one (undefined): a folder of skills.
 */
export function probeSkillFolder(dir: string, options: SkillDirectoryOptions = {}): SkillProbe | undefined {
  const probe = SkillDirectory.probe(realpathSync(dir), options);
  return !probe.ok && probe.problem.code === "skill-md-missing" ? undefined : probe;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// Blocking stats: resolving thousands of skill folders is little else (docs/decisions/0037-synchronous-small-reads.md).
function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
