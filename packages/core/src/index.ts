export * from "./errors.js";
export * from "./diagnostics.js";
export * from "./types.js";
export { SkillSourceProvider, toSkillProvider } from "./source.js";
export * from "./skill.js";
export { skillFields, type SkillFields } from "./fields.js";
export * from "./parse.js";
export * from "./validate.js";
export * from "./safe-path.js";
export { InMemorySkillRepository, DEFAULT_MEMORY_MAX_FILE_BYTES, type InMemorySkillRepositoryOptions } from "./memory.js";
export * from "./serialize.js";
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
export * from "./lint.js";
export * from "./builder.js";
export * from "./registry.js";
export * from "./catalog/index.js";
export * from "./search/index.js";
export { prepareSaveBatch, type PreparedSkill, type PrepareSaveOptions } from "./save-batch.js";
export { compareCodeUnits } from "./compare.js";
export { suggestClosest } from "./suggest.js";
export { REDACTED_CREDENTIAL, redactUri, redactUriCredentials } from "./redact-uri.js";
