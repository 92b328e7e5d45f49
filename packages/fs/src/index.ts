export {
  LocalFileSystemSkillProvider,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_HEAD_CHUNK_BYTES,
  DEFAULT_MAX_LIST_FILES,
  DEFAULT_MAX_LIST_DEPTH,
  type LocalFileSystemProviderOptions,
} from "./provider.js";
export { SkillsRootError, SkillFileTooLargeError, ResourceTooLargeError } from "./errors.js";
export { DEFAULT_WATCH_DEBOUNCE_MS, type WatchOptions } from "./watch.js";
export { FileSystemSkillRepository, type FileSystemRepositoryOptions } from "./repository.js";
export {
  discoverSkillRoots,
  createRootProviders,
  discoverSkillProviders,
  DEFAULT_SKILL_CLIENTS,
  DEFAULT_ROOTS_MAX_DEPTH,
  DEFAULT_ROOTS_MAX_DIRS,
  type SkillRoot,
  type SkillRootScope,
  type DiscoverSkillRootsOptions,
  type RootProvider,
} from "./roots.js";
// The Node floor every other Node package stands on: one confinement rule, one atomic write, one errno reading.
export { isInside, resolveConfined, type ResolveConfinedOptions } from "./confine.js";
export { siblingTemp, writeFileAtomic } from "./atomic.js";
export { errorCode, isMissing } from "./errno.js";
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
