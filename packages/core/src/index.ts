// The public face of @skillport/core: the model, parse / validate / serialise, the source contracts, the registry,
// the catalog, search and errors — every name listed here, values and types, is a semver promise (decision 0310).
// Helpers that only Skillport's own packages use live in `./internal.ts` (`@skillport/core/internal`, the one other
// door), which carries no semver promise. `face.test.ts` keeps both lists from growing back.

// Types: the model, sources and diagnostics.
export type {
  Frontmatter,
  FrontmatterValue,
  ResourceKind,
  ResourceListing,
  SaveOptions,
  SaveResult,
  SkillFile,
  SkillProvider,
  SkillRepository,
  SkillRepositoryInfo,
  SkillSource,
} from "./types.js";
export type { Diagnostic, Severity } from "./diagnostics.js";
export type { AgentSkillsErrorCode } from "./errors.js";
export type { ResourceContent } from "./skill.js";
export type { SkillFields } from "./fields.js";
// Types: SKILL.md and safe paths.
export type { ParseLimits, ParseOptions, ParsedFrontmatter, ParsedSkillMd, StrictYamlFinding } from "./parse.js";
export type { ProfileName, ValidateOptions, ValidationResult } from "./validate.js";
export type { LintInput, LintLimits } from "./lint.js";
export type { SafePathLimits } from "./safe-path.js";
// Types: memory, registry, catalog, search.
export type { InMemorySkillRepositoryOptions } from "./memory.js";
export type {
  AddProviderOptions,
  RegistrationFailure,
  RegistrationReport,
  RegistryChange,
  RegistryEntry,
  RegistrySearchOptions,
  SearchDocumentCache,
  Shadowing,
  SkillRegistryEvents,
  SkillRegistryOptions,
} from "./registry.js";
export type {
  CatalogCounts,
  CatalogEntry,
  CatalogFormat,
  CatalogOptions,
  RenderedCatalog,
  TokenCounter,
  TokenEncoding,
} from "./catalog/index.js";
export type {
  AnalyseOptions,
  AnalysedSkill,
  ConfidenceFeatures,
  ConfidenceModel,
  FieldWeights,
  SearchDocument,
  SearchField,
  SearchHit,
  SearchIndexExport,
  SearchIndexOptions,
  SearchOptions,
  SearchPage,
  SearchPageOptions,
} from "./search/index.js";
export type {
  DeclarationKey,
  DeclarationProblem,
  DeclarationResult,
  EffectivePolicy,
  Narrowing,
  NetworkDestination,
  OperatorPolicy,
  SkillDeclaration,
} from "./declaration.js";

// Errors: one root, stable codes.
export {
  AgentSkillsError,
  DiscoveryNotSupportedError,
  FileAccessNotSupportedError,
  InvalidPathError,
  LimitExceededError,
  MissingDependencyError,
  ProviderUnavailableError,
  RepositoryReadOnlyError,
  ResourceListingNotSupportedError,
  ResourceNotFoundError,
  SkillExistsError,
  SkillNotFoundError,
  SkillUnavailableError,
  SkillValidationError,
} from "./errors.js";
export { TokenizerUnavailableError } from "./catalog/tokens.js";

// The model.
export { Skill, SkillBuilder } from "./skill.js";
export { createSkillFrom } from "./create-from.js";
export { skillFields } from "./fields.js";

// SKILL.md: parse, validate, lint, serialise.
export { parseFrontmatter, parseSkillMd } from "./parse.js";
export { PROFILE_NAMES, validateFrontmatter, validateSkillMd } from "./validate.js";
export { lintSkill } from "./lint.js";
export {
  DECLARATION_KEYS,
  DECLARATION_PREFIX,
  destinationText,
  effectivePolicy,
  parseDestination,
  readDeclaration,
} from "./declaration.js";
export { hasErrors } from "./diagnostics.js";
export { serializeFrontmatter, serializeSkillMd } from "./serialize.js";

// Safe ids and resource paths.
export {
  isSafeResourcePath,
  isSafeSkillId,
  normalizeResourcePath,
  requireSafeResourcePath,
  requireSafeSkillId,
} from "./safe-path.js";

// Sources, registry, catalog, search.
export { RESOURCE_KINDS } from "./types.js";
export { SkillSourceProvider, toSkillProvider } from "./source.js";
export { InMemorySkillRepository } from "./memory.js";
export { SkillRegistry } from "./registry.js";
export {
  CATALOG_FORMATS,
  DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION,
  DEFAULT_AGENTSCOPE_INSTRUCTION,
  DEFAULT_SEARCH_TOOL,
  LOAD_SKILL_TOOL_NAME,
  renderCatalog,
  renderCatalogWithCounts,
} from "./catalog/index.js";
export { SkillSearchIndex } from "./search/index.js";
