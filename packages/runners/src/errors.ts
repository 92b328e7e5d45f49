import { AgentSkillsError } from "@skillport/core";

/** Stable codes of the runner pool's errors (callers branch on `code`). */
export type RunnerErrorCode =
  /** The package store has no archive for the versionId. */
  | "PACKAGE_NOT_FOUND"
  /** The archive's sha256 is not the digest the job names, or it unpacked to another versionId. */
  | "PACKAGE_DIGEST"
  /** The package store could not be reached, or refused the request (a registry's error answer). */
  | "PACKAGE_UNAVAILABLE"
  /** The queue refused the job: the pool's (or the tenant's) queue is full. Retry later. */
  | "QUEUE_BUSY"
  /** NATS or JetStream is not reachable or answered an error. */
  | "QUEUE_UNAVAILABLE"
  /** A job or message that does not follow the protocol. */
  | "JOB_INVALID"
  /** A version's entrypoint failed on this runner. */
  | "ENTRYPOINT_FAILED";

/** One error type for the pool, in Skillport's one error hierarchy. */
export class RunnerError extends AgentSkillsError<RunnerErrorCode> {
  constructor(code: RunnerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, { code, cause: options?.cause });
  }
}
