import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { AgentSkillsError, LimitExceededError, InvalidPathError } from "@skillport/core";
import { isInside } from "@skillport/fs";
import { isWaiting, runProcess, startWaiting, type OutputStream, type ProcessOutcome, type WaitingProcess } from "./run-process.js";
import { etcSnapshot } from "./etc-snapshot.js";
import { createPidCgroup, isRoot, joinCgroup, withRlimit, type PidCgroup, type PidLimitMechanism } from "./pid-limit.js";

export type SandboxKind = "bubblewrap" | "process";

/** A command to run. `command` is an argv: no shell unless you pass one (`["bash", "-c", "…"]`). */
export interface RunRequest {
  command: readonly string[];
  /** Absolute directory to start in; must be inside the sandbox's writable directory. Default: that directory. */
  cwd?: string;
  /** Extra variables on top of the allow-list (PATH, HOME, LANG, TMPDIR). */
  env?: Record<string, string>;
  /** Default 30 s. */
  timeoutMs?: number;
  /** Tail of stdout kept in the result. Default 64 KiB. */
  maxStdoutBytes?: number;
  /** Tail of stderr kept in the result. Default 64 KiB. */
  maxStderrBytes?: number;
  /** Total output after which the run is killed. Default 256 MiB. */
  maxOutputBytes?: number;
  /** Sees every output chunk in arrival order. */
  onOutput?: (stream: OutputStream, chunk: Buffer) => void;
  signal?: AbortSignal;
}

export interface RunResult {
  /** Last `maxStdoutBytes` of stdout. */
  stdout: string;
  stderr: string;
  /** Total bytes the command wrote to each stream (kept or not). */
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Null when ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The output passed `maxOutputBytes` and the run was killed. */
  outputLimitExceeded: boolean;
  aborted: boolean;
  durationMs: number;
  sandbox: SandboxKind;
  isolates: boolean;
  pidLimit: PidLimitMechanism;
  /** Things the caller should know, e.g. that nothing was isolated. */
  warnings: string[];
}

export interface Sandbox {
  readonly kind: SandboxKind;
  /** False for the plain process backend: it applies limits but isolates nothing. */
  readonly isolates: boolean;
  /** The one directory the sandboxed command may write to (real path). */
  readonly writableDir: string;
  run(request: RunRequest): Promise<RunResult>;
  /** Stops the pre-started launcher, if any. Optional to call: an idle launcher never keeps Node alive. */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** "auto" (default) = bubblewrap when installed, else the plain process backend (results then say so). */
  kind?: SandboxKind | "auto";
  /** The only writable directory (e.g. the workspace). */
  writableDir: string;
  /** HOME inside the sandbox. Default: `writableDir`. Must be inside `writableDir`. */
  home?: string;
  /** Allow network access (bubblewrap only; the process backend cannot take it away). Default false. */
  network?: boolean;
  /** Most processes at once (fork bombs fail). Default 256. */
  maxProcesses?: number;
  /** Extra host paths mounted read-only (bubblewrap). */
  readOnlyPaths?: readonly string[];
  /** Path of the bwrap binary. Default: found on PATH, /usr/bin/bwrap, /usr/local/bin/bwrap. */
  bwrapPath?: string;
  /**
   * bubblewrap: keep one launcher started ahead of time (already in its process-count cgroup), so joining the
   * cgroup is off the next run's path. Default true.
   */
  prewarm?: boolean;
}

export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 256;
/** Longest run accepted: 10 minutes, as agents' shell tools allow. */
export const MAX_RUN_TIMEOUT_MS = 600_000;

export const PROCESS_SANDBOX_WARNING =
  "sandbox 'process' does not isolate: the command can read and write anything this user can, and use the network";

const NO_PID_LIMIT_WARNING = "no process-count limit available (running as root without a writable pids cgroup)";

/** Raised when a sandbox backend is asked for but cannot work here (never silently replaced). */
export class SandboxUnavailableError extends AgentSkillsError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: "SANDBOX_UNAVAILABLE", cause: options?.cause });
  }
}

/** Finds bwrap, or undefined. */
export function findBubblewrap(explicit?: string): string | undefined {
  const candidates = explicit
    ? [explicit]
    : [...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean).map((d) => path.join(d, "bwrap")), "/usr/bin/bwrap", "/usr/local/bin/bwrap"];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Next.
    }
  }
  return undefined;
}

