import { execFile } from "node:child_process";
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  fchownSync,
  fstatSync,
  openSync,
  statSync,
} from "node:fs";
import { InvalidPathError } from "@skillport/core";
import path from "node:path";
import { SandboxUnavailableError } from "./errors.js";
import { errorCode } from "@skillport/fs";

/** A host user and group id. */
export interface SandboxIdentity {
  readonly uid: number;
  readonly gid: number;
}

/** Who sandboxed code runs as when the host is root: `nobody:nogroup`, unless the host picks a dedicated pair. */
export const DEFAULT_RUN_AS: SandboxIdentity = Object.freeze({ uid: 65534, gid: 65534 });

/**
 * How sandboxed code gets its identity:
 * - `drop`: the host is root; the command switches to `identity` (a non-root HOST uid/gid) with no capabilities, no
 *   supplementary groups and no-new-privileges before it runs (setpriv, from util-linux).
 * - `host`: the host is not root; the command keeps the host's uid/gid (under bubblewrap, inside a new user namespace).
 */
export interface IdentityPlan {
  mode: "drop" | "host";
  identity: SandboxIdentity;
  /** argv prefix that performs the drop (empty for `host`). */
  dropArgv: readonly string[];
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** A range of host uids (and the same gids): `first` … `first + count - 1`. */
export interface IdRange {
  readonly first: number;
  readonly count: number;
}

/**
 * Where a root host draws the identity of code that runs WITHOUT bubblewrap (the `process` backend, a plugin worker or
 * loader without bwrap) from, one per writable directory: such code shares the host's PID namespace, so under the
 * bubblewrap uid it could read every bubblewrap sandbox's and plugin worker's memory and environment through /proc, and
 * share their key rings (docs/decisions/0245). 0x70000000 + 2^24: above systemd's container range, below 2^31.
 */
export const DEFAULT_UNISOLATED_IDS: IdRange = Object.freeze({ first: 0x7000_0000, count: 0x100_0000 });

/**
 * The uid/gid (equal) of unisolated code for `key` (the real path of its writable directory): a hash of the key into
 * `range`. Two keys may meet on one id (about k²/2 / count for k directories); a host that needs a guarantee passes
 * `runAs`.
 */
export function unisolatedIdentity(key: string, range: IdRange = DEFAULT_UNISOLATED_IDS): SandboxIdentity {
  const { first, count } = range;
  if (
    !Number.isSafeInteger(first) ||
    !Number.isSafeInteger(count) ||
    first < 1 ||
    count < 1 ||
    first + count - 1 > 0xfffffffe
  ) {
    throw new SandboxUnavailableError(
      `the id range for unisolated runs must lie within 1 … 4294967294, got first ${String(first)}, count ${String(count)}`,
    );
  }
  // Loaded here, not at start-up: only a root host's unisolated runs need it.
  const digest = process.getBuiltinModule("node:crypto").createHash("sha256").update(key).digest();
  const id = first + (digest.readUIntBE(0, 6) % count);
  return { uid: id, gid: id };
}

/** Code that runs without bubblewrap: the key (its writable directory's real path) and range of its own identity. */
export interface Unisolated {
  key: string;
  range?: IdRange;
}

/**
 * Decides who the sandboxed command runs as. Root never runs sandboxed code as itself. On a root host the identity
 * is `runAs`, else DEFAULT_RUN_AS for bubblewrap and `unisolatedIdentity` for code that runs without it.
 */
export function planIdentity(runAs: SandboxIdentity | undefined, unisolated?: Unisolated): IdentityPlan {
  if (!isRoot()) {
    const identity = { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
    if (runAs !== undefined && (runAs.uid !== identity.uid || runAs.gid !== identity.gid)) {
      throw new SandboxUnavailableError(
        `runAs ${runAs.uid}:${runAs.gid} needs a root host; this process runs as ${identity.uid}:${identity.gid}`,
      );
    }
    return { mode: "host", identity, dropArgv: [] };
  }
  const identity =
    runAs ?? (unisolated === undefined ? DEFAULT_RUN_AS : unisolatedIdentity(unisolated.key, unisolated.range));
  for (const [name, id] of [
    ["uid", identity.uid],
    ["gid", identity.gid],
  ] as const) {
    if (!Number.isInteger(id) || id <= 0 || id >= 0xffffffff) {
      throw new SandboxUnavailableError(
        `runAs.${name} must be a non-root id (an integer from 1 to 4294967294), got ${String(id)}: sandboxed code never runs as host root`,
      );
    }
  }
  const setpriv = findSetpriv();
  if (setpriv === undefined) {
    throw new SandboxUnavailableError(
      "the host runs as root and setpriv (util-linux) is not installed: sandboxed code would keep root; install util-linux",
    );
  }
  return { mode: "drop", identity, dropArgv: dropArgv(setpriv, identity) };
}

/** setpriv switches uid/gid, clears supplementary groups, every capability set and sets no_new_privs, then execs. */
function dropArgv(setpriv: string, identity: SandboxIdentity): string[] {
  return [
    setpriv,
    `--reuid=${identity.uid}`,
    `--regid=${identity.gid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
  ];
}

let setprivPath: string | null | undefined;

function findSetpriv(): string | undefined {
  if (setprivPath === undefined) {
    setprivPath = null;
    for (const candidate of ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv"]) {
      try {
        accessSync(candidate, constants.X_OK);
        setprivPath = candidate;
        break;
      } catch {
        // Next.
      }
    }
  }
  return setprivPath ?? undefined;
}

/**
 * Lets `identity` create entries in `dir` without owning it: group = the identity's group, group rwx, sticky bit.
 * The sticky bit keeps what the host put there (owned by the host) from being renamed or removed by sandboxed code,
 * while what sandboxed code creates is its own. Only for `drop` (a root host can change the group).
 */
export function shareDirectory(dir: string, plan: IdentityPlan): void {
  if (plan.mode !== "drop") return;
  const info = statSync(dir);
  if (info.uid === plan.identity.uid) return; // already the sandbox's own
  if (info.gid !== plan.identity.gid) chownSync(dir, info.uid, plan.identity.gid);
  const mode = (info.mode & 0o7777) | 0o1070;
  if ((info.mode & 0o7777) !== mode) chmodSync(dir, mode);
}

/**
 * Makes `dir` the identity's own (HOME). Only for `drop`. HOME lies in the sandbox-writable tree, so it is opened
 * without following a link (a link swapped in since its real path was taken is refused, never chowned through) and
 * changed through that descriptor.
 */
export function giveDirectory(dir: string, plan: IdentityPlan): void {
  if (plan.mode !== "drop") return;
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new InvalidPathError(
      "home",
      `cannot be opened as a folder without following links (${errorCode(error) ?? "error"})`,
    );
  }
  try {
    const info = fstatSync(fd);
    if (info.uid !== plan.identity.uid || info.gid !== plan.identity.gid)
      fchownSync(fd, plan.identity.uid, plan.identity.gid);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `identity` may access `p` with `want` by plain permission bits (ACLs aside). With `ancestors`, every parent
 * directory must be searchable too (a process outside bubblewrap walks the real path; inside, bubblewrap creates the
 * parents of each mount itself).
 */
export function canAccess(p: string, identity: SandboxIdentity, want: "r" | "w", ancestors: boolean): boolean {
  const bits = (mode: number, uid: number, gid: number, r: number, w: number, x: number) => {
    const shift = uid === identity.uid ? 6 : gid === identity.gid ? 3 : 0;
    const m = (mode >> shift) & 7;
    return (r === 0 || (m & 4) !== 0) && (w === 0 || (m & 2) !== 0) && (x === 0 || (m & 1) !== 0);
  };
  try {
    const info = statSync(p);
    const x = info.isDirectory() ? 1 : 0;
    if (!bits(info.mode, info.uid, info.gid, 1, want === "w" ? 1 : 0, x)) return false;
    if (!ancestors) return true;
    for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
      const parent = statSync(dir);
      if (!bits(parent.mode, parent.uid, parent.gid, 0, 0, 1)) return false;
      if (dir === path.dirname(dir)) return true;
    }
  } catch {
    return false;
  }
}

/**
 * Makes a tree the host has just written the sandbox identity's own (`chown -R`, never following links), so
 * sandboxed code may change it as the host intends (e.g. an entrypoint installing into its version folder). Call it
 * while sandboxed code cannot yet reach the tree (a staging directory it cannot write); no-op unless the host is root.
 */
export async function handOverTree(dir: string, identity: SandboxIdentity): Promise<void> {
  if (!isRoot() || identity.uid === 0) return;
  await new Promise<void>((resolve, reject) => {
    execFile(
      "chown",
      ["-R", "-P", "-h", `${identity.uid}:${identity.gid}`, "--", dir],
      { timeout: 60_000 },
      (error, _stdout, stderr) =>
        error
          ? reject(
              new SandboxUnavailableError(
                `cannot hand ${path.basename(dir)} to the sandbox user: ${String(stderr).trim() || error.message}`,
              ),
            )
          : resolve(),
    );
  });
}
