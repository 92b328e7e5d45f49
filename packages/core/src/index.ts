// The public face of @skillport/core: the model, parse / validate / serialise, the source contracts, the registry,
// the catalog, search and errors. Helpers that only Skillport's own packages use live in `./internal.ts`
// (`@skillport/core/internal`), which carries no semver promise. `face.test.ts` keeps this list from growing back.

// Types: every public type of the modules below.
export type * from "./types.js";
export type * from "./diagnostics.js";
export type * from "./errors.js";
export type * from "./skill.js";
export type * from "./source.js";
export type * from "./fields.js";
export type * from "./parse.js";
export type * from "./validate.js";
export type * from "./lint.js";
export type * from "./declaration.js";
export type * from "./safe-path.js";
export type * from "./memory.js";
export type * from "./registry.js";
export type * from "./catalog/index.js";
export type * from "./search/index.js";

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
export { DECLARATION_KEYS, DECLARATION_PREFIX, destinationText, effectivePolicy, parseDestination, readDeclaration } from "./declaration.js";
export { hasErrors } from "./diagnostics.js";
export { serializeFrontmatter, serializeSkillMd } from "./serialize.js";

// Safe ids and resource paths.
export { isSafeResourcePath, isSafeSkillId, normalizeResourcePath, requireSafeResourcePath, requireSafeSkillId } from "./safe-path.js";

// Sources, registry, catalog, search.
export { RESOURCE_KINDS } from "./types.js";
export { SkillSourceProvider, toSkillProvider } from "./source.js";
export { InMemorySkillRepository } from "./memory.js";
export { SkillRegistry } from "./registry.js";
export { CATALOG_FORMATS, DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION, DEFAULT_AGENTSCOPE_INSTRUCTION, DEFAULT_SEARCH_TOOL, LOAD_SKILL_TOOL_NAME, renderCatalog, renderCatalogWithCounts } from "./catalog/index.js";
export { SkillSearchIndex } from "./search/index.js";
