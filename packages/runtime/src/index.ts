// Sandboxes, workspace deploy, entrypoint initialization and command execution (docs/runtime.md).
export {
  detonateSkill,
  detonationCommands,
  DEFAULT_DETONATION_TIMEOUT_MS,
  type DetonationOptions,
  type DetonationReport,
  type DetonationRun,
  type SkillFile,
} from "./detonate.js";
export { runWithPolicy, type LeastPrivilege } from "./least-privilege.js";
export {
  execCommand,
  DEFAULT_EXEC_TIMEOUT_S,
  DEFAULT_MAX_FULL_OUTPUT_BYTES,
  type ExecOptions,
  type ExecResult,
} from "./exec.js";
export {
  TailCollector,
  formatObservation,
  DEFAULT_OBSERVATION_MAX_LINES,
  DEFAULT_OBSERVATION_MAX_BYTES,
  type ObservationLimits,
  type TruncatedTail,
} from "./observation.js";
export {
  Workspace,
  type WorkspaceOptions,
  type PackageSource,
  type DeployOptions,
  type DeployResult,
  type DeployedVersion,
  type DeployEvent,
} from "./workspace.js";
export {
  runEntrypoints,
  appEntrypointHash,
  DEFAULT_ENTRYPOINT_TIMEOUT_S,
  MAX_ENTRYPOINT_TIMEOUT_S,
  ENTRYPOINT_TAIL_BYTES,
  MAX_APP_ENTRYPOINT_BYTES,
  type EntrypointOutcome,
  type EntrypointStatus,
  type EntrypointRunOptions,
  type InitializationReport,
} from "./entrypoints.js";
export {
  readState,
  writeState,
  DEFAULT_STATE_PATH,
  SKILL_ENTRYPOINTS_KEY,
  SANDBOX_ENTRYPOINT_KEY,
  type RuntimeState,
  type StateValue,
} from "./state.js";
export {
  scanDeployedSkills,
  WorkspaceSkillProvider,
  type DeployedSkill,
  type ScanOptions,
  type ScanResult,
  type WorkspaceProviderOptions,
} from "./scan.js";
export { acquireLock, type LockOptions } from "./lock.js";
