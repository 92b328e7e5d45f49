// `@skillport/fs/tree`: the one bounded walker, confinement by the opened file and the one skill-file size limit,
// without the skill provider or discovery — for the packer and unpacker (decision 0202). Everything here is also
// exported by `@skillport/fs`.
export { DEFAULT_MAX_FILE_BYTES, SKILL_FILE_NAMES, skillFileAmong, type SkillFileName } from "./file-limits.js";
export {
  walkTree,
  DEFAULT_WALK_MAX_DEPTH,
  DEFAULT_WALK_MAX_FILES,
  DEFAULT_WALK_MAX_DIRS,
  type WalkOptions,
  type WalkResult,
  type WalkEntry,
  type WalkProblem,
  type WalkProblemKind,
  type WalkLimitName,
  type WalkExcluded,
  type WalkDirectory,
  type WalkLinkPolicy,
} from "./walk.js";
export { openConfined, type OpenConfinedOptions, type ConfinedFile } from "./open-confined.js";
