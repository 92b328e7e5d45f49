/** Largest file Skillport reads from a skill folder (SKILL.md, resources, packed files): the one skill-file limit. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * The skill file's names, in order: `SKILL.md`, and `skill.md` when SKILL.md is absent (the reference validator
 * accepts it). One rule for every reader: providers, validate, list, show, export, pack and deploy
 * (docs/decisions/0124). Defined on the floor, beside the one size limit, so the packer names skill files by the same
 * rule as SkillDirectory without loading it.
 */
export const SKILL_FILE_NAMES = ["SKILL.md", "skill.md"] as const;
export type SkillFileName = (typeof SKILL_FILE_NAMES)[number];

/** A folder's skill file by that rule, given which names it holds (`has`): the first present, or undefined. */
export function skillFileAmong(has: (name: SkillFileName) => boolean): SkillFileName | undefined {
  return SKILL_FILE_NAMES.find(has);
}
