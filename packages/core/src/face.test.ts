// The public face of @skillport/core (issue 7): every value exported from the main entry is a semver promise, so
// the list is written down here. Adding a name means adding it below on purpose; a helper only Skillport's own
// packages need goes to `@skillport/core/internal` instead.
import { describe, expect, it } from "vitest";
import * as core from "./index.js";
import * as internal from "./internal.js";

const PUBLIC_VALUES = [
  // errors
  "AgentSkillsError", "DiscoveryNotSupportedError", "FileAccessNotSupportedError", "InvalidPathError", "LimitExceededError", "MissingDependencyError",
  "ProviderUnavailableError", "RepositoryReadOnlyError", "ResourceListingNotSupportedError", "ResourceNotFoundError",
  "SkillExistsError", "SkillNotFoundError", "SkillUnavailableError", "SkillValidationError", "TokenizerUnavailableError",
  // the model
  "Skill", "SkillBuilder", "createSkillFrom", "skillFields",
  // SKILL.md
  "parseFrontmatter", "parseSkillMd", "PROFILE_NAMES", "validateFrontmatter", "validateSkillMd", "lintSkill", "hasErrors",
  "serializeFrontmatter", "serializeSkillMd",
  // least-privilege declarations (issue 26)
  "DECLARATION_KEYS", "DECLARATION_PREFIX", "destinationText", "effectivePolicy", "parseDestination", "readDeclaration",
  // safe ids and paths
  "isSafeResourcePath", "isSafeSkillId", "normalizeResourcePath", "requireSafeResourcePath", "requireSafeSkillId",
  // sources, registry, catalog, search
  "RESOURCE_KINDS", "SkillSourceProvider", "toSkillProvider", "InMemorySkillRepository", "SkillRegistry",
  "CATALOG_FORMATS", "DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION", "DEFAULT_AGENTSCOPE_INSTRUCTION", "DEFAULT_SEARCH_TOOL", "LOAD_SKILL_TOOL_NAME", "renderCatalog", "renderCatalogWithCounts",
  "SkillSearchIndex",
];

describe("@skillport/core's public face", () => {
  it("exports exactly the listed values", () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_VALUES].sort());
  });

  it("keeps sibling helpers out of the main entry, in the internal subpath", () => {
    const internalNames = Object.keys(internal);
    expect(internalNames.length).toBeGreaterThan(20);
    expect(internalNames.filter((name) => name in core)).toEqual([]);
  });
});
