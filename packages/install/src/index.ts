// @skillport/install: put skills where agents read them. One canonical copy per scope, links (or copies) from each
// agent's folder, a skills-lock.json Vercel's CLI reads too, and a sidecar with what that lock cannot hold.
export {
  AGENTS,
  CANONICAL_DIR,
  agentEnvironment,
  agentsMarkdownTable,
  agentSkillsDir,
  canonicalSkillsDir,
  detectAgents,
  findAgent,
  type AgentEnvironment,
  type AgentSpec,
} from "./agents.js";
export { collectSkill, renameSkill, type CollectedSkill } from "./collect.js";
export { changedFiles, computedHash, fileDigests, type SkillFileBytes } from "./digest.js";
export { diagnoseInstalls, repairInstalls, type DoctorOptions } from "./doctor.js";
export type { DoctorCode, DoctorFinding } from "./doctor-finding.js";
export { InstallError, type InstallErrorCode } from "./errors.js";
export {
  installSkills,
  listInstalled,
  readFolder,
  removeSkills,
  type InstalledRow,
  type InstalledSkill,
  type InstallTarget,
  type LockOrigin,
  type SkillToInstall,
} from "./installer.js";
export {
  LOCK_FILE,
  SIDECAR_FILE,
  readLock,
  readSidecar,
  type AcceptedRisk,
  type AuditRecord,
  type LockEntry,
  type LockFile,
  type Sidecar,
  type SidecarEntry,
  type UpstreamName,
} from "./lock.js";
export { verifyAgainstLock } from "./verify.js";
