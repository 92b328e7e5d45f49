import { createHash } from "node:crypto";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { AgentSkillsError, LimitExceededError } from "@skillport/core";
import type { RunResult, Sandbox } from "@skillport/sandbox";
import type { ObservationRecord } from "@skillport/audit";
import type { LeastPrivilege } from "./least-privilege.js";
import { ensureVenv, usesPip, versionEnv } from "./python-env.js";
import {
  SANDBOX_ENTRYPOINT_KEY,
  SKILL_ENTRYPOINTS_KEY,
  listValue,
  readState,
  writeState,
  type RuntimeState,
} from "./state.js";
import { errorCode, isInside } from "@skillport/fs";

/** FastGPT's numbers: 30 s default, 1–600 s accepted, last 8 KiB of each stream kept, app script ≤ 16 KiB. */
export const DEFAULT_ENTRYPOINT_TIMEOUT_S = 30;
export const MAX_ENTRYPOINT_TIMEOUT_S = 600;
export const ENTRYPOINT_TAIL_BYTES = 8 * 1024;
export const MAX_APP_ENTRYPOINT_BYTES = 16 * 1024;
export const ENTRYPOINT_FILE = "entrypoint.sh";

export type EntrypointStatus = "ran" | "skipped" | "failed" | "timed-out" | "absent";

export interface EntrypointOutcome {
  /** A versionId, or `app` for the app-level startup script. */
  target: string;
  status: EntrypointStatus;
  /** Why it was skipped / failed, in words. */
  reason?: string;
  exitCode?: number | null;
  signal?: string | null;
  /** Last 8 KiB of each stream (never shown to the model). */
  stdoutTail?: string;
  stderrTail?: string;
  durationMs?: number;
  /** Under a least-privilege policy: declared vs observed, and findings (decision 0363). */
  record?: ObservationRecord;
}

export interface InitializationReport {
  outcomes: EntrypointOutcome[];
  /** True when any entrypoint failed or timed out (they will be retried next time). */
  failed: boolean;
  /** A problem with the state file (read as empty, or not written): successes may not be remembered. */
  stateProblems: string[];
}

export interface EntrypointRunOptions {
  sandbox: Sandbox;
  /** Where `<versionId>/entrypoint.sh` live (the workspace's projects/ dir). */
  projectsDir: string;
  /** Versions selected this round, in order. */
  versions: readonly string[];
  /** Versions unpacked this round: they run even if recorded. */
  fresh: ReadonlySet<string>;
  /**
   * Which entrypoints ran, read and written: the source of truth. It must be where sandboxed code cannot write
   * (a Workspace keeps it in its host-only state folder), or sandboxed code can make a failed entrypoint skip.
   */
  stateFile: string;
  /** FastGPT's `~/.fastgpt/runtime/state.json`, written with the same values for compatibility and NEVER read. */
  compatStateFile?: string;
  /**
   * Versions that have an entrypoint according to the host's manifests; others are reported `absent` even when an
   * entrypoint.sh has appeared in their folder since. Default: judge by the folder.
   */
  entrypointVersions?: ReadonlySet<string>;
  /** App-level startup script; runs once per sha256 of its trimmed text. */
  appEntrypoint?: string;
  /** Seconds, 1–600. Default 30. */
  timeout?: number;
  env?: Record<string, string>;
  /**
   * A Python virtual environment per version, first on PATH, made before an entrypoint that uses pip (decision 0271).
   * Default true.
   */
  pythonEnv?: boolean;
  /** The least-privilege policy of a version's entrypoint (Workspace's `leastPrivilege`); undefined: today's rights. */
  policyFor?: (versionId: string) => Promise<LeastPrivilege | undefined>;
  onOutcome?: (outcome: EntrypointOutcome) => void;
  onStart?: (target: string) => void;
}

export function validateEntrypointTimeout(timeout: number | undefined): number {
  const t = timeout ?? DEFAULT_ENTRYPOINT_TIMEOUT_S;
  if (!Number.isFinite(t) || t < 1 || t > MAX_ENTRYPOINT_TIMEOUT_S) {
    throw new LimitExceededError(
      "entrypointTimeout",
      `entrypoint timeout must be between 1 and ${MAX_ENTRYPOINT_TIMEOUT_S} seconds, got ${t}`,
    );
  }
  return t;
}

export function validateAppEntrypoint(script: string | undefined): string | undefined {
  if (script === undefined || script.trim() === "") return undefined;
  if (Buffer.byteLength(script) > MAX_APP_ENTRYPOINT_BYTES) {
    throw new LimitExceededError(
      "appEntrypoint",
      `the app startup script is larger than ${MAX_APP_ENTRYPOINT_BYTES / 1024} KiB`,
    );
  }
  return script.trim();
}

export function appEntrypointHash(script: string): string {
  return `sha256:${createHash("sha256").update(script.trim(), "utf8").digest("hex")}`;
}

/**
 * FastGPT semantics: app script first, then each selected version's root entrypoint.sh once per versionId;
 * a failure or timeout is reported and not recorded (so it runs again next time); a freshly deployed version
 * runs even if recorded; the recorded list is reconciled to the selected versions.
 */
