// `@skillport/fs`, the one door: skills on a local disk (src/skills/: SkillDirectory, the source and provider, locators,
// the head reader, metadata, repository, roots, watch) over the Node floor (src/floor/, below).
export { LocalFileSystemSkillProvider, type LocalFileSystemProviderOptions } from "./skills/provider.js";
export {
  SkillDirectorySource,
  DEFAULT_HEAD_CHUNK_BYTES,
  type SkillDirectorySourceOptions,
} from "./skills/skill-source.js";
export {
  SkillDirectory,
  DEFAULT_MAX_LIST_FILES,
  DEFAULT_MAX_LIST_DEPTH,
  type SkillDirectoryOptions,
  type SkillProbe,
  type SkillProblem,
  type SkillProblemCode,
  type SkillInspection,
} from "./skills/skill-directory.js";
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
} from "./skills/locators.js";
export { SkillsRootError, SkillFileTooLargeError, ResourceTooLargeError } from "./skills/errors.js";
export { DEFAULT_WATCH_DEBOUNCE_MS, type WatchOptions } from "./skills/watch.js";
export { FileSystemSkillRepository, type FileSystemRepositoryOptions } from "./skills/repository.js";
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
} from "./skills/roots.js";
// The Node floor every other Node package stands on (src/floor/, whose modules import only each other and core): one
// confinement rule, one atomic write, one errno reading, the one bounded walker, confinement by the opened file and
// writes pinned by folder descriptors. A command that needs only these pays only for them: the CLI bundle keeps what
// it reaches ("sideEffects": false, decision 0310; guarded by packages/cli/src/start-up-graph.e2e.test.ts, 0311).
export { isInside, resolveConfined, type ResolveConfinedOptions } from "./floor/confine.js";
export { randomHex, siblingTemp, swapIntoPlace, tempName, writeFileAtomic } from "./floor/atomic.js";
export { errorCode, isMissing } from "./floor/errno.js";
export {
  MAX_REMOVE_DEPTH,
  openPinnedDir,
  PinnedDir,
  removePinnedTree,
  type FileOwner,
  type OpenDirOptions,
} from "./floor/dir-fd.js";
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
} from "./floor/walk.js";
export { openConfined, type OpenConfinedOptions, type ConfinedFile } from "./floor/open-confined.js";
export { DEFAULT_MAX_FILE_BYTES, SKILL_FILE_NAMES, skillFileAmong, type SkillFileName } from "./floor/file-limits.js";
export { readDirectorySync, type DirectoryEntries, type UndecodableEntry } from "./floor/dir-entries.js";
export { parseStateText, type StateSchema } from "./floor/state-file.js";
