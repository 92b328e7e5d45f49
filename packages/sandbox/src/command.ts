import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { bubblewrapArgs, bubblewrapFeatures } from "./bubblewrap.js";
import { SandboxUnavailableError } from "./errors.js";
import { closeInheritedFds } from "./fds.js";
import {
  canAccess,
  planIdentity,
  shareDirectory,
  type IdRange,
  type IdentityPlan,
  type SandboxIdentity,
} from "./identity.js";
import { acquireLimits, withPrologue, type LimitMechanism } from "./limits.js";
import { openFilterStatement, seccompFilter } from "./seccomp.js";
import {
  DEFAULT_MAX_MEMORY_BYTES,
  DEFAULT_MAX_PROCESSES,
  DEFAULT_TMP_SIZE_BYTES,
  limitOption,
  realDir,
} from "./sandbox.js";

/**
 * A long-running process (a plugin worker, a loader) under the same policy as `Sandbox.run`: same mounts, identity,
 * limits and namespaces. The caller spawns it (with its own stdio, IPC channel and lifecycle) and calls `dispose()`
 * once the process is gone.
 */
export interface SandboxedCommandOptions {
  /** argv; the first element is an absolute path. */
  command: readonly string[];
  /** A bwrap path from `findBubblewrap` to isolate the process; undefined runs it as a plain process (limits only). */
  bwrapPath: string | undefined;
  /** The one directory the process may write (shared with the sandbox identity's group on a root host). */
  writableDir?: string;
  /** Host files or directories mounted read-only at the same paths. */
  readOnlyPaths?: readonly string[];
  /** Absolute working directory. */
  cwd: string;
  /**
   * The process's whole environment (nothing of the host's is added). It passes through bwrap, so variables Node adds
   * when spawning (an IPC channel's NODE_CHANNEL_FD) reach the process.
   */
  env: Record<string, string>;
  /**
   * Descriptors above 2 the caller hands the process when it spawns it (its stdio entries past stderr, e.g. an IPC
   * channel at 3). Every other inherited descriptor is closed before the process starts. Default none.
   */
  keepFds?: readonly number[];
  /** Default false. */
  network?: boolean;
  /** Root hosts: default 65534:65534 inside bubblewrap; without it, one drawn from `unisolatedIds` (SandboxOptions). */
  runAs?: SandboxIdentity;
  /** Root hosts, no bubblewrap: the uids/gids the identity is drawn from (a hash of the writable directory or cwd). */
  unisolatedIds?: IdRange;
  /** Default 256. */
  maxProcesses?: number;
  /** Default 1 GiB (cgroup; see `rlimitMemory` for the fallback). */
  maxMemoryBytes?: number;
  /** Default 256 MiB. */
  tmpSizeBytes?: number;
  /** Fall back to RLIMIT_AS when no memory cgroup is available. Default true; false for Node (it reserves far more address space than it uses). */
  rlimitMemory?: boolean;
}

export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The host uid/gid the process runs as (never 0 when the host is root). */
  identity: SandboxIdentity;
  isolates: boolean;
  pidLimit: LimitMechanism;
  memoryLimit: LimitMechanism;
  /** Kills what is left of the process's cgroup and releases it. Call once the process has exited. */
  dispose(): Promise<void>;
}

export async function sandboxedCommand(options: SandboxedCommandOptions): Promise<SandboxedCommand> {
  const [program] = options.command;
  if (program === undefined || !path.isAbsolute(program))
    throw new InvalidPathError(program ?? "", "the command must start with an absolute path");
  const isolated = options.bwrapPath !== undefined;
  const writableDirs = options.writableDir === undefined ? [] : [realDir(options.writableDir, "writableDir")];
  const plan = planIdentity(
    options.runAs,
    isolated ? undefined : { key: writableDirs[0] ?? options.cwd, range: options.unisolatedIds },
  );
  const maxProcesses = limitOption(options.maxProcesses, DEFAULT_MAX_PROCESSES, "maxProcesses", 2);
  const maxMemoryBytes = limitOption(
    options.maxMemoryBytes,
    DEFAULT_MAX_MEMORY_BYTES,
    "maxMemoryBytes",
    16 * 1024 * 1024,
  );
  const tmpSizeBytes = limitOption(options.tmpSizeBytes, DEFAULT_TMP_SIZE_BYTES, "tmpSizeBytes", 1024 * 1024);
  for (const dir of writableDirs) shareDirectory(dir, plan);
  const readOnlyPaths = (options.readOnlyPaths ?? []).map(realPath);
  // Outside bubblewrap the dropped uid walks the real path; inside, bubblewrap creates the parents of each mount.
  const ancestors = !isolated;
  for (const p of readOnlyPaths) requireAccess(p, plan, "r", ancestors);
  for (const p of writableDirs) requireAccess(p, plan, "w", ancestors);
  const keep = [...new Set(options.keepFds ?? [])];
  // Checked before anything is acquired: a bad descriptor number is the caller's error, not a leaked cgroup.
  const closing = closeInheritedFds(keep);
  const limits = acquireLimits({ maxProcesses, maxMemoryBytes }, { rlimitMemory: options.rlimitMemory ?? true });
  const prologue = [limits.prologue, closing];
  let argv: string[];
  if (options.bwrapPath === undefined) {
    argv = [...plan.dropArgv, ...options.command];
  } else {
    const filter = seccompFilter();
    // The filter's pipe takes the first descriptor after the kept ones, opened once the others are closed.
    const seccompFd = filter === undefined ? undefined : Math.max(2, ...keep) + 1;
    if (filter !== undefined && seccompFd !== undefined) prologue.push(openFilterStatement(filter, seccompFd));
    const policy = { writableDirs, readOnlyPaths, network: options.network ?? false, tmpSizeBytes };
    argv = [
      options.bwrapPath,
      ...bubblewrapArgs(policy, plan, bubblewrapFeatures(options.bwrapPath), seccompFd),
      "--chdir",
      options.cwd,
      "--",
      ...plan.dropArgv,
      ...options.command,
    ];
  }
  const [file, ...args] = withPrologue(prologue.filter(Boolean).join("; "), argv);
  return {
    file: file!,
    args,
    env: { ...options.env },
    cwd: options.cwd,
    identity: plan.identity,
    isolates: isolated,
    pidLimit: limits.pidLimit,
    memoryLimit: limits.memoryLimit,
    dispose: limits.dispose,
  };
}

function requireAccess(p: string, plan: IdentityPlan, want: "r" | "w", ancestors: boolean): void {
  if (plan.mode !== "drop" || canAccess(p, plan.identity, want, ancestors)) return;
  const { uid, gid } = plan.identity;
  throw new SandboxUnavailableError(
    `the sandbox user ${uid}:${gid} cannot ${want === "r" ? "read" : "write"} ${p}${ancestors ? " (or pass through its parents)" : ""}; make it ${want === "r" ? "readable (e.g. mode 0755)" : "writable"} for that user`,
  );
}

function realPath(p: string): string {
  if (!path.isAbsolute(p)) throw new InvalidPathError(p, "readOnlyPaths must be absolute");
  try {
    const real = realpathSync(p);
    statSync(real);
    return real;
  } catch {
    throw new InvalidPathError(path.basename(p), "a read-only path does not exist");
  }
}
