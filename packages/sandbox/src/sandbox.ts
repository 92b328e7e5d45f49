import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { InvalidPathError, LimitExceededError } from "@skillport/core";
import { isInside } from "@skillport/fs";
import {
  fitsLauncher,
  isWaiting,
  LAUNCHER_ARGV_FD,
  LAUNCHER_INPUT_FD,
  runProcess,
  startWaiting,
  type OutputStream,
  type ProcessOutcome,
  type WaitingProcess,
} from "./run-process.js";
import { bubblewrapArgs, bubblewrapFeatures, findBubblewrap, type BubblewrapFeatures } from "./bubblewrap.js";
import {
  findNsenter,
  FORWARDER_FILTER_FD,
  forwarderProgram,
  holdForwarder,
  type ForwarderProgram,
  type HeldForwarder,
} from "./egress-forwarder.js";
import { boundSnapshot } from "./etc-snapshot.js";
import { SandboxUnavailableError } from "./errors.js";
import { closeInheritedFds } from "./fds.js";
import {
  giveDirectory,
  planIdentity,
  shareDirectory,
  type IdRange,
  type IdentityPlan,
  type SandboxIdentity,
} from "./identity.js";
import { missingFilterWarning, seccompFilter } from "./seccomp.js";
import { acquireLimits, withPrologue, type AppliedLimits, type LimitMechanism } from "./limits.js";
import type { EgressEvent, EgressProxy } from "./egress.js";
import { runPolicy, type RunPolicyPlan } from "./run-policy.js";
import type { TraceRecord } from "./trace.js";

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
  /**
   * Send the command's stderr to its stdout pipe: one pipe, so the merged order is exact (not a race of two pipes).
   * Everything then arrives as `stdout`, including the sandbox's own error messages (bwrap, setpriv); `stderr` is empty.
   */
  mergeStderr?: boolean;
  /**
   * bubblewrap: network only through this egress proxy (its socket is bound in; a loopback forwarder inside serves
   * `HTTP_PROXY`/`HTTPS_PROXY` = http://127.0.0.1:3128). The network namespace stays unshared. The result lists the
   * attempts made during this run (`egress`).
   */
  egress?: EgressProxy;
  /**
   * bubblewrap: the only folders (relative to the writable directory) this run may write; the rest of the writable
   * directory is read-only for it (HOME, when a separate folder, and /tmp stay writable). Created when missing.
   */
  writes?: readonly string[];
  /** bubblewrap: record what the run did with `strace -f` (result `trace`); a warning when strace is missing. */
  trace?: boolean;
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
  /** The kernel killed a process of the run for the memory limit (known with the cgroup mechanism only). */
  memoryLimitExceeded: boolean;
  aborted: boolean;
  durationMs: number;
  sandbox: SandboxKind;
  isolates: boolean;
  pidLimit: LimitMechanism;
  memoryLimit: LimitMechanism;
  /** The host uid/gid the command ran as (never 0 when the host is root). */
  identity: SandboxIdentity;
  /** Things the caller should know, e.g. that nothing was isolated. */
  warnings: string[];
  /** With `egress`: every attempt through the proxy during this run. */
  egress?: EgressEvent[];
  /** With `trace`: what the run did, from the syscall trace. */
  trace?: TraceRecord;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  /** False for the plain process backend: it applies limits and drops root but isolates nothing. */
  readonly isolates: boolean;
  /** The one directory the sandboxed command may write to (real path). */
  readonly writableDir: string;
  /** The host uid/gid sandboxed commands run as. */
  readonly identity: SandboxIdentity;
  run(request: RunRequest): Promise<RunResult>;
  /** Stops the pre-started launcher, if any. Optional to call: an idle launcher never keeps Node alive. */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** "auto" (default) = bubblewrap when it works here, else the plain process backend (results then say so). */
  kind?: SandboxKind | "auto";
  /**
   * The only writable directory (e.g. the workspace). On a root host it is shared with `runAs`'s group (group rwx +
   * sticky bit): sandboxed code can create entries but not rename or delete what the host put there.
   */
  writableDir: string;
  /** HOME inside the sandbox. Default: `writableDir`. Must be inside `writableDir`; on a root host it becomes `runAs`'s. */
  home?: string;
  /** Allow network access (bubblewrap only; the process backend cannot take it away). Default false. */
  network?: boolean;
  /** Most processes at once (fork bombs fail). Default 256. */
  maxProcesses?: number;
  /** Most memory for the whole run (cgroup) or per process (RLIMIT_AS fallback). Default 1 GiB. */
  maxMemoryBytes?: number;
  /** Size of the private /tmp (bubblewrap). Default 256 MiB. */
  tmpSizeBytes?: number;
  /**
   * Root hosts only: the non-root host uid/gid sandboxed code runs as. Default for bubblewrap 65534:65534
   * (nobody:nogroup); for the process backend one drawn from `unisolatedIds` for the writable directory.
   */
  runAs?: SandboxIdentity;
  /**
   * Root hosts, process backend: the uids/gids its identity is drawn from (a hash of the writable directory), so it
   * never shares a uid with bubblewrap sandboxes or other workspaces. Default DEFAULT_UNISOLATED_IDS.
   */
  unisolatedIds?: IdRange;
  /** Extra host paths mounted read-only (bubblewrap). */
  readOnlyPaths?: readonly string[];
  /** Path of the bwrap binary. Default: found on PATH, /usr/bin/bwrap, /usr/local/bin/bwrap (probed). */
  bwrapPath?: string;
  /**
   * bubblewrap: keep one launcher started ahead of time (its limits already applied), so joining the cgroup is off
   * the next run's path. Default true. `"first"`: only the first run's, started at construction — for a caller that
   * runs one command and exits (a CLI command), which would otherwise start a launcher and a cgroup it never uses.
   */
  prewarm?: boolean | "first";
  /**
   * bubblewrap on a root host: the first launcher prepared ahead holds the egress forwarder (decision 0430), for a
   * sandbox whose runs go through the egress proxy (`RunRequest.egress`). Later launchers follow the last run's kind.
   */
  prewarmEgress?: boolean;
}