/** Creates the requested sandbox; asking for bubblewrap where it is missing throws SandboxUnavailableError. */
export function createSandbox(options: SandboxOptions): Sandbox {
  const kind = options.kind ?? "auto";
  if (kind === "process") return new ProcessSandbox(options);
  const bwrap = findBubblewrap(options.bwrapPath);
  if (bwrap) return new BubblewrapSandbox({ ...options, bwrapPath: bwrap });
  if (kind === "bubblewrap") {
    throw new SandboxUnavailableError("sandbox 'bubblewrap' requested but bwrap is not installed (install bubblewrap, or choose sandbox 'process' knowingly)");
  }
  return new ProcessSandbox(options, ["bubblewrap is not installed; fell back to sandbox 'process'"]);
}

abstract class BaseSandbox implements Sandbox {
  abstract readonly kind: SandboxKind;
  abstract readonly isolates: boolean;
  readonly writableDir: string;
  protected readonly home: string;
  protected readonly maxProcesses: number;

  constructor(options: SandboxOptions) {
    this.writableDir = realDir(options.writableDir, "writableDir");
    this.home = options.home === undefined ? this.writableDir : realDir(options.home, "home");
    if (!isInside(this.writableDir, this.home)) throw new InvalidPathError("home", "must be inside the writable directory");
    this.maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    if (!Number.isInteger(this.maxProcesses) || this.maxProcesses < 2) {
      throw new LimitExceededError("maxProcesses", "maxProcesses must be an integer of at least 2");
    }
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (request.command.length === 0) throw new InvalidPathError("", "empty command");
    const timeoutMs = request.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_RUN_TIMEOUT_MS) {
      throw new LimitExceededError("timeout", `timeout must be between 1 ms and ${MAX_RUN_TIMEOUT_MS / 1000} s`);
    }
    const cwd = request.cwd === undefined ? this.writableDir : realDir(request.cwd, "cwd");
    if (!isInside(this.writableDir, cwd)) {
      throw new InvalidPathError(path.relative(this.writableDir, cwd), "the working directory must be inside the workspace");
    }
    const warnings: string[] = [];
    const { file, args, env, cleanup, pidLimit, waiting } = await this.prepare(request, cwd, warnings);
    let outcome: ProcessOutcome;
    try {
      outcome = await runProcess({
        file,
        args,
        cwd: this.kind === "bubblewrap" ? "/" : cwd,
        env,
        timeoutMs,
        maxStdoutBytes: request.maxStdoutBytes ?? DEFAULT_MAX_STREAM_BYTES,
        maxStderrBytes: request.maxStderrBytes ?? DEFAULT_MAX_STREAM_BYTES,
        maxOutputBytes: request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        onOutput: request.onOutput,
        signal: request.signal,
      }, waiting);
    } finally {
      await cleanup();
    }
    return {
      stdout: outcome.stdout.text(),
      stderr: outcome.stderr.text(),
      stdoutBytes: outcome.stdout.total,
      stderrBytes: outcome.stderr.total,
      stdoutTruncated: outcome.stdout.dropped > 0,
      stderrTruncated: outcome.stderr.dropped > 0,
      exitCode: outcome.exitCode,
      signal: outcome.signal ?? this.signalFromExitCode(outcome.exitCode),
      timedOut: outcome.timedOut,
      outputLimitExceeded: outcome.outputLimitExceeded,
      aborted: outcome.aborted,
      durationMs: outcome.durationMs,
      sandbox: this.kind,
      isolates: this.isolates,
      pidLimit,
      warnings,
    };
  }

  /** bubblewrap reports a command killed by signal N as exit code 128+N; name the signal for callers. */
  protected signalFromExitCode(_code: number | null): string | null {
    return null;
  }

  async close(): Promise<void> {}

  protected abstract prepare(request: RunRequest, cwd: string, warnings: string[]): Promise<PreparedRun>;

  /** Wraps argv with the strongest process limit available. */
  protected async limitProcesses(argv: string[], warnings: string[]) {
    const cgroup = isRoot() ? await createPidCgroup(this.maxProcesses) : undefined;
    if (cgroup) {
      return { argv: joinCgroup(cgroup.procsFile, argv), pidLimit: "cgroup" as const, cleanup: cgroup.dispose };
    }
    if (!isRoot()) return { argv, pidLimit: "rlimit" as const, cleanup: async () => undefined, rlimit: true };
    warnings.push(NO_PID_LIMIT_WARNING);
    return { argv, pidLimit: "none" as const, cleanup: async () => undefined };
  }
}

