import fs, { constants } from "node:fs";
import path from "node:path";
import { InvalidPathError } from "@skillport/core";
import { tempName } from "./atomic.js";
import { errorCode } from "./errno.js";

/**
 * Host writes into a sandbox-writable tree (a runtime workspace, an agent's work dir), pinned by directory descriptors.
 *
 * Node has no openat/mkdirat/renameat, but on Linux `/proc/self/fd/N/<name>` names `<name>` inside the directory the
 * descriptor N holds, whatever happens to its path afterwards. Each folder is opened with O_DIRECTORY | O_NOFOLLOW
 * (a link or a file there is refused by the kernel at open time), and the next step goes through that descriptor,
 * so a folder swapped for a link by sandboxed code between two steps cannot redirect a write (decision 0142).
 */
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export interface OpenDirOptions {
  /** Create missing folders (mode 0o755). Default false. */
  create?: boolean;
  /**
   * Replace a link or a non-folder found on the way with a fresh folder (the link itself is removed, never followed).
   * For folders the host owns by convention (`.home`, `.skillport/outputs`). Default false: refuse.
   */
  repair?: boolean;
  /**
   * Hand every folder this call creates to this uid/gid (through its descriptor), so what the host makes in a
   * sandbox-writable tree belongs to the sandbox's identity like what the sandbox makes itself. Default: the host's.
   */
  owner?: FileOwner;
}

/** A host uid/gid to give created entries to. */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

/** A folder opened without following links; `at(name)` names an entry inside it through the descriptor. */
export class PinnedDir {
  readonly fd: number;
  /** Workspace-relative path, for messages. */
  readonly rel: string;
  #closed = false;

  constructor(fd: number, rel: string) {
    this.fd = fd;
    this.rel = rel;
  }

  /** A path that resolves `name` inside this very folder, even if its original path now leads elsewhere. */
  at(name: string): string {
    if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
      throw new InvalidPathError(name, "is not a single file name");
    }
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  /** The folder itself, through the descriptor. */
  self(): string {
    return `/proc/self/fd/${this.fd}`;
  }

  /** Opens a sub-folder (one name) the same way. */
  child(name: string, options: OpenDirOptions = {}): PinnedDir {
    return new PinnedDir(openStep(this, name, options), path.posix.join(this.rel, name));
  }

  /**
   * Creates a new sub-folder (mode 0o755; anything already at `name` is refused with EEXIST) and opens it the same
   * way: one mkdir and one open where `child(name, { create: true })` first tries the open. For folders the caller
   * knows to be new (inside a folder it just made under a fresh temp name).
   */
  makeChild(name: string): PinnedDir {
    fs.mkdirSync(this.at(name), { mode: 0o755 });
    const opened = openDirIn(this, name);
    const where = path.posix.join(this.rel, name);
    if (typeof opened !== "number") {
      // Swapped for a link or a file between the two calls: refused like any link on the way.
      if (opened.code === "ELOOP" || opened.code === "ENOTDIR")
        throw new InvalidPathError(where, "is a symbolic link or not a folder; refusing to write through it");
      throw opened.error;
    }
    return new PinnedDir(opened, where);
  }