export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 256;
export const DEFAULT_MAX_MEMORY_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_TMP_SIZE_BYTES = 256 * 1024 * 1024;
/** How long after a run starts the next launcher is prepared (see BubblewrapSandbox.prewarmSoon). */
const PREWARM_DELAY_MS = 25;
/** Longest run accepted: 10 minutes, as agents' shell tools allow. */
export const MAX_RUN_TIMEOUT_MS = 600_000;

export const PROCESS_SANDBOX_WARNING =
  "sandbox 'process' does not isolate: the command can read and write anything its user can, and use the network";

/** Creates the requested sandbox; asking for bubblewrap where it does not work throws SandboxUnavailableError. */
export function createSandbox(options: SandboxOptions): Sandbox {
  const kind = options.kind ?? "auto";
  if (kind === "process") return new ProcessSandbox(options);
  const bwrap = findBubblewrap(options.bwrapPath);
  if (bwrap) return new BubblewrapSandbox({ ...options, bwrapPath: bwrap });
  if (kind === "bubblewrap") {
    throw new SandboxUnavailableError(
      "sandbox 'bubblewrap' requested but bwrap is not installed or cannot create its namespaces here (install bubblewrap, or choose sandbox 'process' knowingly)",
    );
  }
  return new ProcessSandbox(options, [
    "bubblewrap is not installed or does not work here; fell back to sandbox 'process'",
  ]);
}

/** Checks a size/count limit option: a positive integer of at least `min`. */
export function limitOption(value: number | undefined, fallback: number, name: string, min: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min)
    throw new LimitExceededError(name, `${name} must be an integer of at least ${min}`);
  return v;
}

abstract class BaseSandbox implements Sandbox {
  abstract readonly kind: SandboxKind;
  abstract readonly isolates: boolean;
  readonly writableDir: string;
  readonly identity: SandboxIdentity;
  protected readonly home: string;
  protected readonly plan: IdentityPlan;
  protected readonly maxProcesses: number;
  protected readonly maxMemoryBytes: number;
  protected readonly tmpSizeBytes: number;