interface PreparedRun {
  file: string;
  args: string[];
  env: Record<string, string>;
  cleanup: () => Promise<void>;
  pidLimit: PidLimitMechanism;
  /** A launcher started earlier that will exec file+args. */
  waiting?: WaitingProcess;
}

interface Launcher {
  waiting: WaitingProcess;
  cgroup: PidCgroup | undefined;
  pidLimit: PidLimitMechanism;
}

/** A plain child process: same timeout, output caps and scrubbed environment, but NO isolation. */
export class ProcessSandbox extends BaseSandbox {
  readonly kind = "process" as const;
  readonly isolates = false;
  private readonly extraWarnings: readonly string[];

  constructor(options: SandboxOptions, extraWarnings: readonly string[] = []) {
    super(options);
    this.extraWarnings = extraWarnings;
  }

  protected async prepare(request: RunRequest, _cwd: string, warnings: string[]) {
    warnings.push(...this.extraWarnings, PROCESS_SANDBOX_WARNING);
    const env = allowListEnv(
      { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: this.home, TMPDIR: process.env.TMPDIR ?? os.tmpdir() },
      request.env,
    );
    let argv = [...request.command];
    if (!isRoot()) argv = withRlimit(this.maxProcesses, argv);
    const limited = await this.limitProcesses(argv, warnings);
    const [file, ...args] = limited.argv;
    return { file: file!, args, env, cleanup: limited.cleanup, pidLimit: limited.pidLimit };
  }
}

export interface BubblewrapSandboxOptions extends SandboxOptions {
  bwrapPath: string;
}

/** System paths every sandbox sees read-only. /etc is an allow-list so shadow files, keys and host config stay out. */
const SYSTEM_DIRS = ["/usr", "/opt/node", "/nix/store"];
const MERGED_USR_LINKS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32"];
const ETC_FILES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/resolv.conf",
  "/etc/localtime",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/mime.types",
  "/etc/os-release",
  "/etc/python3",
];

/**
 * bubblewrap: read-only system, the writable directory the only writable path, every namespace unshared
 * (network only when allowed), private /tmp, minimal /dev and /proc, cleared environment, dies with its parent.
 */
export class BubblewrapSandbox extends BaseSandbox {
  readonly kind = "bubblewrap" as const;
  readonly isolates = true;
  readonly bwrapPath: string;
  readonly network: boolean;
  private readonly readOnlyPaths: readonly string[];
  private readonly systemMounts: readonly string[];
  private readonly prewarm: boolean;
  private next: Promise<Launcher | undefined> | undefined;

  constructor(options: BubblewrapSandboxOptions) {
    super(options);
    this.bwrapPath = options.bwrapPath;
    this.network = options.network ?? false;
    this.readOnlyPaths = (options.readOnlyPaths ?? []).map((p) => realDir(p, "readOnlyPaths"));
    this.systemMounts = systemMounts(this.readOnlyPaths, this.writableDir);
    this.prewarm = options.prewarm ?? true;
  }

  protected override signalFromExitCode(code: number | null): string | null {
    if (code === null || code <= 128 || code > 128 + 64) return null;
    const entry = Object.entries(os.constants.signals).find(([, n]) => n === code - 128);
    return entry ? entry[0] : null;
  }

  /** The bwrap arguments for a command (exposed for tests and `--explain` style tooling). */
  bwrapArgs(command: readonly string[], cwd: string, env: Record<string, string>, rlimit: number | undefined): string[] {
    const args = [...this.systemMounts];
    args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
    args.push("--bind", this.writableDir, this.writableDir);
    args.push("--unshare-all");
    if (this.network) args.push("--share-net");
    // Run as root, bwrap keeps every capability inside unless told otherwise — enough to remount /usr read-write.
    args.push("--cap-drop", "ALL");
    args.push("--die-with-parent", "--new-session", "--clearenv");
    for (const [key, value] of Object.entries(env)) args.push("--setenv", key, value);
    args.push("--chdir", cwd, "--");
    args.push(...(rlimit === undefined ? command : withRlimit(rlimit, command)));
    return args;
  }

