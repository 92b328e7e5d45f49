import { rmdir } from "node:fs/promises";
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { errorCode, randomHex } from "@skillport/fs";

/** The controllers a run's cgroup uses. */
type Controller = "pids" | "memory";

/** What a run's group enforces; a controller that is not available here is left to an rlimit. */
export interface CgroupLimits {
  maxProcesses: number;
  maxMemoryBytes: number;
}

/** One cgroup per run (one directory per hierarchy on cgroup v1, one directory on v2). */
export interface RunCgroup {
  /** Write a pid to each of these to move that process (and its future children) into the group. */
  readonly procsFiles: readonly string[];
  readonly pids: boolean;
  readonly memory: boolean;
  /** Processes the kernel killed for the memory limit since the group was taken. */
  oomKills(): Promise<number>;
  /** Kills whatever is left in the group and gives it back (reused by later runs of this process). */
  dispose(): Promise<void>;
}

interface Parent {
  dir: string;
  version: 1 | 2;
  controllers: Controller[];
}

interface Slot {
  dirs: Array<{ dir: string; parent: Parent }>;
}

const PREFIX = "skillport-";

// Creating and removing a cgroup costs milliseconds (tens on a busy cgroup v1 host), so emptied groups are kept for
// reuse by later runs of this process and removed when it exits (groups of processes that died are swept on first use).
// The files of cgroupfs are read and written with blocking calls: each is a few microseconds of kernel work, and the
// promise API paid a thread-pool round trip for every open, read, write and close (~10 ms to take a group, on the
// path of every one-shot run).
const idle: Slot[] = [];
let layout: Parent[] | undefined;
let exitHookInstalled = false;

/** Takes a cgroup with the given limits, or undefined when no pids or memory controller is writable here. */
export function createRunCgroup(limits: CgroupLimits): RunCgroup | undefined {
  if (layout === undefined) {
    layout = findParents();
    removeGroups(layout.flatMap((parent) => deadGroups(parent.dir)));
  }
  const parents = layout;
  if (parents.length === 0) return undefined;
  const reused = idle.pop();
  if (reused !== undefined) {
    try {
      return take(reused, limits);
    } catch {
      removeSlot(reused);
    }
  }
  const slot: Slot = { dirs: [] };
  const name = `${PREFIX}${process.pid}-${randomHex(6)}`;
  try {
    for (const parent of parents) {
      const dir = path.join(parent.dir, name);
      mkdirSync(dir);
      slot.dirs.push({ dir, parent });
    }
    installExitHook();
    return take(slot, limits);
  } catch {
    removeSlot(slot);
    return undefined;
  }
}

function take(slot: Slot, limits: CgroupLimits): RunCgroup {
  let pids = false;
  let memory = false;
  let memoryDir: { dir: string; version: 1 | 2 } | undefined;
  for (const { dir, parent } of slot.dirs) {
    if (parent.controllers.includes("pids")) {
      writeFileSync(path.join(dir, "pids.max"), `${Math.floor(limits.maxProcesses)}\n`);
      pids = true;
    }
    if (parent.controllers.includes("memory")) {
      setMemoryLimit(dir, parent.version, Math.floor(limits.maxMemoryBytes));
      memory = true;
      memoryDir = { dir, version: parent.version };
    }
  }
  const baseline = memoryDir ? readOomKills(memoryDir.dir, memoryDir.version) : 0;
  return {
    procsFiles: slot.dirs.map(({ dir }) => path.join(dir, "cgroup.procs")),
    pids,
    memory,
    oomKills: async () => (memoryDir ? Math.max(0, readOomKills(memoryDir.dir, memoryDir.version) - baseline) : 0),
    dispose: async () => {
      // Reuse only a group whose members are gone and whose process count is back to zero; others are removed in the
      // background (tasks of a torn-down PID namespace can stay charged for a while after the run has ended).
      const empty = slot.dirs.map(({ dir, parent }) => killMembers(dir, parent.controllers.includes("pids")));
      if (empty.every(Boolean)) idle.push(slot);
      else for (const { dir } of slot.dirs) removeLater(dir);
    },
  };
}

