export type { AuditOptions, AuditReport, Finding, FindingLevel, InventoryItem, InventoryKind, InventoryLocation, SkillFileInput, Verdict } from "./types.js";
export type { SecurityDiff, SurfaceChange } from "./diff.js";
export type { PatternRule, RuleInfo, RuleScope } from "./rules.js";
export { VERDICTS } from "./types.js";
export { atOrAbove, auditSkill, DEFAULT_AUDIT_LIMITS, verdictOf } from "./audit.js";
export { auditProviderSkill, auditProviderSkillFiles } from "./provider.js";
export { diffAudits } from "./diff.js";
export { OTHER_RULES, PATTERN_RULES } from "./rules.js";
export { DYNAMIC_RULES, observeRun, type Canary, type ObservationRecord, type ObserveOptions, type ObservedEgress, type ObservedTrace, type RunFacts } from "./observation.js";