  protected async prepare(request: RunRequest, cwd: string, warnings: string[]): Promise<PreparedRun> {
    const env = allowListEnv({ PATH: "/usr/local/bin:/usr/bin:/bin", HOME: this.home, TMPDIR: "/tmp" }, request.env);
    const launcher = await this.takeLauncher();
    if (this.prewarm) this.next = this.startLauncher().catch(() => undefined);
    if (launcher === undefined) {
      // No bash launcher available: join the cgroup on the run's own path.
      const limited = await this.limitProcesses([this.bwrapPath], warnings);
      const rlimit = "rlimit" in limited ? this.maxProcesses : undefined;
      const [file, ...args] = [...limited.argv, ...this.bwrapArgs(request.command, cwd, env, rlimit)];
      return { file: file!, args, env: {}, cleanup: limited.cleanup, pidLimit: limited.pidLimit };
    }
    if (launcher.pidLimit === "none") warnings.push(NO_PID_LIMIT_WARNING);
    const rlimit = launcher.pidLimit === "rlimit" ? this.maxProcesses : undefined;
    return {
      file: this.bwrapPath,
      // bwrap itself gets an empty environment too: nothing of the parent's leaks through it.
      args: this.bwrapArgs(request.command, cwd, env, rlimit),
      env: {},
      cleanup: async () => launcher.cgroup?.dispose(),
      pidLimit: launcher.pidLimit,
      waiting: launcher.waiting,
    };
  }

  override async close(): Promise<void> {
    const pending = this.next;
    this.next = undefined;
    const launcher = pending ? await pending : undefined;
    if (launcher?.waiting.child.pid !== undefined) {
      try {
        process.kill(-launcher.waiting.child.pid, "SIGKILL");
      } catch {
        // Gone.
      }
    }
    await launcher?.cgroup?.dispose();
  }

  private async takeLauncher(): Promise<Launcher | undefined> {
    const pending = this.next;
    this.next = undefined;
    const warm = pending ? await pending : undefined;
    if (warm && isWaiting(warm.waiting)) return warm;
    await warm?.cgroup?.dispose();
    const fresh = await this.startLauncher().catch(() => undefined);
    if (fresh && isWaiting(fresh.waiting)) return fresh;
    await fresh?.cgroup?.dispose();
    return undefined;
  }

  private async startLauncher(): Promise<Launcher> {
    const cgroup = isRoot() ? await createPidCgroup(this.maxProcesses) : undefined;
    const pidLimit: PidLimitMechanism = cgroup ? "cgroup" : isRoot() ? "none" : "rlimit";
    return { waiting: startWaiting(cgroup?.procsFile, "/", {}), cgroup, pidLimit };
  }
}

/** The read-only part of the mount table; computed once per sandbox (only paths that exist on this host). */
function systemMounts(readOnlyPaths: readonly string[], writableDir: string): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) if (existsSync(dir)) args.push("--ro-bind", dir, dir);
  for (const link of MERGED_USR_LINKS) {
    const target = symlinkTarget(link);
    if (target !== undefined) args.push("--symlink", target, link);
    else if (existsSync(link)) args.push("--ro-bind", link, link);
  }
  const snapshot = etcSnapshot(ETC_FILES);
  // The snapshot must not be writable from inside any sandbox (a workspace that contains the temp directory).
  if (snapshot !== undefined && !isInside(writableDir, snapshot)) args.push("--ro-bind", snapshot, "/etc");
  else for (const file of ETC_FILES) if (existsSync(file)) args.push("--ro-bind", file, file);
  for (const p of readOnlyPaths) args.push("--ro-bind", p, p);
  return args;
}

/** PATH, HOME, LANG, TMPDIR and the caller's variables; nothing else from the parent. */
function allowListEnv(base: { PATH: string; HOME: string; TMPDIR: string }, extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = { ...base, LANG: process.env.LANG ?? "C.UTF-8" };
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new InvalidPathError(key, "not a valid environment variable name");
    env[key] = String(value);
  }
  return env;
}

function realDir(p: string, what: string): string {
  if (!path.isAbsolute(p)) throw new InvalidPathError(p, `${what} must be an absolute path`);
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    throw new InvalidPathError(path.basename(p), `${what} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new InvalidPathError(path.basename(p), `${what} is not a directory`);
  return real;
}


function symlinkTarget(p: string): string | undefined {
  try {
    if (!existsSync(p)) return undefined;
    const real = realpathSync(p);
    return real === p ? undefined : real.replace(/^\//, "");
  } catch {
    return undefined;
  }
}
