// Runs one job on this machine: the version deployed into a runner-local workspace cache (entrypoint once per version
// per runner), a job folder with the session's files, the command in the sandbox, the observation back.
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { isMissing, openPinnedDir, removePinnedTree, type FileOwner, type PinnedDir } from "@skillport/fs";
import { openConfined, walkTree } from "@skillport/fs";
import { TailCollector, formatObservation, type TruncatedTail } from "@skillport/runtime";
import { Workspace } from "@skillport/runtime";
import type { Sandbox, SandboxKind } from "@skillport/sandbox";
import { RunnerError } from "./errors.js";
import type { PackageStore } from "./package-store.js";
import type { JobResult, JobSpec, OutputFile } from "./protocol.js";
import type { SessionFile, SessionStore } from "./session-store.js";

export interface ExecutorOptions {
  /** Runner-local cache: one workspace per version (`v/<versionId>`), host-only state (`state/`). One runner per folder. */
  cacheDir: string;
  packages: PackageStore;
  sessions?: SessionStore;
  sandbox?: SandboxKind | "auto";
  /** Let entrypoints and jobs use the network. Default false. */
  network?: boolean;
  entrypointTimeout?: number;
  /** Output files are returned inline (base64) while their total stays under this. Default 256 KiB. */
  maxInlineOutputBytes?: number;
  /** Most output files listed. Default 1,000. */
  maxOutputFiles?: number;
  /** Largest session working folder saved (and file read back). Default 64 MiB. */
  maxSessionBytes?: number;
  /** Kept tail of stdout and of stderr. Default 8 KiB each. */
  tailBytes?: number;
}

export interface RunContext {
  runner: string;
  attempt: number;
  signal?: AbortSignal;
  /**
   * Leave the job folder in place: the caller removes it with `removeJob(job)` once the result is where it goes (the
   * runner does, after recording it), so the removal is not between the run and its result (decision 0441).
   */
  deferRemoval?: boolean;
}

interface Prepared {
  ws: Workspace;
  sandbox: Sandbox;
  /** Real path of the workspace (the sandbox's writable folder). */
  root: string;
  versionDir: string | undefined;
  env: Record<string, string>;
  entrypoint: string | undefined;
}

const SCRATCH = "scratch";
const INTERPRETERS: Record<string, string[]> = {
  ".sh": ["/bin/bash"],
  ".bash": ["/bin/bash"],
  ".py": ["python3"],
  ".js": ["node"],
  ".mjs": ["node"],
};

/** Runs jobs on this machine. Safe for concurrent `run` calls. */
export class JobExecutor {
  private readonly prepared = new Map<string, Promise<Prepared>>();
  private readonly options: Required<Omit<ExecutorOptions, "sessions" | "entrypointTimeout">> &
    Pick<ExecutorOptions, "sessions" | "entrypointTimeout">;

  constructor(options: ExecutorOptions) {
    this.options = {
      sandbox: "auto",
      network: false,
      maxInlineOutputBytes: 256 * 1024,
      maxOutputFiles: 1000,
      maxSessionBytes: 64 * 1024 * 1024,
      tailBytes: 8 * 1024,
      ...options,
      cacheDir: path.resolve(options.cacheDir),
    };
  }

