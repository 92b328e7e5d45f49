import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { etcMounts } from "./etc-snapshot.js";
import { planIdentity, type IdentityPlan } from "./identity.js";
import { cachedProbe, probeKey, rememberProbe } from "./probe-cache.js";
import { openFilterStatement, seccompFilter } from "./seccomp.js";

/** Options of bwrap that not every version has (0.8.0 has all three). */
export interface BubblewrapFeatures {
  /** `--size` for `--tmpfs`: a size-limited /tmp. */
  size: boolean;
  /** `--perms` for `--tmpfs`: a /tmp the dropped uid can write (mode 1777). */
  perms: boolean;
  /** `--disable-userns`: no nested user namespaces (only with `--unshare-user`). */
  disableUserns: boolean;
}

/** What one sandbox may see and do; shared by command runs and long-running processes. */
export interface MountPolicy {
  /** Bound read-write at their real paths. */
  writableDirs: readonly string[];
  /** Bound read-only at their real paths (files or directories). */
  readOnlyPaths: readonly string[];
  network: boolean;
  /** Size of the private /tmp (needs `features.size`; the memory limit covers it otherwise). */
  tmpSizeBytes: number;
}

/** System paths every sandbox sees read-only. /etc is an allow-list so shadow files, keys and host config stay out. */
const SYSTEM_DIRS = ["/usr", "/opt/node", "/nix/store"];
const MERGED_USR_LINKS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"];
const ETC_ALLOW_LIST = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/resolv.conf",
  "/etc/gai.conf",
  "/etc/localtime",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/mime.types",
  "/etc/os-release",
  "/etc/python3",
];
/**
 * Kernel interfaces under /proc that must never be writable, bound read-only over the sandbox's own /proc (bwrap
 * itself covers /proc/irq and /proc/bus where they are writable; it misses /proc/sys, whose directory is 0555).
 */
const PROC_READ_ONLY = ["/proc/sys", "/proc/sysrq-trigger", "/proc/fs"];
/** Capabilities bwrap (run by root) keeps for exactly one step: setpriv switching to the sandbox's identity. */
const DROP_CAPS = ["CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"];

/**
 * The bwrap arguments up to (not including) `--chdir`/`--`: read-only system, allow-listed /etc, hardened /proc,
 * private size-limited /tmp, the policy's binds, new pid/ipc/uts/cgroup (and unless allowed, network) namespaces.
 * - root host (`drop`): no user namespace (bwrap would map its uid 0 to host uid 0); every capability dropped except
 *   the three setpriv needs, and the command starts through setpriv as the non-root sandbox identity.
 * - other hosts (`host`): a new user namespace (the only way bwrap works unprivileged), nested ones disabled.
 * `seccompFd`: the descriptor the starting shell opens on the seccomp filter (seccomp.ts); undefined: no filter.
 */
export function bubblewrapArgs(
  policy: MountPolicy,
  identity: IdentityPlan,
  features: BubblewrapFeatures,
  seccompFd?: number,
): string[] {
  const args = systemMounts();
  args.push(...etcMounts(ETC_ALLOW_LIST, policy.writableDirs));
  args.push("--dev", "/dev", "--proc", "/proc");
  for (const p of PROC_READ_ONLY) args.push("--ro-bind-try", p, p);
  if (features.perms) args.push("--perms", "1777");
  if (features.size) args.push("--size", String(Math.floor(policy.tmpSizeBytes)));
  args.push("--tmpfs", "/tmp");
  const parents = new Set<string>();
  for (const p of policy.readOnlyPaths) args.push(...mountPoint(p, parents), "--ro-bind", p, p);
  for (const p of policy.writableDirs) args.push(...mountPoint(p, parents), "--bind", p, p);
  if (identity.mode === "host") {
    args.push("--unshare-user");
    if (features.disableUserns) args.push("--disable-userns");
  }
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!policy.network) args.push("--unshare-net");
  args.push("--cap-drop", "ALL");
  if (identity.mode === "drop") for (const cap of DROP_CAPS) args.push("--cap-add", cap);
  args.push("--die-with-parent", "--new-session");
  if (seccompFd !== undefined) args.push("--seccomp", String(seccompFd));
  return args;
}

/** Sandbox paths that already exist (mounted above): no parent directory needs creating under them. */
const PREMOUNTED = [...SYSTEM_DIRS, "/etc", "/dev", "/proc"];

/**
 * `--dir` for each missing parent of a bind target: bwrap would create them mode 0700 (root-owned), which the dropped
 * sandbox uid could not pass through. `--dir` makes them 0755; they hold nothing but the mount points.
 */
function mountPoint(target: string, made: Set<string>): string[] {
  const args: string[] = [];
  const parents: string[] = [];
  for (let dir = path.dirname(target); dir !== "/" && dir !== path.dirname(dir); dir = path.dirname(dir))
    parents.unshift(dir);
  for (const dir of parents) {
    if (made.has(dir) || PREMOUNTED.some((m) => dir === m || dir.startsWith(`${m}/`))) continue;
    made.add(dir);
    args.push("--dir", dir);
  }
  return args;
}

function systemMounts(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) if (existsSync(dir)) args.push("--ro-bind", dir, dir);
  for (const link of MERGED_USR_LINKS) {
    const target = symlinkTarget(link);
    if (target !== undefined) args.push("--symlink", target, link);
    else if (existsSync(link)) args.push("--ro-bind", link, link);
  }
  return args;
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