  /** Creates a new file inside (never follows or replaces an existing entry) and returns its descriptor. */
  createFile(name: string, mode = 0o600): number {
    return fs.openSync(
      this.at(name),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
  }

  /**
   * Replaces `name` with `data` atomically: a new temp file inside this folder, then a rename within it. A link at
   * `name` is replaced, never followed. With `owner`, the file is given to that uid/gid before it takes the name.
   */
  replaceFile(name: string, data: string | Uint8Array, mode = 0o600, owner?: FileOwner): void {
    const temp = tempName(name);
    const fd = this.createFile(temp, mode);
    try {
      if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.renameSync(this.at(temp), this.at(name));
    } catch (error) {
      fs.rmSync(this.at(temp), { force: true });
      throw error;
    }
  }

  /**
   * Removes the entry `name` and, for a folder, everything below it, never following a link: each folder is opened
   * with O_NOFOLLOW and emptied through its descriptor, links and files are unlinked (which never follows them). A
   * folder swapped for a link meanwhile loses only the link. Folders nested deeper than `MAX_REMOVE_DEPTH` are refused
   * (each level holds a descriptor). Missing is fine.
   */
  removeTree(name: string): void {
    removeEntry(this, name, 0);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    fs.closeSync(this.fd);
  }
}

/** Deepest folder `removeTree` descends into (one open descriptor per level). */
export const MAX_REMOVE_DEPTH = 400;

/** Removes a whole tree whose own path the host chose (a work dir) without following any link below it. */
export function removePinnedTree(dir: string): void {
  const parent = openPinnedDir(path.dirname(dir), "");
  try {
    parent.removeTree(path.basename(dir));
  } finally {
    parent.close();
  }
}

function removeEntry(parent: PinnedDir, name: string, depth: number): void {
  const where = path.posix.join(parent.rel, name);
  untilSettled(where, "removed", () => {
    const opened = openDirIn(parent, name);
    if (typeof opened !== "number") {
      if (opened.code === "ENOENT") return;
      if (opened.code !== "ELOOP" && opened.code !== "ENOTDIR") throw opened.error;
      return unlinkIn(parent, name) ? undefined : AGAIN; // it became a folder meanwhile
    }
    const dir = new PinnedDir(opened, where);
    try {
      if (depth >= MAX_REMOVE_DEPTH)
        throw new InvalidPathError(where, `is nested deeper than ${MAX_REMOVE_DEPTH} folders; not removed`);
      for (const entry of fs.readdirSync(dir.self())) removeEntry(dir, entry, depth + 1);
    } finally {
      dir.close();
    }
    try {
      fs.rmdirSync(parent.at(name));
      return;
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return;
      // Refilled, or swapped for a link or a file since it was emptied: look again.
      if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOTDIR") throw error;
      return AGAIN;
    }
  });
}

const AGAIN = Symbol("again");

/**
 * Runs `attempt` until it settles (returns anything but AGAIN), at most three times: sandboxed code may keep swapping
 * the entry between a look and the next step, and after three changes the step is refused rather than retried forever.
 */
function untilSettled<T>(where: string, verb: string, attempt: () => T | typeof AGAIN): T {
  for (let round = 0; round < 3; round++) {
    const result = attempt();
    if (result !== AGAIN) return result;
  }
  throw new InvalidPathError(where, `kept changing while it was ${verb}`);
}

/**
 * Opens `name` inside `parent` as a folder without following a link: its descriptor, or the refusal (ENOENT: missing;
 * ELOOP: a link, refused by O_NOFOLLOW; ENOTDIR: a file or a link to one).
 */
function openDirIn(parent: PinnedDir, name: string): number | { code: string | undefined; error: unknown } {
  try {
    return fs.openSync(parent.at(name), DIR_FLAGS);
  } catch (error) {
    return { code: errorCode(error), error };
  }
}

/** Unlinks a link or file; false when it is a folder (now). */
function unlinkIn(parent: PinnedDir, name: string): boolean {
  try {
    fs.unlinkSync(parent.at(name));
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return true;
    if (code === "EISDIR" || code === "EPERM") return false;
    throw error;
  }
}

/**
 * Opens `rel` (relative, `/`-separated) below `root` one folder at a time, never following a link. `root` itself is
 * the host's choice and is trusted. Throws InvalidPathError when a link or a non-folder is in the way (unless
 * `repair`), or the errno error.
 */
export function openPinnedDir(root: string, rel: string, options: OpenDirOptions = {}): PinnedDir {
  let dir = new PinnedDir(fs.openSync(root, constants.O_RDONLY | constants.O_DIRECTORY), "");
  for (const name of rel.split("/").filter((s) => s !== "" && s !== ".")) {
    try {
      const next = dir.child(name, options);
      dir.close();
      dir = next;
    } catch (error) {
      dir.close();
      throw error;
    }
  }
  return dir;
}

function openStep(parent: PinnedDir, name: string, options: OpenDirOptions): number {
  const where = path.posix.join(parent.rel, name);
  let created = false;
  const fd = untilSettled(where, "opened", () => {
    const opened = openDirIn(parent, name);
    if (typeof opened === "number") return opened;
    if (opened.code === "ENOENT" && options.create) {
      created = mkdirIn(parent, name) || created;
      return AGAIN;
    }
    if (opened.code !== "ELOOP" && opened.code !== "ENOTDIR") throw opened.error;
    if (!options.repair)
      throw new InvalidPathError(where, "is a symbolic link or not a folder; refusing to write through it");
    fs.rmSync(parent.at(name), { force: true }); // unlinks the link or file itself
    created = mkdirIn(parent, name) || created;
    return AGAIN;
  });
  if (created && options.owner) {
    try {
      fs.fchownSync(fd, options.owner.uid, options.owner.gid);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }
  return fd;
}

/** True when this call made the folder (false: something else did meanwhile). */
function mkdirIn(parent: PinnedDir, name: string): boolean {
  try {
    fs.mkdirSync(parent.at(name), { mode: 0o755 });
    return true;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    return false;
  }
}
