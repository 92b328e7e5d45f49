// Skill packages: layout check, exclusions, deterministic ZIP, versionId, safe unpack, .skill import/export.
export { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./limits.js";
export {
  DEFAULT_EXCLUSIONS,
  SECRET_PATTERNS,
  PROTECTED_PATTERNS,
  ExclusionRules,
  type ExclusionVerdict,
  type ExclusionKind,
} from "./exclusions.js";
export { collectFiles, type CollectedFile, type ExcludedEntry, type Collected, type CollectOptions } from "./walk.js";
export {
  computeVersionId,
  canonicalText,
  isVersionId,
  CANONICAL_HEADER,
  type CanonicalFile,
  type VersionInfo,
} from "./version.js";
export { writeDeterministicZip, DeterministicZip, type ZipInput, type ZipWriteOptions } from "./zip-writer.js";
export {
  checkLayout,
  DEFAULT_PACKAGE_PROFILE,
  type PackageSkill,
  type LayoutReport,
  type LayoutOptions,
} from "./layout.js";
export {
  packDirectory,
  packDirectoryToFile,
  checkPackageLayout,
  describeDirectory,
  type PackOptions,
  type PackResult,
  type PackageManifest,
  type ManifestFile,
  type CollectPackageOptions,
} from "./pack.js";
export { ArchiveError, type ArchiveRejection } from "./errors.js";
export {
  readArchive,
  detectArchiveFormat,
  type ArchiveFormat,
  type ArchiveFile,
  type ArchiveContents,
  type ReadArchiveOptions,
} from "./archive/read.js";
export { unpackArchive, type UnpackOptions, type UnpackResult } from "./unpack.js";
export { inspectPackage, type InspectOptions, type PackageInspection } from "./inspect.js";
export {
  exportSkill,
  exportSkillToFile,
  importSkill,
  skillArchiveRoot,
  DEFAULT_SKILL_FILE_PROFILE,
  type ExportSkillOptions,
  type ExportSkillResult,
  type ImportSkillOptions,
  type ImportSkillResult,
} from "./skill-file.js";