interface Probed {
  path: string;
  features: BubblewrapFeatures;
}

const probes = new Map<string, Probed | null>();

/**
 * The path of a bwrap that really works here, or undefined. Works means: it starts a sandbox with the namespaces,
 * mounts and identity this package uses (unprivileged user namespaces are disabled on some hosts; setpriv may be
 * missing) and runs a command in it. Each candidate is probed at most once per process (a success is also remembered
 * across processes: probe-cache.ts); the probe blocks for one bwrap start at most, so async callers simply await it.
 */
export function findBubblewrap(explicit?: string): string | undefined {
  for (const candidate of candidates(explicit)) {
    if (!probes.has(candidate)) probes.set(candidate, probeSync(candidate));
    const probed = probes.get(candidate);
    if (probed) return probed.path;
  }
  return undefined;
}

/** The features of a bwrap that `findBubblewrap` accepted. */
export function bubblewrapFeatures(bwrapPath: string): BubblewrapFeatures {
  return probes.get(bwrapPath)?.features ?? readFeatures(bwrapPath);
}

function candidates(explicit: string | undefined): string[] {
  const list = explicit
    ? [explicit]
    : [
        ...(process.env.PATH ?? "")
          .split(path.delimiter)
          .filter((d) => path.isAbsolute(d))
          .map((d) => path.join(d, "bwrap")),
        "/usr/bin/bwrap",
        "/usr/local/bin/bwrap",
      ];
  return [...new Set(list)].filter((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

function parseFeatures(help: string): BubblewrapFeatures {
  return {
    size: help.includes("--size"),
    perms: help.includes("--perms"),
    disableUserns: help.includes("--disable-userns"),
  };
}

/**
 * The option names are string literals in bwrap's own executable, so when it is an ELF file that holds all of them,
 * reading it answers without starting a process (a one-shot `exec` paid ~5 ms for `bwrap --help`). Anything else — a
 * wrapper script, a packed binary, an older bwrap lacking an option — asks `--help`, so an option is never assumed
 * absent from a scan. A name present in the binary is an option its parser knows.
 */
function readFeatures(bwrapPath: string): BubblewrapFeatures {
  const scanned = scanExecutable(bwrapPath);
  if (scanned !== undefined && scanned.size && scanned.perms && scanned.disableUserns) return scanned;
  return featuresFromHelp(bwrapPath);
}

/** What `bwrap --help` lists (exported for the test that checks the scan against it). */
export function featuresFromHelp(bwrapPath: string): BubblewrapFeatures {
  return parseFeatures(spawnSync(bwrapPath, ["--help"], { encoding: "utf8", timeout: 5_000, env: {} }).stdout ?? "");
}

const MAX_SCANNED_BYTES = 8 * 1024 * 1024;

function scanExecutable(bwrapPath: string): BubblewrapFeatures | undefined {
  try {
    if (statSync(bwrapPath).size > MAX_SCANNED_BYTES) return undefined;
    const bytes = readFileSync(bwrapPath);
    if (bytes.length < 4 || bytes.readUInt32BE(0) !== 0x7f454c46) return undefined; // "\x7fELF"
    return parseFeatures(bytes.toString("latin1"));
  } catch {
    return undefined;
  }
}

/**
 * The probe: the real policy (no binds, no network, the seccomp filter on fd 3), the identity drop, then `exit 0`,
 * started by bash as every run is. Undefined: cannot sandbox.
 */
function probeArgs(bwrapPath: string, features: BubblewrapFeatures): string[] | undefined {
  let identity: IdentityPlan;
  try {
    identity = planIdentity(undefined);
  } catch {
    return undefined; // root without setpriv: no sandbox can drop root here
  }
  const policy: MountPolicy = { writableDirs: [], readOnlyPaths: [], network: false, tmpSizeBytes: 1024 * 1024 };
  const filter = seccompFilter();
  const bwrap = [
    ...bubblewrapArgs(policy, identity, features, filter === undefined ? undefined : 3),
    "--",
    ...identity.dropArgv,
    "/bin/sh",
    "-c",
    "exit 0",
  ];
  return ["-c", `${filter ? `${openFilterStatement(filter, 3)}; ` : ""}exec "$@"`, "bash", bwrapPath, ...bwrap];
}

/** The cross-process cache key for a probe of `bwrapPath` (undefined: do not cache). */
function cacheKey(bwrapPath: string): string | undefined {
  try {
    return probeKey(bwrapPath, planIdentity(undefined).dropArgv[0]);
  } catch {
    return undefined;
  }
}

/** Whether a probe of this exact bwrap succeeded in an earlier process (the cache holds successes only). */
function remembered(key: string | undefined): boolean {
  return key !== undefined && cachedProbe(key);
}

function probeSync(bwrapPath: string): Probed | null {
  // Features always come from the binary itself: a cache entry can skip the probe, never weaken the policy.
  const features = readFeatures(bwrapPath);
  const key = cacheKey(bwrapPath);
  if (remembered(key)) return { path: bwrapPath, features };
  const args = probeArgs(bwrapPath, features);
  if (!args) return null;
  const result = spawnSync("/bin/bash", args, { timeout: 5_000, env: {}, stdio: "ignore" });
  if (result.status !== 0) return null;
  if (key !== undefined) rememberProbe(key);
  return { path: bwrapPath, features };
}
