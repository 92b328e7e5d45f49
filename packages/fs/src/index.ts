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