  /** `isolated`: bubblewrap (its own PID namespace); false: code that shares the host's, and gets an identity of its own. */
  constructor(options: SandboxOptions, isolated: boolean) {
    this.writableDir = realDir(options.writableDir, "writableDir");
    this.home = options.home === undefined ? this.writableDir : realDir(options.home, "home");
    if (!isInside(this.writableDir, this.home))
      throw new InvalidPathError("home", "must be inside the writable directory");
    this.maxProcesses = limitOption(options.maxProcesses, DEFAULT_MAX_PROCESSES, "maxProcesses", 2);
    this.maxMemoryBytes = limitOption(
      options.maxMemoryBytes,
      DEFAULT_MAX_MEMORY_BYTES,
      "maxMemoryBytes",
      16 * 1024 * 1024,
    );
    this.tmpSizeBytes = limitOption(options.tmpSizeBytes, DEFAULT_TMP_SIZE_BYTES, "tmpSizeBytes", 1024 * 1024);
    this.plan = planIdentity(
      options.runAs,
      isolated ? undefined : { key: this.writableDir, range: options.unisolatedIds },
    );
    this.identity = this.plan.identity;
    shareDirectory(this.writableDir, this.plan);
    if (this.home !== this.writableDir) giveDirectory(this.home, this.plan);
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (request.command.length === 0) throw new InvalidPathError("", "empty command");
    const timeoutMs = request.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_RUN_TIMEOUT_MS) {
      throw new LimitExceededError("timeout", `timeout must be between 1 ms and ${MAX_RUN_TIMEOUT_MS / 1000} s`);
    }
    const cwd = request.cwd === undefined ? this.writableDir : realDir(request.cwd, "cwd");
    if (!isInside(this.writableDir, cwd)) {
      throw new InvalidPathError(
        path.relative(this.writableDir, cwd),
        "the working directory must be inside the workspace",
      );
    }
    const warnings: string[] = [];
    const eventsFrom = request.egress?.events.length ?? 0;
    const { file, args, env, limits, waiting, policy } = await this.prepare(request, cwd, warnings);
    let outcome: ProcessOutcome;
    let oomKills = 0;
    try {
      outcome = await runProcess(
        {
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
          mergeStderr: request.mergeStderr,
        },
        waiting,
      );
      oomKills = (await limits.cgroup?.oomKills()) ?? 0;
    } finally {
      await limits.dispose();
    }
    const observed = policy?.finish();
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
      memoryLimitExceeded: oomKills > 0,
      aborted: outcome.aborted,
      durationMs: outcome.durationMs,
      sandbox: this.kind,
      isolates: this.isolates,
      pidLimit: limits.pidLimit,
      memoryLimit: limits.memoryLimit,
      identity: this.identity,
      warnings,
      ...(request.egress !== undefined && { egress: request.egress.since(eventsFrom) }),
      ...(observed?.trace !== undefined && { trace: observed.trace }),
    };
  }

  /** bubblewrap reports a command killed by signal N as exit code 128+N; name the signal for callers. */
  protected signalFromExitCode(_code: number | null): string | null {
    return null;
  }

  async close(): Promise<void> {}

  protected abstract prepare(request: RunRequest, cwd: string, warnings: string[]): Promise<PreparedRun>;

  protected limits(): AppliedLimits {
    return acquireLimits(
      { maxProcesses: this.maxProcesses, maxMemoryBytes: this.maxMemoryBytes },
      { rlimitMemory: true },
    );
  }
}

interface PreparedRun {
  file: string;
  args: string[];
  env: Record<string, string>;
  limits: AppliedLimits;
  /** A launcher started earlier that will exec file+args. */
  waiting?: WaitingProcess;
  /** The run's egress/writes/trace set-up, finished after the run. */
  policy?: RunPolicyPlan;
}

interface Launcher {
  waiting: WaitingProcess;
  limits: AppliedLimits;
  /** An egress launcher: it holds the forwarder, in whose network namespace the run's bwrap starts. */
  forwarder?: HeldForwarder;
}

/** A plain child process: same limits, identity and scrubbed environment, but NO isolation. */
export class ProcessSandbox extends BaseSandbox {
  readonly kind = "process" as const;
  readonly isolates = false;
  private readonly extraWarnings: readonly string[];

  constructor(options: SandboxOptions, extraWarnings: readonly string[] = []) {
    super(options, false);
    this.extraWarnings = extraWarnings;
  }