export async function runEntrypoints(options: EntrypointRunOptions): Promise<InitializationReport> {
  const timeoutMs = validateEntrypointTimeout(options.timeout) * 1000;
  const appScript = validateAppEntrypoint(options.appEntrypoint);
  const stateProblems: string[] = [];
  const { state: loaded, problem } = await readState(options.stateFile);
  // The records decide what runs again: records that cannot be read stop everything, and are kept as they are for
  // whoever looks into it (decision 0322). Removing the file is the way to run every entrypoint again.
  if (problem) {
    const file = path.basename(options.stateFile);
    throw new AgentSkillsError<"STATE_MALFORMED">(
      `the entrypoint records (${file}): ${problem}; no entrypoint runs until ${file} is fixed or removed (removing it runs every entrypoint again)`,
      { code: "STATE_MALFORMED" },
    );
  }
  const selected = new Set(options.versions);
  const recorded = new Set(
    listValue(loaded, SKILL_ENTRYPOINTS_KEY).filter((v) => selected.has(v) && !options.fresh.has(v)),
  );
  const state: RuntimeState = { values: { ...loaded.values } };
  const writeProblem = (what: string, error: unknown) => {
    const code = errorCode(error);
    const problem = `${what} not written: ${code ?? (error instanceof Error ? error.message : "error")}`;
    if (!stateProblems.includes(problem)) stateProblems.push(problem);
  };
  const save = async () => {
    state.values[SKILL_ENTRYPOINTS_KEY] = options.versions.filter((v) => recorded.has(v));
    try {
      await writeState(options.stateFile, state);
    } catch (error) {
      writeProblem(options.compatStateFile === undefined ? "state file" : "entrypoint records", error);
    }
    if (options.compatStateFile === undefined) return;
    try {
      await writeCompatState(options.compatStateFile, state, options.sandbox.writableDir);
    } catch (error) {
      writeProblem("state file", error);
    }
  };
  const outcomes: EntrypointOutcome[] = [];
  const report = (outcome: EntrypointOutcome) => {
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
  };

  if (appScript !== undefined) {
    const hash = appEntrypointHash(appScript);
    if (state.values[SANDBOX_ENTRYPOINT_KEY] === hash) {
      report({ target: "app", status: "skipped", reason: "already ran (same sha256)" });
    } else {
      options.onStart?.("app");
      const outcome = await runOne(
        options,
        "app",
        ["/bin/bash", "-c", appScript],
        options.sandbox.writableDir,
        timeoutMs,
        options.env,
      );
      if (outcome.status === "ran") state.values[SANDBOX_ENTRYPOINT_KEY] = hash;
      report(outcome);
    }
  }

  for (const versionId of options.versions) {
    const dir = path.join(options.projectsDir, versionId);
    const listed = options.entrypointVersions === undefined || options.entrypointVersions.has(versionId);
    if (!listed || !(await isRegularFile(path.join(dir, ENTRYPOINT_FILE)))) {
      report({ target: versionId, status: "absent", reason: "no entrypoint.sh at the version root" });
      continue;
    }
    if (recorded.has(versionId)) {
      report({ target: versionId, status: "skipped", reason: "already initialized" });
      continue;
    }
    options.onStart?.(versionId);
    const python = options.pythonEnv ?? true;
    const venvProblem =
      python && (await usesPip(dir, ENTRYPOINT_FILE))
        ? await ensureVenv(options.sandbox, versionId, timeoutMs)
        : undefined;
    const env = python ? versionEnv(options.sandbox.writableDir, versionId, options.env) : options.env;
    const outcome = await runOne(
      options,
      versionId,
      ["/bin/bash", ENTRYPOINT_FILE],
      dir,
      timeoutMs,
      env,
      await options.policyFor?.(versionId),
    );
    if (venvProblem !== undefined && outcome.status !== "ran")
      outcome.reason = `${outcome.reason ?? "failed"}; ${venvProblem}`;
    if (outcome.status === "ran") recorded.add(versionId);
    report(outcome);
    if (outcome.status === "ran") await save();
  }
  await save();
  return { outcomes, failed: outcomes.some((o) => o.status === "failed" || o.status === "timed-out"), stateProblems };
}

async function runOne(
  options: EntrypointRunOptions,
  target: string,
  command: string[],
  cwd: string,
  timeoutMs: number,
  env: Record<string, string> | undefined,
  leastPrivilege?: LeastPrivilege,
): Promise<EntrypointOutcome> {
  try {
    const request = {
      command,
      cwd,
      env,
      timeoutMs,
      maxStdoutBytes: ENTRYPOINT_TAIL_BYTES,
      maxStderrBytes: ENTRYPOINT_TAIL_BYTES,
    };
    let r: RunResult;
    let record: ObservationRecord | undefined;
    if (leastPrivilege === undefined) r = await options.sandbox.run(request);
    else {
      const { runWithPolicy } = await import("./least-privilege.js");
      ({ result: r, observation: record } = await runWithPolicy(options.sandbox, request, leastPrivilege));
    }
    const base = {
      target,
      exitCode: r.exitCode,
      signal: r.signal,
      stdoutTail: r.stdout,
      stderrTail: r.stderr,
      durationMs: r.durationMs,
      ...(record !== undefined && { record }),
    };
    if (r.timedOut) return { ...base, status: "timed-out", reason: `timed out after ${timeoutMs / 1000} s` };
    if (r.exitCode !== 0) {
      return {
        ...base,
        status: "failed",
        reason: r.exitCode === null ? `killed by ${r.signal ?? "a signal"}` : `exited with code ${r.exitCode}`,
      };
    }
    return { ...base, status: "ran" };
  } catch (error) {
    return { target, status: "failed", reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The compatibility copy usually sits in the sandbox's HOME, which sandboxed code can rewrite: inside the writable
 * directory it is written through pinned folders (a planted link is refused, never followed).
 */
async function writeCompatState(file: string, state: RuntimeState, writableDir: string): Promise<void> {
  // Strictly below: the file's own folder is the writable one or inside it.
  const inside = isInside(writableDir, path.dirname(path.resolve(file)));
  await writeState(file, state, inside ? writableDir : undefined);
}

async function isRegularFile(p: string): Promise<boolean> {
  try {
    return (await lstat(p)).isFile();
  } catch {
    return false;
  }
}
