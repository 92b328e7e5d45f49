import { mkdir, readdir, readFile, rmdir, writeFile, access, constants } from "node:fs/promises";
import { rmdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

/**
 * How a process-count limit is enforced:
 * - `cgroup`: a fresh pids cgroup (pids.max) holds the whole run; works for root, counts only this run.
 * - `rlimit`: `ulimit -u` (RLIMIT_NPROC) inside the run; the kernel ignores it for root and it counts
 *   every process of the user, so it is the fallback for unprivileged users only.
 * - `none`: nothing available; the run still has its timeout and PID namespace.
 */
export type PidLimitMechanism = "cgroup" | "rlimit" | "none";

export interface PidCgroup {
  /** Write a pid here to move that process (and its future children) into the group. */
  readonly procsFile: string;
  /** Kills whatever is left in the group and removes it. */
  dispose(): Promise<void>;
}

const V1_ROOT = "/sys/fs/cgroup/pids";
const PREFIX = "skillport-";

// Creating and removing a cgroup costs milliseconds, so emptied groups are kept for reuse by later runs of this
// process and removed when it exits (groups of processes that died are swept on first use).
const idle: string[] = [];
let parentsPromise: Promise<string[]> | undefined;
let exitHookInstalled = false;

/** Takes a pids cgroup limited to `max` processes, or undefined when cgroups are not writable here. */
export async function createPidCgroup(max: number): Promise<PidCgroup | undefined> {
  parentsPromise ??= candidateParents().then(async (parents) => {
    for (const parent of parents) await sweepDead(parent);
    return parents;
  });
  const reused = idle.pop();
  if (reused !== undefined) {
    try {
      await writeFile(path.join(reused, "pids.max"), `${max}\n`);
      return handle(reused);
    } catch {
      await rmdir(reused).catch(() => undefined);
    }
  }
  for (const parent of await parentsPromise) {
    const dir = path.join(parent, `${PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
    try {
      await mkdir(dir);
    } catch {
      continue;
    }
    try {
      await writeFile(path.join(dir, "pids.max"), `${max}\n`);
      installExitHook();
      return handle(dir);
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  return undefined;
}

function handle(dir: string): PidCgroup {
  return {
    procsFile: path.join(dir, "cgroup.procs"),
    dispose: async () => {
      // Reuse only a group whose count is truly back to zero; others are removed in the background (tasks of a
      // torn-down PID namespace can stay charged for a while after the run has ended).
      if (await killMembers(dir)) idle.push(dir);
      else removeLater(dir);
    },
  };
}

const pendingRemoval = new Set<string>();

function removeLater(dir: string, attempt = 0): void {
  pendingRemoval.add(dir);
  const timer = setTimeout(() => {
    rmdir(dir).then(
      () => pendingRemoval.delete(dir),
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" || attempt >= 200) pendingRemoval.delete(dir);
        else {
          void killMembers(dir);
          removeLater(dir, attempt + 1);
        }
      },
    );
  }, 50);
  timer.unref();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const dir of [...idle.splice(0), ...pendingRemoval]) {
      try {
        rmdirSync(dir);
      } catch {
        // Still busy or gone; the next process sweeps it.
      }
    }
  });
}

/** Removes groups left by Skillport processes that no longer exist. */
async function sweepDead(parent: string): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    await rmdir(path.join(parent, name)).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function candidateParents(): Promise<string[]> {
  const parents: string[] = [];
  if (await writable(V1_ROOT)) parents.push(V1_ROOT);
  // cgroup v2: a child of our own cgroup, when the pids controller is delegated to it.
  try {
    const self = await readFile("/proc/self/cgroup", "utf8");
    const line = self.split("\n").find((l) => l.startsWith("0::"));
    if (line) {
      const base = (await writable("/sys/fs/cgroup/cgroup.controllers", false)) ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
      const own = path.join(base, line.slice(3));
      const controllers = await readFile(path.join(own, "cgroup.subtree_control"), "utf8").catch(() => "");
      if (controllers.split(/\s+/).includes("pids") && (await writable(own))) parents.push(own);
    }
  } catch {
    // No cgroup information: no cgroup limit.
  }
  return parents;
}

async function writable(p: string, needWrite = true): Promise<boolean> {
  try {
    await access(p, needWrite ? constants.W_OK : constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Kills whatever is left in the group; true when it is then empty with nothing still charged. */
async function killMembers(dir: string): Promise<boolean> {
  let procs: string;
  try {
    procs = await readFile(path.join(dir, "cgroup.procs"), "utf8");
  } catch {
    return false;
  }
  const pids = procs.split("\n").filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  if (pids.length > 0) return false;
  const current = await readFile(path.join(dir, "pids.current"), "utf8").catch(() => "");
  return current.trim() === "0";
}

/** Wraps argv so it runs with RLIMIT_NPROC = max (the `rlimit` mechanism). */
export function withRlimit(max: number, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", `ulimit -u ${Math.floor(max)} || exit 126; exec "$@"`, "sh", ...argv];
}

/** Wraps argv so its first process joins the cgroup before exec'ing (nothing can fork outside it). */
export function joinCgroup(procsFile: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", 'echo $$ > "$0" || exit 126; exec "$@"', procsFile, ...argv];
}

export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}
