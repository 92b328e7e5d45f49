// Sandboxed skill runs on a pool of runners over NATS JetStream (docs/runners.md).
export { QueueClient, type WaitOptions } from "./client.js";
export { JobExecutor, type ExecutorOptions, type RunContext } from "./executor.js";
export { RunnerError, type RunnerErrorCode } from "./errors.js";
export {
  BlobDirPackageStore,
  sha256Digest,
  verifyDigest,
  DEFAULT_MAX_PACKAGE_BYTES,
  type PackageStore,
} from "./package-store.js";
export { RegistryPackageStore, type RegistryPackageStoreOptions } from "./registry-package-store.js";
export {
  jobSpecSchema,
  jobResultSchema,
  queueNames,
  JOB_STATUSES,
  MAX_JOB_TIMEOUT_S,
  type JobSpec,
  type JobInput,
  type JobResult,
  type JobStatus,
  type OutputFile,
  type QueueNames,
} from "./protocol.js";
export { DEFAULT_MAX_QUEUED, DEFAULT_MAX_QUEUED_PER_TENANT, parseQueueAddress, type QueueOptions } from "./queue.js";
export { Runner, type RunnerOptions, type RunnerEvent } from "./runner.js";
export { PostgresSessionStore, type SessionStore, type SessionFile, type SessionSnapshot } from "./session-store.js";
export { quantile, type PoolStatus, type RunnerStats } from "./stats.js";
