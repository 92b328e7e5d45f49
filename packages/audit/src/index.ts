export type {
  AuditOptions,
  AuditReport,
  Finding,
  FindingLevel,
  InventoryItem,
  InventoryKind,
  InventoryLocation,
  SkillFileInput,
  Verdict,
} from "./types.js";
export type { SecurityDiff, SurfaceChange } from "./diff.js";
export type { PatternRule, RuleInfo, RuleScope } from "./rules.js";
export { VERDICTS } from "./types.js";
export { auditSkill } from "./audit.js";
export { atOrAbove, DEFAULT_AUDIT_LIMITS, verdictOf } from "./verdict.js";
export { AUDIT_CODE_DIGEST } from "./code-digest.js";
export { auditProviderSkill, auditProviderSkillFiles, readAuditFiles } from "./provider.js";
export { diffAudits } from "./diff.js";
export { OTHER_RULES, PATTERN_RULES } from "./rules.js";
export {
  applySecondOpinion,
  CONCERN_CATEGORIES,
  opinionPrompt,
  parseOpinion,
  secondOpinion,
  type ConcernCategory,
  type ModelConcern,
  type OpinionModel,
  type SecondOpinion,
  type SecondOpinionOptions,
} from "./opinion.js";
export {
  DYNAMIC_RULES,
  observeRun,
  type Canary,
  type ObservationRecord,
  type ObserveOptions,
  type ObservedEgress,
  type ObservedTrace,
  type RunFacts,
} from "./observation.js";