  protected async prepare(request: RunRequest, _cwd: string, warnings: string[]): Promise<PreparedRun> {
    warnings.push(...this.extraWarnings, PROCESS_SANDBOX_WARNING);
    if (request.egress !== undefined || request.writes !== undefined || request.trace === true) {
      warnings.push(
        "the process backend enforces no egress proxy, write narrowing or trace: the command has the host's network and files",
      );
    }
    const env = allowListEnv(
      {
        PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        HOME: this.home,
        TMPDIR: process.env.TMPDIR ?? os.tmpdir(),
      },
      request.env,
    );
    const limits = this.limits();
    // No launcher here: the prologue's shell closes inherited descriptors and merges the streams before it execs.
    const prologue = [limits.prologue, closeInheritedFds(), request.mergeStderr ? "exec 2>&1" : ""]
      .filter(Boolean)
      .join("; ");
    const [file, ...args] = withPrologue(prologue, [...this.plan.dropArgv, ...request.command]);
    return { file: file!, args, env, limits };
  }
}

export interface BubblewrapSandboxOptions extends SandboxOptions {
  bwrapPath: string;
}

/**
 * bubblewrap: read-only system, the writable directory the only writable path, new namespaces (network only when
 * allowed), private size-limited /tmp, read-only kernel interfaces in /proc, cleared environment, dies with its
 * parent, and never host root (see identity.ts).
 */
export class BubblewrapSandbox extends BaseSandbox {
  readonly kind = "bubblewrap" as const;
  readonly isolates = true;
  readonly bwrapPath: string;
  readonly network: boolean;
  private policyArgs: readonly string[];
  private readonly policy: (network?: boolean) => string[];
  /** The policy of a run in an egress launcher's network namespace (no `--unshare-net`); undefined until needed. */
  private egressPolicyArgs: readonly string[] | undefined;
  /** The forwarder's own sandbox policy (egress launchers); undefined until needed. */
  private forwarderPolicyArgs: readonly string[] | undefined;
  /** Root hosts without the host network: launchers can hold the egress forwarder (egress-forwarder.ts). */
  private holder: { nsenter: string; forwarder: ForwarderProgram } | undefined;
  /** A forwarder's launcher gave up before its run: said once in a run's warnings. */
  private holderFailed: "no" | "unsaid" | "said" = "no";
  private readonly features: BubblewrapFeatures;
  /** The kind of launcher prepared next: the last run's. */
  private nextEgress: boolean;
  private readonly prewarm: boolean | "first";
  private next: Promise<Launcher | undefined> | undefined;
  private prewarmTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** The seccomp filter for this host's architecture (seccomp.ts); undefined: none is built for it. */
  private readonly filter = seccompFilter();

  constructor(options: BubblewrapSandboxOptions) {
    super(options, true);
    this.bwrapPath = options.bwrapPath;
    this.network = options.network ?? false;
    const readOnlyPaths = (options.readOnlyPaths ?? []).map((p) => realDir(p, "readOnlyPaths"));
    const features = bubblewrapFeatures(this.bwrapPath);
    this.features = features;
    const seccompFd = this.filter === undefined ? undefined : LAUNCHER_INPUT_FD;
    this.policy = (network = this.network) =>
      bubblewrapArgs(
        { writableDirs: [this.writableDir], readOnlyPaths, network, tmpSizeBytes: this.tmpSizeBytes },
        this.plan,
        features,
        seccompFd,
      );
    this.policyArgs = this.policy();
    const nsenter = this.plan.mode === "drop" && !this.network ? findNsenter() : undefined;
    const forwarder = nsenter === undefined ? undefined : forwarderProgram();
    this.holder = nsenter !== undefined && forwarder !== undefined ? { nsenter, forwarder } : undefined;
    this.nextEgress = this.holder !== undefined && options.prewarmEgress === true;
    this.prewarm = options.prewarm ?? true;
    // The first launcher starts now, while the caller still prepares its first run.
    if (this.prewarm) this.next = this.startLauncher(this.nextEgress).catch(() => undefined);
  }

  protected override signalFromExitCode(code: number | null): string | null {
    if (code === null || code <= 128 || code > 128 + 64) return null;
    const entry = Object.entries(os.constants.signals).find(([, n]) => n === code - 128);
    return entry ? entry[0] : null;
  }

