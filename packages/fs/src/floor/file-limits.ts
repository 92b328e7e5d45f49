/** Largest file Skillport reads from a skill folder (SKILL.md, resources, packed files): the one skill-file limit. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
