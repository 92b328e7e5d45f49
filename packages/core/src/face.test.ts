// The public face of @skillport/core (issue 7, issue 21): every value and type exported from the main entry is a semver
// promise, so both lists are written down here. Adding a name means adding it below on purpose; a helper only
// Skillport's own packages need goes to `@skillport/core/internal` instead (decision 0310).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as core from "./index.js";
import * as internal from "./internal.js";

const PUBLIC_VALUES = [
  // errors
  "AgentSkillsError",
  "DiscoveryNotSupportedError",
  "FileAccessNotSupportedError",
  "InvalidPathError",
  "LimitExceededError",
  "MissingDependencyError",
  "ProviderUnavailableError",
  "RepositoryReadOnlyError",
  "ResourceListingNotSupportedError",
  "ResourceNotFoundError",
  "SkillExistsError",
  "SkillNotFoundError",
  "SkillUnavailableError",
  "SkillValidationError",
  "TokenizerUnavailableError",
  // the model
  "Skill",
  "SkillBuilder",
  "createSkillFrom",
  "skillFields",
  // SKILL.md
  "parseFrontmatter",
  "parseSkillMd",
  "PROFILE_NAMES",
  "validateFrontmatter",
  "validateSkillMd",
  "lintSkill",
  "hasErrors",
  "serializeFrontmatter",
  "serializeSkillMd",
  // least-privilege declarations (issue 26)
  "DECLARATION_KEYS",
  "DECLARATION_PREFIX",
  "destinationText",
  "effectivePolicy",
  "parseDestination",
  "readDeclaration",
  // safe ids and paths
  "isSafeResourcePath",
  "isSafeSkillId",
  "normalizeResourcePath",
  "requireSafeResourcePath",
  "requireSafeSkillId",
  // sources, registry, catalog, search
  "RESOURCE_KINDS",
  "SkillSourceProvider",
  "toSkillProvider",
  "InMemorySkillRepository",
  "SkillRegistry",
  "CATALOG_FORMATS",
  "DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION",
  "DEFAULT_AGENTSCOPE_INSTRUCTION",
  "DEFAULT_SEARCH_TOOL",
  "LOAD_SKILL_TOOL_NAME",
  "renderCatalog",
  "renderCatalogWithCounts",
  "SkillSearchIndex",
];

// The type-only names (classes count as values above): options, results and the source contracts.
const PUBLIC_TYPES = [
  "AddProviderOptions",
  "AgentSkillsErrorCode",
  "AnalyseOptions",
  "AnalysedSkill",
  "CatalogCounts",
  "CatalogEntry",
  "CatalogFormat",
  "CatalogOptions",
  "ConfidenceFeatures",
  "ConfidenceModel",
  "DeclarationKey",
  "DeclarationProblem",
  "DeclarationResult",
  "Diagnostic",
  "EffectivePolicy",
  "FieldWeights",
  "Frontmatter",
  "FrontmatterValue",
  "InMemorySkillRepositoryOptions",
  "LintInput",
  "LintLimits",
  "Narrowing",
  "NetworkDestination",
  "OperatorPolicy",
  "ParseLimits",
  "ParseOptions",
  "ParsedFrontmatter",
  "ParsedSkillMd",
  "ProfileName",
  "RegistrationFailure",
  "RegistrationReport",
  "RegistryChange",
  "RegistryEntry",
  "RegistrySearchOptions",
  "RenderedCatalog",
  "ResourceContent",
  "ResourceKind",
  "ResourceListing",
  "SafePathLimits",
  "SaveOptions",
  "SaveResult",
  "SearchDocument",
  "SearchDocumentCache",
  "SearchField",
  "SearchHit",
  "SearchIndexExport",
  "SearchIndexOptions",
  "SearchOptions",
  "SearchPage",
  "SearchPageOptions",
  "Severity",
  "Shadowing",
  "SkillDeclaration",
  "SkillFields",
  "SkillFile",
  "SkillProvider",
  "SkillRegistryEvents",
  "SkillRegistryOptions",
  "SkillRepository",
  "SkillRepositoryInfo",
  "SkillSource",
  "StrictYamlFinding",
  "TokenCounter",
  "TokenEncoding",
  "ValidateOptions",
  "ValidationResult",
];

/** The names in index.ts's `export type { … }` lists: every type is listed by name (no `export *`, no `export type *`). */
function listedTypes(source: string): string[] {
  return [...source.matchAll(/export type \{([^}]*)\}/g)].flatMap((match) =>
    (match[1] as string)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

describe("@skillport/core's public face", () => {
  it("exports exactly the listed values", () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC_VALUES].sort());
  });

  it("lists exactly the listed types, by name, about a hundred names in all", () => {
    const source = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/export (?:type )?\*/);
    expect(listedTypes(source).sort()).toEqual([...PUBLIC_TYPES].sort());
    // 100 at the one-door cut (decision 0310); the least-privilege declaration and policy shapes (issue 26, decision 0360)
    // the catalog's counted rendering and search pages (decision 0413) came after. A new public name is a decision, not a drift.
    expect(PUBLIC_VALUES.length + PUBLIC_TYPES.length).toBeLessThanOrEqual(120);
  });

  it("keeps sibling helpers out of the main entry, in the internal subpath", () => {
    const internalNames = Object.keys(internal);
    expect(internalNames.length).toBeGreaterThan(20);
    expect(internalNames.filter((name) => name in core)).toEqual([]);
  });
});