  /**
   * The bwrap arguments for a command (exposed for tests and `--explain` style tooling). `sharedNetwork`: the run
   * starts in an egress launcher's network namespace (no `--unshare-net`).
   */
  bwrapArgs(
    command: readonly string[],
    cwd: string,
    env: Record<string, string>,
    policy?: RunPolicyPlan,
    sharedNetwork = false,
  ): string[] {
    const args = [...this.headArgs(sharedNetwork), ...(policy?.bwrapArgs ?? []), "--clearenv"];
    for (const [key, value] of Object.entries({ ...env, ...policy?.env })) args.push("--setenv", key, value);
    args.push(
      "--chdir",
      cwd,
      "--",
      ...(policy?.outer ?? []),
      ...this.plan.dropArgv,
      ...(policy?.inner ?? []),
      ...command,
    );
    return args;
  }

  protected async prepare(request: RunRequest, cwd: string, warnings: string[]): Promise<PreparedRun> {
    if (this.filter === undefined) warnings.push(missingFilterWarning());
    const env = allowListEnv({ PATH: "/usr/local/bin:/usr/bin:/bin", HOME: this.home, TMPDIR: "/tmp" }, request.env);
    // The shared /etc snapshot this sandbox binds can be swept by another process once /etc has changed a few times
    // (decision 0221): a long-lived sandbox then takes the current one instead of failing at bwrap's bind.
    const snapshot = boundSnapshot(this.policyArgs);
    if (snapshot !== undefined && !existsSync(snapshot)) {
      this.policyArgs = this.policy();
      this.egressPolicyArgs = undefined;
      this.forwarderPolicyArgs = undefined;
    }
    // A run through the egress proxy takes a launcher that holds the forwarder, where this host allows one.
    // A run through the egress proxy takes a launcher holding the forwarder when one is ready; otherwise the plain one
    // (a forwarder in the run: cheaper than starting a launcher with its forwarder on the run's path).
    const wantHeld = request.egress !== undefined && this.holder !== undefined;
    let taken: Launcher | undefined;
    let policy: RunPolicyPlan | undefined;
    let detach = (): void => undefined;
    try {
      taken = await this.takeLauncher(wantHeld);
      policy = runPolicy(
        request,
        {
          writableDir: this.writableDir,
          home: this.home,
          network: this.network,
          dropArgv: this.plan.dropArgv,
          ...(this.plan.mode === "drop" && { owner: this.identity }),
          forwarderHeld: taken.forwarder !== undefined,
        },
        warnings,
      );
      // The run's proxy is served where the launcher's forwarder connects, before the command can start.
      if (request.egress !== undefined && taken.forwarder !== undefined)
        detach = await request.egress.listenAlso(taken.forwarder.socketPath);
    } catch (error) {
      if (taken !== undefined) await discard(taken);
      policy?.finish();
      throw error;
    }
    const launcher = taken;
    const held = launcher.forwarder !== undefined;
    if (this.holderFailed === "unsaid") {
      this.holderFailed = "said";
      warnings.push(
        "a launcher could not hold the egress forwarder here (see docs/sandbox.md); runs through the proxy start it themselves",
      );
    }
    this.nextEgress = request.egress !== undefined && this.holder !== undefined;
    if (this.prewarm === true) this.prewarmSoon();
    const forwarder = launcher.forwarder;
    const limits: AppliedLimits =
      forwarder === undefined
        ? launcher.limits
        : {
            ...launcher.limits,
            dispose: async () => {
              detach();
              forwarder.dispose();
              await launcher.limits.dispose();
            },
          };
    return {
      file: this.bwrapPath,
      // bwrap itself gets an empty environment too: nothing of the parent's leaks through it.
      args: this.bwrapArgs(request.command, cwd, env, policy, held),
      env: {},
      limits,
      waiting: launcher.waiting,
      ...(policy !== undefined && { policy }),
    };
  }

  /** The policy part every run of this kind shares (a launcher is given it when it starts). */
  private headArgs(sharedNetwork: boolean): readonly string[] {
    if (!sharedNetwork) return this.policyArgs;
    this.egressPolicyArgs ??= this.policy(true);
    return this.egressPolicyArgs;
  }

