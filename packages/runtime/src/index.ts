// Sandboxes, workspace deploy, entrypoint initialization and command execution (docs/runtime.md).
export {
  createSandbox,
  findBubblewrap,
  BubblewrapSandbox,
  ProcessSandbox,
  SandboxUnavailableError,
  PROCESS_SANDBOX_WARNING,
  DEFAULT_RUN_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_PROCESSES,
  MAX_RUN_TIMEOUT_MS,
  type Sandbox,
  type SandboxKind,
  type SandboxOptions,
  type BubblewrapSandboxOptions,
  type RunRequest,
  type RunResult,
} from "./sandbox.js";
export type { PidLimitMechanism } from "./pid-limit.js";
export type { OutputStream } from "./run-process.js";
export { execCommand, DEFAULT_EXEC_TIMEOUT_S, DEFAULT_MAX_FULL_OUTPUT_BYTES, type ExecOptions, type ExecResult } from "./exec.js";
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
export { readState, writeState, DEFAULT_STATE_PATH, SKILL_ENTRYPOINTS_KEY, SANDBOX_ENTRYPOINT_KEY, type RuntimeState, type StateValue } from "./state.js";
export { scanDeployedSkills, WorkspaceSkillProvider, type DeployedSkill, type ScanOptions, type ScanResult, type WorkspaceProviderOptions } from "./scan.js";
export { acquireLock, type LockOptions } from "./lock.js";