/** Writes a cgroup file; false when it is missing or refused (an optional knob). */
function tryWrite(file: string, text: string): boolean {
  try {
    writeFileSync(file, text);
    return true;
  } catch {
    return false;
  }
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

function setMemoryLimit(dir: string, version: 1 | 2, bytes: number): void {
  if (version === 2) {
    writeFileSync(path.join(dir, "memory.max"), `${bytes}\n`);
    // No swap: the limit is on memory actually used, and a swapping run would just be slow, then killed.
    tryWrite(path.join(dir, "memory.swap.max"), "0\n");
    // On OOM, kill the whole run rather than one process of it.
    tryWrite(path.join(dir, "memory.oom.group"), "1\n");
    return;
  }
  // v1: memory+swap must stay >= memory, so open it up, set memory, then pin memory+swap to the same value.
  const memsw = path.join(dir, "memory.memsw.limit_in_bytes");
  const hasMemsw = tryWrite(memsw, "-1\n");
  writeFileSync(path.join(dir, "memory.limit_in_bytes"), `${bytes}\n`);
  if (hasMemsw) writeFileSync(memsw, `${bytes}\n`);
}

function readOomKills(dir: string, version: 1 | 2): number {
  const text = readOr(path.join(dir, version === 2 ? "memory.events" : "memory.oom_control"), "");
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

const pendingRemoval = new Set<string>();

function removeLater(dir: string, attempt = 0): void {
  pendingRemoval.add(dir);
  const timer = setTimeout(() => {
    rmdir(dir).then(
      () => pendingRemoval.delete(dir),
      (error: unknown) => {
        if (errorCode(error) === "ENOENT" || attempt >= 200) pendingRemoval.delete(dir);
        else {
          killMembers(dir, false);
          removeLater(dir, attempt + 1);
        }
      },
    );
  }, 50);
  timer.unref();
}

function removeSlot(slot: Slot): void {
  removeGroups(
    slot.dirs.map(({ dir }) => dir),
    () => undefined,
  );
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () =>
    removeGroups([...idle.splice(0).flatMap((slot) => slot.dirs.map((d) => d.dir)), ...pendingRemoval]),
  );
}

/**
 * Removes groups now when they are empty: an `rmdir` of an empty group returns in well under a millisecond, even for
 * a memory group charged with hundreds of MiB (the kernel hands the charge back asynchronously), and spawning a
 * helper for it cost a one-shot CLI a process at exit and another at the next start. A group that is still busy
 * (tasks of a torn-down PID namespace not yet gone) goes to a detached helper that retries, passed as `retryLater`.
 */
export function removeGroups(
  dirs: readonly string[],
  retryLater: (dirs: readonly string[]) => void = removeDetached,
): void {
  const busy = dirs.filter((dir) => {
    try {
      rmdirSync(dir);
      return false;
    } catch (error) {
      return errorCode(error) !== "ENOENT";
    }
  });
  if (busy.length > 0) retryLater(busy);
}

/**
 * Removes groups in a detached helper that outlives this process, retrying for two seconds, so an exiting CLI does
 * not wait for a busy group. A group still busy after that stays; the next Skillport process sweeps it.
 */
function removeDetached(dirs: readonly string[]): void {
  if (dirs.length === 0) return;
  const script =
    'for d; do for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && break; [ -d "$d" ] || break; sleep 0.2; done; done';
  try {
    spawn("/bin/sh", ["-c", script, "sh", ...dirs], { detached: true, stdio: "ignore" }).unref();
  } catch {
    // Left for the next process's sweep.
  }
}

/** Groups in `parent` left by Skillport processes that no longer exist (removed in the background, off every run's path). */
function deadGroups(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => n.startsWith(PREFIX));
  } catch {
    return [];
  }
  const dead = names.filter((name) => {
    const pid = Number(name.slice(PREFIX.length).split("-")[0]);
    return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
  });
  return dead.map((name) => path.join(parent, name));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

/**
 * Where this process may create child groups, per controller: a cgroup v2 group of our own with the controller
 * delegated (in its subtree_control), else our own group in the controller's v1 hierarchy. Children of our own group
 * stay inside whatever limits the host put on us.
 */
function findParents(): Parent[] {
  const self = readOr("/proc/self/cgroup", "");
  if (self === "") return [];
  const wanted: Controller[] = ["pids", "memory"];
  const parents: Parent[] = [];
  const line = self.split("\n").find((l) => l.startsWith("0::"));
  if (line) {
    const base = can("/sys/fs/cgroup/cgroup.controllers", constants.F_OK) ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
    const own = path.join(base, line.slice(3));
    const delegated = readOr(path.join(own, "cgroup.subtree_control"), "").split(/\s+/);
    const controllers = wanted.filter((c) => delegated.includes(c));
    if (controllers.length > 0 && can(own, constants.W_OK)) parents.push({ dir: own, version: 2, controllers });
  }
  for (const controller of wanted) {
    if (parents.some((p) => p.controllers.includes(controller))) continue;
    for (const entry of self.split("\n")) {
      const [, names, own] = /^\d+:([^:]+):(.*)$/.exec(entry) ?? [];
      if (names === undefined || own === undefined || !names.split(",").includes(controller)) continue;
      const dir = path.join("/sys/fs/cgroup", names, own);
      if (can(path.join(dir, "cgroup.procs"), constants.F_OK) && can(dir, constants.W_OK))
        parents.push({ dir, version: 1, controllers: [controller] });
    }
  }
  return parents;
}

function can(p: string, mode: number): boolean {
  try {
    accessSync(p, mode);
    return true;
  } catch {
    return false;
  }
}

/** Kills whatever is left in the group; true when it is then empty (and, with pids, nothing is still charged). */
function killMembers(dir: string, checkPids: boolean): boolean {
  let procs: string;
  try {
    procs = readFileSync(path.join(dir, "cgroup.procs"), "utf8");
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
  if (!checkPids) return true;
  const current = readOr(path.join(dir, "pids.current"), "");
  return current.trim() === "0";
}