  /**
   * The next launcher starts shortly after a run begins, from an unref'd timer: a long-lived host gets it off the next
   * run's path, while a one-shot process (a CLI command) exits without creating a cgroup it will never use.
   */
  private prewarmSoon(): void {
    clearTimeout(this.prewarmTimer);
    this.prewarmTimer = setTimeout(() => {
      this.prewarmTimer = undefined;
      if (this.next === undefined && !this.closed)
        this.next = this.startLauncher(this.nextEgress).catch(() => undefined);
    }, PREWARM_DELAY_MS);
    this.prewarmTimer.unref();
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.prewarmTimer);
    this.prewarmTimer = undefined;
    const pending = this.next;
    this.next = undefined;
    const launcher = pending ? await pending : undefined;
    if (launcher !== undefined) await discard(launcher);
  }

  /**
   * The launcher prepared ahead when it fits: one holding the egress forwarder only for a run through the proxy
   * (`egress`), a plain one for any run (a run through the proxy then starts its forwarder itself). Else a fresh plain
   * one: a forwarder's launcher started now would put its start on the run's path.
   */
  private async takeLauncher(egress: boolean): Promise<Launcher> {
    const pending = this.next;
    this.next = undefined;
    const warm = pending ? await pending : undefined;
    if (warm?.forwarder !== undefined && warm.waiting.child.exitCode === 125) {
      // It gave up before its run (its forwarder did not start or accept, nsenter failed): this host cannot hold one.
      // From now on runs through the proxy start their forwarder themselves.
      this.holder = undefined;
      this.nextEgress = false;
      if (this.holderFailed === "no") this.holderFailed = "unsaid";
    }
    if (warm && isWaiting(warm.waiting)) {
      const holds = warm.forwarder !== undefined;
      if ((egress || !holds) && fitsLauncher(warm.waiting, [this.bwrapPath, ...this.headArgs(holds)])) return warm;
    }
    if (warm !== undefined) await discard(warm);
    const fresh = await this.startLauncher(false);
    if (isWaiting(fresh.waiting)) return fresh;
    await discard(fresh);
    throw new SandboxUnavailableError("cannot start /bin/bash, which starts every sandboxed run");
  }

  private async startLauncher(egress: boolean): Promise<Launcher> {
    const limits = this.limits();
    const head = [this.bwrapPath, ...this.headArgs(egress)];
    if (!egress || this.holder === undefined) {
      // The filter waits in a pipe Node fills when the launcher starts: nothing on the run's path, no extra process.
      return { waiting: startWaiting(limits.prologue, "/", {}, head, this.filter), limits };
    }
    // The forwarder's own sandbox: the same policy without the workspace, its network namespace unshared (built once,
    // like the run's: about 1.5 ms of checks on the /etc snapshot).
    this.forwarderPolicyArgs ??= bubblewrapArgs(
      { writableDirs: [], readOnlyPaths: [], network: false, tmpSizeBytes: 1024 * 1024 },
      this.plan,
      this.features,
      this.filter === undefined ? undefined : FORWARDER_FILTER_FD,
    );
    const forwarder = holdForwarder({
      bwrapPath: this.bwrapPath,
      policyArgs: this.forwarderPolicyArgs,
      dropArgv: this.plan.dropArgv,
      forwarder: this.holder.forwarder,
      nsenter: this.holder.nsenter,
      filter: this.filter,
      keep: this.filter === undefined ? [LAUNCHER_ARGV_FD] : [LAUNCHER_ARGV_FD, LAUNCHER_INPUT_FD],
    });
    return {
      waiting: startWaiting(limits.prologue, "/", {}, head, this.filter, forwarder.script),
      limits,
      forwarder,
    };
  }
}

/** Stops a launcher that will not be used and releases what it holds. */
async function discard(launcher: Launcher): Promise<void> {
  if (launcher.waiting.child.pid !== undefined) stopLauncher(launcher.waiting.child.pid);
  launcher.forwarder?.dispose();
  await launcher.limits.dispose();
}

/** Kills a launcher that will not be used (its process group: bash, and whatever it started). */
function stopLauncher(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Gone.
  }
}

/** PATH, HOME, LANG, TMPDIR and the caller's variables; nothing else from the parent. */
function allowListEnv(
  base: { PATH: string; HOME: string; TMPDIR: string },
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const env: Record<string, string> = { ...base, LANG: process.env.LANG ?? "C.UTF-8" };
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new InvalidPathError(key, "not a valid environment variable name");
    env[key] = String(value);
  }
  return env;
}

export function realDir(p: string, what: string): string {
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
