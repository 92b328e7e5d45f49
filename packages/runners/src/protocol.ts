// The job protocol (docs/runners.md): what a client puts on the queue and what a runner records as the result.
// Every message crossing NATS is parsed with these schemas on arrival; a message that does not parse is never run.
import { z } from "zod";

/** Job ids are chosen by the submitter (idempotency key) or drawn at random; they become subject tokens and folder names. */
export const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Tenants become subject tokens and consumer names. */
export const TENANT = /^[a-z0-9_-]{1,32}$/;
const VERSION_ID = /^[a-f0-9]{24}$/;
const NAME = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

export const MAX_JOB_TIMEOUT_S = 600;

/** Decoded size of a base64 string. */
function base64Bytes(text: string): number {
  return Math.floor((text.length * 3) / 4) - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);
}
/** Bytes of files one job may carry (decoded): a NATS message is 1 MiB at most, base64 adds a third. */
export const MAX_JOB_FILE_BYTES = 512 * 1024;

const commandRun = z.object({
  kind: z.literal("command"),
  command: z
    .string()
    .min(1)
    .max(64 * 1024),
});
const scriptRun = z.object({
  kind: z.literal("script"),
  /** The skill's folder name under `skills/` in the version. */
  skill: z.string().regex(NAME),
  /** A file in the skill's `scripts/` folder; run by bash (.sh), python3 (.py), node (.js, .mjs) or directly. */
  script: z.string().regex(NAME),
  args: z
    .array(z.string().max(16 * 1024))
    .max(256)
    .default([]),
});

export const jobSpecSchema = z.object({
  /** Protocol version. */
  v: z.literal(1).default(1),
  id: z.string().regex(JOB_ID),
  tenant: z.string().regex(TENANT),
  /** The package version to deploy (content-addressed versionId) and the sha256 of its archive (`sha256:<hex>`). */
  package: z
    .object({ versionId: z.string().regex(VERSION_ID), digest: z.string().regex(/^sha256:[a-f0-9]{64}$/) })
    .optional(),
  run: z.discriminatedUnion("kind", [commandRun, scriptRun]),
  /** Seconds the command may run (1–600). Default 30. */
  timeoutS: z.number().positive().max(MAX_JOB_TIMEOUT_S).default(30),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), z.string().max(16 * 1024)).default({}),
  /**
   * Files the run needs that are not in a package (a skill's scripts, sent by SkillBox or the MCP server): written
   * into `jobs/<id>/files` before the run (`$SKILLPORT_FILES`), host-owned, removed with the job. Paths are relative,
   * `/`-separated, no `.`/`..`; at most MAX_JOB_FILE_BYTES in all.
   */
  files: z
    .array(
      z.object({
        path: z
          .string()
          .max(1024)
          .refine((p) => p.split("/").every((s) => NAME.test(s)) && p.split("/").length <= 32, "not a relative path"),
        base64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
        /** 0o644 or 0o755 (executable). */
        executable: z.boolean().default(false),
      }),
    )
    .max(1000)
    .default([])
    .refine(
      (files) => files.reduce((n, f) => n + base64Bytes(f.base64), 0) <= MAX_JOB_FILE_BYTES,
      `files exceed ${MAX_JOB_FILE_BYTES} bytes`,
    ),
  /** A working folder kept between calls (a chat's): restored before the run, saved as a new version after it. */
  session: z.string().regex(JOB_ID).optional(),
  /** Milliseconds since the epoch, set by the submitter: the queueing time is measured from it. */
  submittedAt: z.number().int().nonnegative(),
});
export type JobSpec = z.infer<typeof jobSpecSchema>;
/** What callers pass to `submit`: the id, timestamps and defaults are filled in. */
export type JobInput =
  z.input<typeof jobSpecSchema> extends infer T ? Omit<T, "id" | "submittedAt" | "v"> & { id?: string } : never;

const outputFileSchema = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  /** The bytes (base64), when all outputs fit in the inline budget; otherwise only the record. */
  base64: z.string().optional(),
});
export type OutputFile = z.infer<typeof outputFileSchema>;

/**
 * - `completed`: the command ran to its end (any exit code);
 * - `timed-out`, `cancelled`: it was stopped (the sandbox killed it);
 * - `failed`: the runner could not run it (package, entrypoint, sandbox) and will not retry any more;
 * - `dead-letter`: it was delivered more than the retry bound allows (or never parsed) and went to the dead-letter subject.
 */
export const JOB_STATUSES = ["completed", "timed-out", "cancelled", "failed", "dead-letter"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const jobResultSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  status: z.enum(JOB_STATUSES),
  /** Why it did not complete, or `exit-nonzero`: a short code (`package`, `entrypoint`, `timeout`, `cancelled`, …). */
  reason: z.string().optional(),
  message: z.string().optional(),
  /** FastGPT's observation: the output tail (both streams in arrival order) and its notices. */
  observation: z.string(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  outputs: z.array(outputFileSchema),
  /** The session version this job wrote, when it had a session. */
  sessionVersion: z.number().int().optional(),
  entrypoint: z.string().optional(),
  runner: z.string(),
  attempt: z.number().int(),
  sandbox: z.string().optional(),
  timing: z.object({
    queuedMs: z.number(),
    deployMs: z.number(),
    runMs: z.number(),
    totalMs: z.number(),
  }),
});
export type JobResult = z.infer<typeof jobResultSchema>;

/** A cancellation request (published core NATS, recorded in the results bucket). */
export const cancelSchema = z.object({
  id: z.string().regex(JOB_ID),
  reason: z.string().max(512).default("cancelled"),
});

/** Subjects and names shared by runners and clients. `prefix` lets tests and deployments share one server. */
export interface QueueNames {
  stream: string;
  jobSubject(tenant: string): string;
  jobWildcard: string;
  deadStream: string;
  deadSubject(tenant: string): string;
  cancelSubject(id: string): string;
  cancelWildcard: string;
  /** Core NATS notice that a job's result was recorded (the record itself is in the results bucket). */
  doneSubject(id: string): string;
  resultsBucket: string;
  runnersBucket: string;
  consumer(tenant: string): string;
}

export function queueNames(prefix = "skillport"): QueueNames {
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(prefix))
    throw new Error(`queue prefix ${JSON.stringify(prefix)} must be lower-case letters, digits and dashes`);
  const upper = prefix.toUpperCase().replace(/-/g, "_");
  return {
    stream: `${upper}_JOBS`,
    jobSubject: (tenant) => `${prefix}.jobs.${tenant}`,
    jobWildcard: `${prefix}.jobs.*`,
    deadStream: `${upper}_DEAD`,
    deadSubject: (tenant) => `${prefix}.dead.${tenant}`,
    cancelSubject: (id) => `${prefix}.cancel.${id}`,
    cancelWildcard: `${prefix}.cancel.*`,
    doneSubject: (id) => `${prefix}.done.${id}`,
    resultsBucket: `${prefix}-results`,
    runnersBucket: `${prefix}-runners`,
    consumer: (tenant) => `${prefix}-t-${tenant}`,
  };
}

/** A message's JSON, or undefined when it is not JSON (the schema then refuses it). */
export function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}
