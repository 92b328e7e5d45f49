// Helpers Skillport's own packages share (`@skillport/core/internal`, the one door besides the main entry; decision
// 0310). Not part of the public API: names here may change in any release. Applications use `@skillport/core`.
export {
  DEFAULT_PARSE_LIMITS,
  findFrontmatterEnd,
  type FindFrontmatterOptions,
  type FrontmatterBounds,
} from "./parse.js";
export { DEFAULT_LINT_LIMITS } from "./lint.js";
export { DEFAULT_SAFE_PATH_LIMITS, MAX_SKILL_ID_LENGTH, assertSafeSkillId, resourceKindPath } from "./safe-path.js";
export { DEFAULT_MEMORY_MAX_FILE_BYTES } from "./memory.js";
export {
  AGENTSCOPE_NAME_PATTERN,
  FASTGPT_DESCRIPTION_MAX_LENGTH,
  FASTGPT_NAME_MAX_LENGTH,
  FASTGPT_NAME_PATTERN,
  SPEC_COMPATIBILITY_MAX_LENGTH,
  SPEC_DESCRIPTION_MAX_LENGTH,
  SPEC_NAME_MAX_LENGTH,
  codePointLength,
  isSpecSkillName,
  normalizeSkillName,
  specNameProblems,
  type NameProblem,
} from "./names.js";
export { catalogKeepOrder, selectCatalogEntries } from "./catalog/index.js";
export {
  catalogPriority,
  escapeHtml,
  escapeXml,
  isHiddenFromModel,
  isPinned,
  omittedNotice,
  skillTags,
} from "./catalog/text.js";
export { approximateTokenCounter, loadTokenCounter, TOKEN_ENCODINGS } from "./catalog/tokens.js";
export { DEFAULT_FIELD_WEIGHTS, SEARCH_ANALYSIS_VERSION } from "./search/index.js";
export {
  analyseSkill,
  DEFAULT_BODY_CHARS,
  SEARCH_FIELDS,
  skillEmbeddingText,
  type EmbeddingTextOptions,
} from "./search/document.js";
export { confidenceOf, DEFAULT_CONFIDENCE_MODEL, DEFAULT_MIN_CONFIDENCE } from "./search/confidence.js";
export { SEARCH_STOPWORDS, searchTokens } from "./search/tokenize.js";
export { prepareSaveBatch, type PreparedSkill, type PrepareSaveOptions } from "./save-batch.js";
export { compareCodeUnits } from "./compare.js";
export { importOptional } from "./optional-module.js";
export { suggestClosest } from "./suggest.js";
export { mapLimit } from "./map-limit.js";
export { REDACTED_CREDENTIAL, redactUri, redactUriCredentials } from "./redact-uri.js";
export { EmbeddingsClient, EmbeddingsError, fuseWithEmbeddings, reciprocalRankFusion } from "./search/hybrid.js";
export type {
  EmbeddableSkill,
  EmbeddingsClientOptions,
  HybridHit,
  HybridOptions,
  HybridResult,
} from "./search/hybrid.js";
export {
  SECRET_CONTENT_HEAD_BYTES,
  SECRET_FILE_PATTERNS,
  secretFileContent,
  secretFilePattern,
} from "./secret-files.js";
export {
  isExecutableRunFile,
  isRunFile,
  returnCodeText,
  runResultText,
  RUN_FILE_EXTENSIONS,
  RUN_FILE_FOLDERS,
  scriptInterpreter,
  scriptPath,
  type RemoteCodeRunner,
  type RemoteFile,
  type RemoteRun,
  type RemoteRunRequest,
  type RemoteRunResult,
  type RunOutcome,
} from "./remote-run.js";
