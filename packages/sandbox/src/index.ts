// Sandboxes for untrusted commands: bubblewrap and a plain process backend (docs/sandbox.md).
export {
  createSandbox,
  BubblewrapSandbox,
  ProcessSandbox,
  PROCESS_SANDBOX_WARNING,
  DEFAULT_RUN_TIMEOUT_MS,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_PROCESSES,
  DEFAULT_MAX_MEMORY_BYTES,
  DEFAULT_TMP_SIZE_BYTES,
  MAX_RUN_TIMEOUT_MS,
  type Sandbox,
  type SandboxKind,
  type SandboxOptions,
  type BubblewrapSandboxOptions,
  type RunRequest,
  type RunResult,
} from "./sandbox.js";
export { findBubblewrap } from "./bubblewrap.js";
export { sandboxedCommand, type SandboxedCommand, type SandboxedCommandOptions } from "./command.js";
export { SandboxUnavailableError } from "./errors.js";
export { privateDirProblem } from "./state-dir.js";
export {
  DEFAULT_RUN_AS,
  DEFAULT_UNISOLATED_IDS,
  handOverTree,
  type IdRange,
  type SandboxIdentity,
} from "./identity.js";
export type { LimitMechanism } from "./limits.js";
export type { OutputStream } from "./run-process.js";
export { TailBuffer } from "./tail-buffer.js";
export { shellQuote } from "./limits.js";
export {
  EgressProxy,
  isNonPublicAddress,
  EGRESS_PORT_IN_SANDBOX,
  EGRESS_SOCKET_IN_SANDBOX,
  type EgressEvent,
  type EgressProxyOptions,
} from "./egress.js";
export type { TraceRecord } from "./trace.js";
export { policyEnv, runUnderPolicy, type PolicyRunOptions } from "./policy-run.js";
