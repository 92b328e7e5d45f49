import { readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { ProviderUnavailableError, SkillSourceProvider, type Frontmatter, type SkillFile } from "@skillport/core";
import {
  errorCode,
  isMissing,
  parseStateText,
  writeFileAtomic,
  type SkippedSkill,
  type StateSchema,
} from "@skillport/fs";
import type { LocalFileSystemSkillProvider } from "@skillport/fs";
import { openIdentityDir } from "./cache-dir.js";
import { RemoteSourceError } from "./errors.js";

/** Something a remote source left out of its local copy (a file over the size limit, an index entry it cannot read). */
export interface RemoteSkipped {
  /** A path in the repository, or an index entry's name. */
  where: string;
  reason: string;
}

/** One local copy of the remote: `root` is the folder of skills on disk that reads come from. */
export interface Snapshot {
  /** Commit id, index digest or package version: changes exactly when the content may have changed. */
  revision: string;
  root: string;
  /** When the remote was last asked (ms since the epoch); persisted, so a restart within the interval asks nothing. */
  checkedAt: number;
  skipped: RemoteSkipped[];
}

export interface SnapshotSourceOptions {
  /** Largest file served, in bytes (also the largest file fetched, where the transport allows). Default 10 MiB. */
  maxFileBytes?: number;
  /** Ask the remote for changes at most this often, on reads (ms). Default 60,000. */
  syncIntervalMs?: number;
  /** Check the remote on reads once the interval passed. Off: only `sync()` does (AgentScope's autoSync=false). Default true. */
  autoSync?: boolean;
  /** A clock, for tests. */
  now?: () => number;
  /**
   * Told when the copy's state file cannot be used (unreadable, truncated, not the expected shape): the copy is then
   * fetched again and the file replaced (decision 0321). Default: nowhere.
   */
  warn?: (message: string) => void;
  /**
   * Told once per sync, as soon as its first request to the remote is on its way (a git process started, an HTTP
   * request sent): the caller can use the wait, as `add` does to load what it needs once the copy is there (decision
   * 0444). Must not throw. Default: nothing.
   */
  onFetch?: () => void;
}

export interface SyncResult {
  revision: string;
  /** The content moved since the last copy. */
  changed: boolean;
  /** The remote could not be reached or read: the last good copy is served. */
  offline: boolean;
  /** Why, when offline (credentials hidden). */
  error?: string;
}

export interface SnapshotStatus {
  revision: string | undefined;
  checkedAt: number | undefined;
  offline: boolean;
  error: string | undefined;
  /** What the copy left out, and what the skills folder holds that is not a skill. */
  skipped: RemoteSkipped[];
}

/**
 * A read-only source that serves a local copy of something remote. The subclass fetches (`fetchSnapshot`); every read
 * goes through the filesystem provider on the copy, so the one skill-directory policy (links, names, size limit)
 * applies unchanged (docs/decisions/0165). When the remote is unreachable the last good copy is served and the
 * failure is reported in `status()`, never thrown at a reader that has a copy. When the remote refuses the credentials
 * (`REMOTE_ACCESS_DENIED`) the copy is dropped and the error thrown: copies are kept per credential identity, and a
 * refused identity keeps nothing (decision 0240).
 */
export abstract class SnapshotSource extends SkillSourceProvider {
  abstract override readonly name: string;
  readonly maxFileBytes: number | undefined;
  readonly #intervalMs: number;
  readonly #autoSync: boolean;
  readonly #now: () => number;
  readonly #warn: (message: string) => void;
  readonly #onFetch: (() => void) | undefined;
  #fetchTold = false;
  #snapshot: Snapshot | undefined;
  #provider: LocalFileSystemSkillProvider | undefined;
  #providerModule: Promise<typeof import("./local-copy.js")> | undefined;
  #loaded = false;
  #syncing: Promise<SyncResult> | undefined;
  #offline = false;
  #error: string | undefined;
  /** When the remote was last asked in this process, reachable or not: an outage is not retried on every read. */
  #attemptedAt = Number.NEGATIVE_INFINITY;

  constructor(options: SnapshotSourceOptions = {}) {
    super();
    this.maxFileBytes = options.maxFileBytes;
    this.#intervalMs = options.syncIntervalMs ?? 60_000;
    if (!Number.isFinite(this.#intervalMs) || this.#intervalMs < 0)
      throw new RangeError(`syncIntervalMs must be a number of at least 0, got ${String(this.#intervalMs)}`);
    this.#autoSync = options.autoSync ?? true;
    this.#now = options.now ?? Date.now;
    this.#warn = options.warn ?? (() => undefined);
    this.#onFetch = options.onFetch;
  }

  /** A subclass calls this once a request to its remote is on its way; tells the `onFetch` option, once per sync. */
  protected fetchStarted(): void {
    if (this.#fetchTold) return;
    this.#fetchTold = true;
    // The reader of the copy loads during the wait too.
    this.#preloadReader();
    this.#onFetch?.();
  }

  /**
   * The filesystem provider that reads a copy, loaded on first need: a first fetch starts it while the remote is
   * asked, so a command that only fetches (`add` up to its clone) does not load the reader before it (decision 0444).
   */
  #readerClass(): Promise<typeof LocalFileSystemSkillProvider> {
    this.#providerModule ??= import("./local-copy.js");
    return this.#providerModule.then((m) => m.LocalFileSystemSkillProvider);
  }

  /** Starts loading the reader now; a failure to load surfaces where it is awaited. */
  #preloadReader(): void {
    this.#readerClass().catch(() => undefined);
  }

  /**
   * The copy's state file through its schema: undefined when there is none, and when it cannot be read or is not the
   * expected shape, which the `warn` option is told (never "malformed read as no copy" in silence).
   */
  protected async readState<T>(file: string, schema: () => Promise<StateSchema<T>>): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if (!isMissing(error))
        this.#warn(
          `${this.name}: state file ${file} is unreadable (${errorCode(error) ?? String(error)}); fetching a new copy`,
        );
      return undefined;
    }
    // A copy is kept: its reader will be needed, and loads beside the schema (a restore's path; decision 0444).
    this.#preloadReader();
    const parsed = parseStateText(text, await schema());
    if ("value" in parsed) return parsed.value;
    this.#warn(`${this.name}: state file ${file} is ${parsed.problem}; fetching a new copy`);
    return undefined;
  }

  /** The source's clock (ms since the epoch; the `now` option in tests). */
  protected clock(): number {
    return this.#now();
  }

  /** The copy kept from an earlier run, if any (no network). */
  protected abstract loadSnapshot(): Promise<Snapshot | undefined>;
  /** Asks the remote and returns the new copy, or `last` (with a new `checkedAt`) when nothing moved. Persists it. */
  protected abstract fetchSnapshot(last: Snapshot | undefined): Promise<Snapshot>;
  /** Called after a new copy is installed, to remove copies older than `keep`. */
  protected abstract pruneSnapshots(keep: Snapshot): Promise<void>;
  /** Removes every copy made with this source's credentials (the remote refused them). */
  protected abstract discardSnapshots(): Promise<void>;

  /** Asks the remote now (whatever the interval) and installs what changed. Throws only when there is no copy at all. */
  sync(): Promise<SyncResult> {
    this.#syncing ??= this.#sync().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  status(): SnapshotStatus {
    return {
      revision: this.#snapshot?.revision,
      checkedAt: this.#snapshot?.checkedAt,
      offline: this.#offline,
      error: this.#error,
      skipped: [...(this.#snapshot?.skipped ?? []), ...(this.#provider?.skipped() ?? []).map(describeSkipped)],
    };
  }

  async discover(): Promise<string[]> {
    return (await this.#current()).discover();
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    return (await this.#current()).getMetadata(id);
  }

  async getBody(id: string): Promise<string> {
    return (await this.#current()).getBody(id);
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    return (await this.#current()).listFiles(id);
  }

  async readFile(id: string, filePath: string): Promise<Uint8Array> {
    return (await this.#current()).readFile(id, filePath);
  }

  /** Where the skill's SKILL.md is in the local copy. */
  async getLocation(id: string): Promise<string> {
    return (await this.#current()).getLocation(id);
  }

  invalidate(id?: string): void {
    this.#provider?.invalidate(id);
  }

  /**
   * Polls the remote every `syncIntervalMs` (at least every `minWatchMs`, default 1 s) and, when the copy changed,
   * reports the ids present before or after (a registry then refreshes them). Failures are in `status()`, not thrown.
   * Returns a function that stops polling; the timer never keeps the process alive.
   */
  watch(onChange: (ids: string[]) => void, options: { minWatchMs?: number } = {}): () => void {
    let stopped = false;
    let running = false;
    const tick = async () => {
      if (running || stopped) return;
      running = true;
      try {
        const before = this.#provider === undefined ? [] : await this.#provider.discover().catch(() => []);
        const result = await this.sync();
        if (!result.changed || stopped) return;
        const after = await this.#provider!.discover().catch(() => []);
        onChange([...new Set([...before, ...after])].sort());
      } catch {
        // No copy and no remote yet: the next tick tries again; readers see the error themselves.
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void tick(), Math.max(this.#intervalMs, options.minWatchMs ?? 1000));
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }

  async #sync(): Promise<SyncResult> {
    const last = await this.#last();
    this.#attemptedAt = this.#now();
    this.#fetchTold = false;
    let next: Snapshot;
    try {
      next = await this.fetchSnapshot(last);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RemoteSourceError && error.code === "REMOTE_ACCESS_DENIED") {
        // Refused credentials are not an outage: what they fetched before is no longer theirs to read (decision 0240).
        this.#snapshot = undefined;
        this.#provider = undefined;
        this.#offline = false;
        this.#error = message;
        // Deleting may fail (a read-only cache); the copy is out of service in this process either way.
        await this.discardSnapshots().catch(() => undefined);
        throw error;
      }
      if (last === undefined) {
        // No copy to fall back on: a transport failure is the provider being unavailable (config and integrity
        // errors keep their own codes).
        if (error instanceof RemoteSourceError && error.code === "REMOTE_FETCH")
          throw new ProviderUnavailableError(message, { cause: error });
        throw error;
      }
      this.#offline = true;
      this.#error = message;
      return { revision: last.revision, changed: false, offline: true, error: message };
    }
    const Reader = await this.#readerClass();
    this.#offline = false;
    this.#error = undefined;
    const changed = last?.revision !== next.revision || last.root !== next.root;
    this.#install(next, Reader);
    if (changed) await this.pruneSnapshots(next).catch(() => undefined);
    return { revision: next.revision, changed, offline: false };
  }

  async #last(): Promise<Snapshot | undefined> {
    if (!this.#loaded) {
      const kept = await this.loadSnapshot();
      const Reader = kept && (await this.#readerClass());
      this.#loaded = true;
      if (kept && Reader && this.#snapshot === undefined) this.#install(kept, Reader);
    }
    return this.#snapshot;
  }

  #install(snapshot: Snapshot, Reader: typeof LocalFileSystemSkillProvider): void {
    if (this.#provider === undefined || this.#snapshot?.root !== snapshot.root) {
      this.#provider = new Reader(snapshot.root, {
        name: this.name,
        ...(this.maxFileBytes !== undefined && { maxFileBytes: this.maxFileBytes }),
      });
    }
    this.#snapshot = snapshot;
  }

  /** The provider over the current copy, after a sync when one is due. */
  async #current(): Promise<LocalFileSystemSkillProvider> {
    const last = await this.#last();
    const due =
      last === undefined ||
      (this.#autoSync && this.#now() - Math.max(last.checkedAt, this.#attemptedAt) >= this.#intervalMs);
    if (due) {
      if (last === undefined && !this.#autoSync) {
        throw new ProviderUnavailableError(`${this.name}: no local copy yet; call sync() first (autoSync is off)`);
      }
      await this.sync();
    }
    const provider = this.#provider;
    if (provider === undefined) throw new ProviderUnavailableError(`${this.name}: no local copy could be made`);
    return provider;
  }
}

/** What a source that keeps each copy as a folder under `trees/` persists in its identity folder's `state.json`. */
export interface KeptState {
  version: 1;
  revision: string;
  /** Folder name under trees/ holding the copy. */
  tree: string;
  /** The copy before this one, kept while readers may still use it; removed at the next change. */
  previousTree: string | null;
  checkedAt: number;
  skipped: RemoteSkipped[];
}

const STATE_FILE = "state.json";

/**
 * The copies a snapshot source keeps for one credential identity (decision 0240): `<cacheDir>/id-<keyed hash>/`,
 * holding `state.json` and one folder per copy under `trees/`. The one home of the identity folder, the state file,
 * and the rule that a copy is removed two changes later (the previous one may still be read by a call that started
 * before the swap), for the git and HTTP sources.
 */
export class KeptCopies<S extends KeptState> {
  readonly #cacheDir: string;
  readonly #identity: readonly (readonly [string, string])[];
  #home: string | undefined;
  /** The cache folder was made when the identity folder was found: nothing was kept in it before this process. */
  #fresh = false;
  #state: S | undefined;
  #stalePrevious: string | undefined;

  constructor(cacheDir: string, identity: readonly (readonly [string, string])[]) {
    this.#cacheDir = cacheDir;
    this.#identity = identity;
  }

  /** The last state saved or loaded in this process. */
  get state(): S | undefined {
    return this.#state;
  }

  /** The identity folder (`<cacheDir>/id-<keyed hash>`), found on first use. */
  async dir(): Promise<string> {
    if (this.#home === undefined) {
      const opened = await openIdentityDir(this.#cacheDir, this.#identity);
      this.#home = opened.dir;
      this.#fresh = opened.fresh;
    }
    return this.#home;
  }

  /** The identity folder, once `dir()` found it. */
  get home(): string {
    if (this.#home === undefined) throw new Error("the identity folder is not known yet: call dir() first");
    return this.#home;
  }

  treeDir(tree: string): string {
    return path.join(this.home, "trees", tree);
  }

  /** The state kept from an earlier run (`read` through the source's schema) when it is for this source (`matches`) and
   * its copy is still there. */
  async load(read: (file: string) => Promise<S | undefined>, matches: (state: S) => boolean): Promise<S | undefined> {
    const dir = await this.dir();
    // A cache folder this process made holds no state file yet.
    if (this.#fresh) return undefined;
    const state = await read(path.join(dir, STATE_FILE));
    if (state === undefined) return undefined;
    if (state.version !== 1 || !matches(state) || !/^[\w.-]+$/.test(state.tree)) return undefined;
    if (!(await stat(this.treeDir(state.tree)).catch(() => undefined))?.isDirectory()) return undefined;
    this.#state = state;
    return state;
  }

  /** Persists `state`; the copy it makes two changes old is removed at the next `prune()`. */
  async save(state: S): Promise<void> {
    const old = this.#state;
    if (old !== undefined && old.tree !== state.tree && old.previousTree !== null && old.previousTree !== state.tree)
      this.#stalePrevious = old.previousTree;
    await writeFileAtomic(path.join(this.home, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
    this.#state = state;
  }

  /** Removes the copy two changes back, if a change made one stale. */
  async prune(): Promise<void> {
    const stale = this.#stalePrevious;
    this.#stalePrevious = undefined;
    if (stale !== undefined) await rm(this.treeDir(stale), { recursive: true, force: true });
  }

  /** Forgets and removes every copy of this identity (the remote refused its credentials). */
  async discard(): Promise<void> {
    this.#state = undefined;
    this.#stalePrevious = undefined;
    await rm(await this.dir(), { recursive: true, force: true });
  }
}

function describeSkipped(skip: SkippedSkill): RemoteSkipped {
  return { where: skip.where, reason: skip.message };
}
