import path from "node:path";
import { openPinnedDir, removePinnedTree, type FileOwner } from "@skillport/fs";
import type { Sandbox } from "@skillport/sandbox";
import type { EffectivePolicy } from "@skillport/core";
import { lockFor, type RunLock } from "./run-lock.js";

/**
 * One session's work dir, the sandbox whose only writable folder it is, and the lock between the two (decision 0232).
 * Every host write into it goes through `write` (decision 0230).
 */
export class WorkSpace {
  /** Real path. */
  readonly workDir: string;
  readonly lock: RunLock;
  /** Variables every command here gets under the caller's (a deployed version's PATH). */
  readonly env: Readonly<Record<string, string>> | undefined;
  /** Every command here runs under this least-privilege policy (a deployed version's). */
  readonly policy: EffectivePolicy | undefined;
  readonly #makeSandbox: (workDir: string) => Sandbox;
  readonly #runs: boolean;
  readonly #temporary: boolean;
  /** A sandbox this work space uses but does not own (a deployed workspace's): never closed here. */
  readonly #borrowed: boolean;
  #sandbox: Sandbox | undefined;

  constructor(
    workDir: string,
    options: {
      makeSandbox: (workDir: string) => Sandbox;
      runs: boolean;
      temporary: boolean;
      sandbox?: Sandbox;
      env?: Record<string, string>;
      policy?: EffectivePolicy;
    },
  ) {
    this.workDir = workDir;
    this.lock = lockFor(workDir);
    this.env = options.env;
    this.policy = options.policy;
    this.#makeSandbox = options.makeSandbox;
    this.#runs = options.runs;
    this.#temporary = options.temporary;
    this.#sandbox = options.sandbox;
    this.#borrowed = options.sandbox !== undefined;
  }

  /** The sandbox commands of this work dir run in (created on first use). */
  sandbox(): Sandbox {
    this.#sandbox ??= this.#makeSandbox(this.workDir);
    return this.#sandbox;
  }

  /** Runs argv-level work in the sandbox while no host write is in progress. */
  run<T>(fn: (sandbox: Sandbox) => Promise<T>): Promise<T> {
    return this.lock.run(() => fn(this.sandbox()));
  }

  /**
   * Replaces the file at `realRel` (a real, `/`-separated path inside the work dir, from resolveConfined) with `data`.
   * Call inside `lock.write`. Each folder is opened without following links, from the work dir down, and the file is
   * created and renamed through the last one's descriptor: a folder swapped for a link refuses the write, a folder
   * moved meanwhile keeps it. What is created belongs to the sandbox's identity, as if the sandbox had made it.
   */
  write(realRel: string, data: string | Uint8Array, mode = 0o644): void {
    const owner = this.#owner();
    const dir = openPinnedDir(this.workDir, path.posix.dirname(realRel), { create: true, ...(owner && { owner }) });
    try {
      dir.replaceFile(path.posix.basename(realRel), data, mode, owner);
    } finally {
      dir.close();
    }
  }

  /** Stops the sandbox; a temporary work dir is removed once no command of it runs, without following a link. */
  async close(): Promise<void> {
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    if (!this.#borrowed) await sandbox?.close();
    if (this.#temporary) await this.lock.write(async () => removePinnedTree(this.workDir));
  }

  /** The sandbox's uid/gid when sandboxed code runs here as someone other than this process; else the host's. */
  #owner(): FileOwner | undefined {
    if (!this.#runs) return undefined;
    const identity = this.sandbox().identity;
    return identity.uid === process.getuid?.() && identity.gid === process.getgid?.() ? undefined : identity;
  }
}
