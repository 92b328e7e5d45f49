// Sandboxes for untrusted commands: bubblewrap and a plain process backend (docs/sandbox.md).
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
export { TailBuffer } from "./tail-buffer.js";