  /**
   * Removes what a runner killed mid-job left behind: every `jobs/` folder in the cache's workspaces. Call once before
   * the first job (no job of this process can be there yet).
   */
  async cleanUp(): Promise<string[]> {
    const removed: string[] = [];
    const dirs = [SCRATCH, ...this.cachedVersions().map((v) => `v/${v}`)];
    for (const rel of dirs) {
      const jobs = path.join(this.options.cacheDir, rel, "jobs");
      try {
        removePinnedTree(jobs);
        removed.push(path.join(rel, "jobs"));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return removed;
  }

  /** Version workspaces in the cache (folders named like versionIds under `v/`). */
  cachedVersions(): string[] {
    const dir = path.join(this.options.cacheDir, "v");
    try {
      const walk = walkTree(dir, {
        maxDepth: 1,
        files: false,
        directories: true,
        onProblem: "collect",
        onDirectory: (d) => d.depth === 0,
      });
      return walk.entries.filter((e) => e.kind === "directory" && /^[a-f0-9]{24}$/.test(e.path)).map((e) => e.path);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async close(): Promise<void> {
    for (const p of this.prepared.values()) {
      const ready = await p.catch(() => undefined);
      await ready?.ws.close();
    }
    this.prepared.clear();
  }

  /**
   * Runs the job. A result means the job is finished (whatever its exit code); a thrown error means this runner
   * could not run it (package, entrypoint, sandbox, session store) and it may be retried.
   */
  async run(job: JobSpec, context: RunContext): Promise<JobResult> {
    const started = Date.now();
    const prepared = await this.prepare(job);
    const deployMs = Date.now() - started;
    const jobRel = `jobs/${job.id}`;
    const jobDir = path.join(prepared.root, jobRel);
    const workDir = path.join(jobDir, "work");
    const outputsDir = path.join(jobDir, "outputs");
    // A previous attempt on this runner may have left its folder.
    try {
      removePinnedTree(jobDir);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    const session =
      job.session === undefined || this.options.sessions === undefined
        ? undefined
        : await this.options.sessions.load(job.session, job.id);
    // The job folder and everything in it belong to the sandbox's identity (given through each descriptor as it is
    // made: no `chown -R` process per job); `jobs/` itself stays the host's.
    const owner =
      process.getuid?.() === 0 && prepared.sandbox.identity.uid !== 0 ? prepared.sandbox.identity : undefined;
    const jobs = openPinnedDir(prepared.root, "jobs", { create: true });
    const opened: PinnedDir[] = [jobs];
    try {
      const dir = jobs.child(job.id, { create: true, owner });
      opened.push(dir);
      const work = dir.child("work", { create: true, owner });
      opened.push(work);
      dir.child("outputs", { create: true, owner }).close();
      for (const file of session?.files ?? []) restoreFile(work, file, owner);
      if (job.files.length > 0) {
        // The job's own files (a skill's scripts): the host's, readable by the sandbox, gone with the job.
        const files = dir.child("files", { create: true });
        opened.push(files);
        for (const f of job.files)
          restoreFile(
            files,
            { path: f.path, mode: f.executable ? 0o755 : 0o644, bytes: Buffer.from(f.base64, "base64") },
            undefined,
          );
      }
    } finally {
      for (const d of opened.reverse()) d.close();
    }

    const argv = job.run.kind === "command" ? ["/bin/bash", "-c", job.run.command] : this.scriptArgv(prepared, job.run);
    const collector = new TailCollector();
    const runStarted = Date.now();
    const result = await prepared.sandbox.run({
      command: argv,
      cwd: workDir,
      env: {
        ...prepared.env,
        ...job.env,
        SKILLPORT_JOB_ID: job.id,
        SKILLPORT_WORK: workDir,
        SKILLPORT_OUTPUTS: outputsDir,
        ...(job.files.length > 0 ? { SKILLPORT_FILES: path.join(jobDir, "files") } : {}),
        ...(prepared.versionDir ? { SKILLPORT_VERSION_DIR: prepared.versionDir } : {}),
      },
      timeoutMs: Math.round(job.timeoutS * 1000),
      maxStdoutBytes: this.options.tailBytes,
      maxStderrBytes: this.options.tailBytes,
      signal: context.signal,
      onOutput: (_stream, chunk) => collector.write(chunk),
    });
    const runMs = Date.now() - runStarted;
    const tail: TruncatedTail = collector.result();
    const outputs = this.collectOutputs(outputsDir);
    let sessionVersion: number | undefined;
    if (session !== undefined && this.options.sessions !== undefined && job.session !== undefined) {
      sessionVersion =
        session.writtenByThisJob ??
        (await this.options.sessions.save(job.session, job.id, session.version, this.collectSession(workDir)));
    }
    if (!context.deferRemoval) removePinnedTree(jobDir);

    const status = result.aborted ? "cancelled" : result.timedOut ? "timed-out" : "completed";
    const reason =
      status === "cancelled"
        ? "cancelled"
        : status === "timed-out"
          ? "timeout"
          : result.outputLimitExceeded
            ? "output-limit"
            : result.exitCode !== 0
              ? "exit-nonzero"
              : undefined;
    return {
      id: job.id,
      tenant: job.tenant,
      status,
      ...(reason ? { reason } : {}),
      observation: formatObservation({
        tail,
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        timeoutMs: Math.round(job.timeoutS * 1000),
        fullOutputPath: undefined,
        fullOutputComplete: false,
        outputLimitBytes: result.outputLimitExceeded ? 256 * 1024 * 1024 : undefined,
      }),
      stdoutTail: result.stdout,
      stderrTail: result.stderr,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      outputs,
      ...(sessionVersion === undefined ? {} : { sessionVersion }),
      ...(prepared.entrypoint ? { entrypoint: prepared.entrypoint } : {}),
      runner: context.runner,
      attempt: context.attempt,
      sandbox: result.sandbox,
      timing: {
        queuedMs: Math.max(0, started - job.submittedAt),
        deployMs,
        runMs,
        totalMs: Date.now() - job.submittedAt,
      },
    };
  }

  /** Removes a job's folder left by `run(job, { deferRemoval: true })` (gone already: nothing to do). */
  async removeJob(job: JobSpec): Promise<void> {
    const ready = await this.prepared.get(job.package?.versionId ?? SCRATCH)?.catch(() => undefined);
    if (ready === undefined) return;
    try {
      removePinnedTree(path.join(ready.root, "jobs", job.id));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  private scriptArgv(prepared: Prepared, run: Extract<JobSpec["run"], { kind: "script" }>): string[] {
    if (prepared.versionDir === undefined) throw new RunnerError("JOB_INVALID", "a script job needs a package");
    const rel = `skills/${run.skill}/scripts/${run.script}`;
    // The script must be a regular file inside the version (confined by the opened file, no link out).
    const file = openConfined(prepared.versionDir, rel, { boundaryName: "the version" });
    file.close();
    const interpreter = INTERPRETERS[path.extname(run.script)] ?? [];
    return [...interpreter, path.join(prepared.versionDir, rel), ...run.args];
  }

  private prepare(job: JobSpec): Promise<Prepared> {
    const key = job.package?.versionId ?? SCRATCH;
    let ready = this.prepared.get(key);
    if (ready === undefined) {
      ready = this.deploy(job.package);
      this.prepared.set(key, ready);
      // A failed preparation is tried again by the next job (a failed entrypoint is not recorded either).
      ready.catch(() => this.prepared.delete(key));
    }
    return ready;
  }

  private async deploy(pkg: JobSpec["package"]): Promise<Prepared> {
    const name = pkg?.versionId ?? SCRATCH;
    const rootRel = pkg === undefined ? SCRATCH : `v/${name}`;
    const stateDir = path.join(this.options.cacheDir, "state", name);
    await mkdir(path.join(this.options.cacheDir, "state"), { recursive: true, mode: 0o700 });
    const ws = new Workspace(path.join(this.options.cacheDir, rootRel), {
      sandbox: this.options.sandbox,
      network: this.options.network,
      stateDir,
      ...(this.options.entrypointTimeout ? { entrypointTimeout: this.options.entrypointTimeout } : {}),
    });
    try {
      if (pkg === undefined) {
        await mkdir(ws.root, { recursive: true });
        const sandbox = await ws.sandbox();
        return { ws, sandbox, root: sandbox.writableDir, versionDir: undefined, env: {}, entrypoint: undefined };
      }
      const bytes = await this.options.packages.get(pkg.versionId, pkg.digest);
      const deployed = await ws.deploy([bytes]);
      const report = await deployed.initialization;
      if (deployed.versions[0]?.versionId !== pkg.versionId) {
        throw new RunnerError(
          "PACKAGE_DIGEST",
          `package ${pkg.versionId}: the archive unpacked as version ${deployed.versions[0]?.versionId ?? "(none)"}`,
        );
      }
      const outcome = report.outcomes.find((o) => o.target === pkg.versionId);
      if (report.failed) {
        const bad = report.outcomes.find((o) => o.status === "failed" || o.status === "timed-out");
        const tail = bad ? `${bad.stderrTail}${bad.stdoutTail}`.trim().split("\n").slice(-3).join(" | ") : "";
        throw new RunnerError(
          "ENTRYPOINT_FAILED",
          `entrypoint of ${pkg.versionId} ${bad?.status ?? "failed"}${bad?.exitCode == null ? "" : ` (exit ${bad.exitCode})`}${tail ? `: ${tail}` : ""}`,
        );
      }
      const target = await ws.codeTarget(pkg.versionId);
      return {
        ws,
        sandbox: target.sandbox,
        root: target.sandbox.writableDir,
        versionDir: target.workDir,
        env: target.env,
        entrypoint: outcome?.status,
      };
    } catch (error) {
      await ws.close();
      throw error;
    }
  }

  private collectOutputs(dir: string): OutputFile[] {
    let budget = this.options.maxInlineOutputBytes;
    const files: OutputFile[] = [];
    for (const { file, bytes } of this.readTree(dir, this.options.maxOutputFiles, this.options.maxSessionBytes)) {
      const record: OutputFile = {
        path: file.path,
        size: bytes.byteLength,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      };
      if (bytes.byteLength <= budget) {
        record.base64 = Buffer.from(bytes).toString("base64");
        budget -= bytes.byteLength;
      } else budget = 0; // once one file does not fit, none after it is inlined: a prefix of the list, never a gap
      files.push(record);
    }
    return files;
  }

  private collectSession(dir: string): SessionFile[] {
    return this.readTree(dir, 10_000, this.options.maxSessionBytes).map(({ file, bytes }) => ({
      path: file.path,
      mode: file.mode & 0o777,
      bytes,
    }));
  }

  /** Regular files of a sandbox-written tree: links and special files left out, every read confined by the opened file. */
  private readTree(
    dir: string,
    maxFiles: number,
    maxTotal: number,
  ): { file: { path: string; mode: number }; bytes: Uint8Array }[] {
    let walk;
    try {
      walk = walkTree(dir, { links: "exclude", onProblem: "collect", maxFiles, maxDepth: 16 });
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const out: { file: { path: string; mode: number }; bytes: Uint8Array }[] = [];
    let total = 0;
    for (const entry of walk.entries) {
      if (entry.kind !== "file" || entry.viaLink || entry.nlink > 1) continue;
      let file;
      try {
        file = openConfined(dir, entry.path, { refuseHardLinks: true });
      } catch {
        continue; // swapped for a link or removed meanwhile: left out
      }
      try {
        const bytes = file.readAllSync(Math.max(0, maxTotal - total));
        if (bytes === undefined) break; // the total limit: the rest is left out
        total += bytes.byteLength;
        out.push({ file: { path: entry.path, mode: file.mode }, bytes });
      } finally {
        file.close();
      }
    }
    return out;
  }
}

/** Writes one session file under the pinned working folder, creating its folders one at a time (no link followed). */
function restoreFile(work: PinnedDir, file: SessionFile, owner: FileOwner | undefined): void {
  const parts = file.path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..") || parts.length > 32) return; // never written outside
  const name = parts.pop()!;
  let dir = work;
  const opened: PinnedDir[] = [];
  try {
    for (const part of parts) {
      dir = dir.child(part, { create: true, owner });
      opened.push(dir);
    }
    dir.replaceFile(name, file.bytes, file.mode & 0o755, owner);
  } finally {
    for (const d of opened) d.close();
  }
}
