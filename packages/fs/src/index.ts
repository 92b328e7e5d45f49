export {
  LocalFileSystemSkillProvider,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_HEAD_CHUNK_BYTES,
  DEFAULT_MAX_LIST_FILES,
  DEFAULT_MAX_LIST_DEPTH,
  type LocalFileSystemProviderOptions,
} from "./provider.js";
export { SkillDirectorySource, type SkillDirectorySourceOptions } from "./skill-source.js";
export {
  SkillDirectory,
  SKILL_FILE_NAMES,
  type SkillFileName,
  type SkillDirectoryOptions,
  type SkillProbe,
  type SkillProblem,
  type SkillProblemCode,
  type SkillInspection,
} from "./skill-directory.js";
export {
  FlatRootLocator,
  SkillListLocator,
  scanNestedSkills,
  DEFAULT_NESTED_SKIP_DIRS,
  type SkillLocator,
  type LocatedSkills,
  type SkippedSkill,
  type NestedScanOptions,
  type NestedScanResult,
  type NestedSkill,
} from "./locators.js";
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
// The Node floor every other Node package stands on: one confinement rule, one atomic write, one errno reading, the
// one bounded walker and confinement by the opened file. The light subpaths `@skillport/fs/floor` and `/tree` hold
// them (decision 0202); the main entry re-exports both.
export * from "./floor.js";
export * from "./tree.js";
export { resolveConfined, type ResolveConfinedOptions } from "./confine.js";
export { readDirectorySync, type DirectoryEntries, type UndecodableEntry } from "./dir-entries.js";
