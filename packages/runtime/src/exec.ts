import { closeSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { InvalidPathError, LimitExceededError } from "@skillport/core";
import { isInside, openPinnedDir, randomHex, type PinnedDir } from "@skillport/fs";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  MAX_RUN_TIMEOUT_MS,
  type RunRequest,
  type RunResult,
  type Sandbox,
} from "@skillport/sandbox";
import {
  DEFAULT_OBSERVATION_MAX_BYTES,
  DEFAULT_OBSERVATION_MAX_LINES,
  TailCollector,
  formatObservation,
  type TruncatedTail,
} from "./observation.js";
import type { ObservationRecord } from "@skillport/audit";
import type { LeastPrivilege } from "./least-privilege.js";

export interface ExecOptions {
  /** Directory relative to the sandbox's writable directory (the workspace). Default: its root. */
  cwd?: string;
  /** Seconds, 1–600. Default 30 (FastGPT's shell tool allows up to 600). */
  timeout?: number;
  env?: Record<string, string>;
  /** Observation limits: the tail kept is at most this many lines and bytes. Defaults 2,000 and 50 KiB. */
  maxLines?: number;
  maxBytes?: number;
  /** Largest full-output file kept when the observation is truncated. Default 64 MiB. */
  maxFullOutputBytes?: number;
  /** The command is killed once it has printed this much (stdout + stderr). Default 256 MiB (or maxFullOutputBytes if larger). */
  maxOutputBytes?: number;
  /** Where full outputs go, relative to the workspace. Default `.skillport/outputs`. */
  outputDir?: string;
  signal?: AbortSignal;
  /** Run under a skill's least-privilege policy (egress proxy, declared variables and writes); see least-privilege.ts. */
  leastPrivilege?: LeastPrivilege;
}

export interface ExecResult {
  /** What the agent sees (FastGPT shape): merged output tail, truncation notice, `Command exited with code N`. */
  observation: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  truncated: boolean;
  /** The command printed more than `maxOutputBytes` and was killed. */
  outputLimitExceeded: boolean;
  tail: TruncatedTail;
  /** Workspace-relative path of the full output, when the observation was truncated. */
  fullOutputPath: string | undefined;
  sandbox: RunResult["sandbox"];
  isolates: boolean;
  warnings: string[];
  /** With `leastPrivilege`: declared vs observed, exit, resource use and findings. */
  record?: ObservationRecord;
}

export const DEFAULT_EXEC_TIMEOUT_S = 30;
export const DEFAULT_MAX_FULL_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Runs a shell command for an agent (`bash -c <command>`) in the sandbox and builds the observation:
 * stdout and stderr merged in arrival order, tail-truncated, the full output kept in a workspace file.
 */
export async function execCommand(sandbox: Sandbox, command: string, options: ExecOptions = {}): Promise<ExecResult> {
  const timeout = options.timeout ?? DEFAULT_EXEC_TIMEOUT_S;
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout * 1000 > MAX_RUN_TIMEOUT_MS) {
    throw new LimitExceededError(
      "timeout",
      `timeout must be between 1 and ${MAX_RUN_TIMEOUT_MS / 1000} seconds, got ${timeout}`,
    );
  }
  // A declared time budget narrows the run's (never widens it).
  const declaredMs = options.leastPrivilege?.policy.timeoutMs;
  const timeoutMs =
    declaredMs === undefined ? Math.round(timeout * 1000) : Math.min(declaredMs, Math.round(timeout * 1000));
  const root = sandbox.writableDir;
  const cwd = options.cwd === undefined ? root : confined(root, options.cwd, "cwd");
  const outputRel = options.outputDir ?? ".skillport/outputs";
  const outputDir = confined(root, outputRel, "outputDir");
  const maxFull = options.maxFullOutputBytes ?? DEFAULT_MAX_FULL_OUTPUT_BYTES;
  const maxOutput = options.maxOutputBytes ?? Math.max(DEFAULT_MAX_OUTPUT_BYTES, maxFull);

  const warnings: string[] = [];
  // Sandboxed code can plant links in the workspace: the folder is opened link by link (a link or file planted there
  // is replaced by a fresh folder, never followed) and the log is created through its descriptor.
  let dir: PinnedDir | undefined;
  try {
    dir = openPinnedDir(root, path.relative(root, outputDir).split(path.sep).join("/"), { create: true, repair: true });
  } catch (error) {
    warnings.push(
      `full output not kept: ${outputRel} cannot be used (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const fileName = `exec-${Date.now()}-${randomHex(4)}.log`;
  // Synchronous appends keep the merged order exact and memory flat; each chunk is at most a pipe buffer.
  const fd = dir?.createFile(fileName, 0o600);
  let written = 0;
  const collector = new TailCollector({
    maxLines: options.maxLines ?? DEFAULT_OBSERVATION_MAX_LINES,
    maxBytes: options.maxBytes ?? DEFAULT_OBSERVATION_MAX_BYTES,
  });
  let result: RunResult;
  let record: ObservationRecord | undefined;
  try {
    const request = {
      command: ["/bin/bash", "-c", command],
      // One pipe for both streams, set up before bash starts: the merged order is exact, not a race of two pipes.
      mergeStderr: true,
      cwd,
      env: options.env,
      timeoutMs,
      maxStdoutBytes: 0,
      maxStderrBytes: 0,
      maxOutputBytes: maxOutput,
      signal: options.signal,
      onOutput: (_stream, chunk) => {
        collector.write(chunk);
        if (fd !== undefined && written < maxFull) {
          const piece = chunk.subarray(0, Math.min(chunk.byteLength, maxFull - written));
          writeSync(fd, piece);
          written += piece.byteLength;
        }
      },
    } satisfies RunRequest;
    if (options.leastPrivilege === undefined) result = await sandbox.run(request);
    else {
      const { runWithPolicy } = await import("./least-privilege.js");
      ({ result, observation: record } = await runWithPolicy(sandbox, request, options.leastPrivilege));
    }
  } catch (error) {
    dir?.close();
    throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const tail = collector.result();
  let fullOutputPath: string | undefined;
  if (dir !== undefined) {
    if (tail.truncated) fullOutputPath = path.posix.join(outputRel.split(path.sep).join("/"), fileName);
    else unlinkSync(dir.at(fileName));
    dir.close();
  }
  const observation = formatObservation({
    tail,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    timeoutMs,
    fullOutputPath,
    fullOutputComplete: written === tail.totalBytes,
    outputLimitBytes: result.outputLimitExceeded ? maxOutput : undefined,
  });
  return {
    observation,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    truncated: tail.truncated,
    outputLimitExceeded: result.outputLimitExceeded,
    tail,
    fullOutputPath,
    sandbox: result.sandbox,
    isolates: result.isolates,
    warnings: [...warnings, ...result.warnings],
    ...(record !== undefined && { record }),
  };
}

/** Resolves a workspace-relative path lexically and refuses escapes (the sandbox re-checks by real path). */
function confined(root: string, rel: string, what: string): string {
  if (path.isAbsolute(rel) || rel.includes("\0"))
    throw new InvalidPathError(rel, `${what} must be relative to the workspace`);
  const full = path.resolve(root, rel);
  if (!isInside(root, full)) throw new InvalidPathError(rel, `${what} escapes the workspace`);
  return full;
}
