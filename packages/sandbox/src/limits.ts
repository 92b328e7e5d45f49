import { createRunCgroup, type RunCgroup } from "./cgroups.js";

/**
 * How a limit is enforced:
 * - `cgroup`: a fresh cgroup (pids.max / memory.max or memory.limit_in_bytes) holds the whole run; counts only this run.
 * - `rlimit`: `ulimit -u` (RLIMIT_NPROC: every process of the sandbox's uid) or `ulimit -v` (RLIMIT_AS: per process)
 *   set before the command starts. Always available, weaker: the kernel enforces both only for non-root uids, which is
 *   what sandboxed code runs as.
 * - `none`: not enforced (only reported when even bash's ulimit is unavailable).
 */
export type LimitMechanism = "cgroup" | "rlimit" | "none";

export interface ResourceLimits {
  maxProcesses: number;
  maxMemoryBytes: number;
}

/** The limits for one run or one long-running process, ready to apply before exec. */
export interface AppliedLimits {
  cgroup: RunCgroup | undefined;
  pidLimit: LimitMechanism;
  memoryLimit: LimitMechanism;
  /** bash statements that join the cgroup and set the rlimits; run by the first process, before it execs. */
  prologue: string;
  dispose(): Promise<void>;
}

/**
 * Takes a cgroup when one is writable here (root hosts), and covers any controller it lacks with an rlimit.
 * `rlimitMemory: false` skips RLIMIT_AS (a Node worker reserves far more address space than it uses).
 */
export function acquireLimits(limits: ResourceLimits, options: { rlimitMemory: boolean }): AppliedLimits {
  const cgroup = createRunCgroup(limits);
  const statements: string[] = [];
  for (const file of cgroup?.procsFiles ?? []) statements.push(`echo $$ > ${shellQuote(file)} || exit 126`);
  const pidLimit: LimitMechanism = cgroup?.pids ? "cgroup" : "rlimit";
  if (pidLimit === "rlimit") statements.push(`ulimit -u ${Math.floor(limits.maxProcesses)} || exit 126`);
  let memoryLimit: LimitMechanism = cgroup?.memory ? "cgroup" : "none";
  if (memoryLimit === "none" && options.rlimitMemory) {
    statements.push(`ulimit -v ${Math.ceil(limits.maxMemoryBytes / 1024)} || exit 126`);
    memoryLimit = "rlimit";
  }
  return {
    cgroup,
    pidLimit,
    memoryLimit,
    prologue: statements.join("; "),
    dispose: async () => cgroup?.dispose(),
  };
}

/** argv that runs the prologue in bash, then execs `argv` (nothing can fork before the limits apply). */
export function withPrologue(prologue: string, argv: readonly string[]): string[] {
  if (prologue === "") return [...argv];
  return ["/bin/bash", "-c", `${prologue}; exec "$@"`, "bash", ...argv];
}

/** A word for a POSIX shell command line: as is when plainly safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
