import { mkdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { isSafeSkillId } from "@skillport/core";
import { redactUri } from "@skillport/core/internal";
import { DEFAULT_MAX_FILE_BYTES, SKILL_FILE_NAMES, randomHex } from "@skillport/fs";
import { cacheKey, defaultCacheRoot, ensurePrivateDir } from "../cache-dir.js";
import { RemoteSourceError } from "../errors.js";
import {
  KeptCopies,
  SnapshotSource,
  type KeptState,
  type RemoteSkipped,
  type Snapshot,
  type SnapshotSourceOptions,
} from "../snapshot-source.js";
import { checkRef, isCommitId, normalizeRepoPath, parseGitAddress } from "./address.js";
import { ambientCredentials, gitTimedOut, runGit } from "./run-git.js";

export interface GitSkillSourceOptions extends SnapshotSourceOptions {
  /** The repository URL git is given (`https://…`, `ssh://…`, `git://…`, `file:///…`), without credentials. */
  url: string;
  /** Branch, tag or full commit id. Default: the remote's HEAD. */
  ref?: string;
  /** Folder of skills in the repository. Default `skills/` when the repository has one, else the root. */
  path?: string;
  /** HTTP credentials, sent as an Authorization header scoped to `url` through git's environment, never argv. */
  username?: string;
  password?: string;
  /** Name in qualified ids and messages. Default: the URL with credentials hidden, plus `#ref:path`. */
  name?: string;
  /**
   * Where clones are kept, one folder per set of credentials inside it (decision 0240). Default
   * `<cache root>/git/<hash of url, ref and path>` (see `defaultCacheRoot`).
   */
  cacheDir?: string;
  /** Longest any one git command may run (ms). Default 120,000. */
  timeoutMs?: number;
}

interface GitState extends KeptState {
  url: string;
  ref: string | null;
  path: string | null;
  /** Skills folder inside the checkout ("" for the root). */
  skillsPath: string;
}

/** state.json's shape (zod v4 mini, loaded only when a copy's state is read; decision 0321). */
async function gitStateSchema() {
  const z = await import("zod/mini");
  const skipped = z.array(z.object({ where: z.string(), reason: z.string() }));
  const nullable = z.union([z.string(), z.null()]);
  return z.object({
    version: z.literal(1),
    url: z.string(),
    ref: nullable,
    path: nullable,
    revision: z.string(),
    tree: z.string(),
    skillsPath: z.string(),
    checkedAt: z.number(),
    skipped,
    previousTree: nullable,
  });
}

/**
 * Skills in a git repository, read-only. A shallow clone of one commit, checked out in part (only the skills folder,
 * without files over the size limit), lives in a cache folder; reads come from it through the filesystem provider. A
 * sync asks `git ls-remote` (at most every `syncIntervalMs`) and fetches only when the ref moved; a commit id is
 * fetched once (and, with credentials, the remote is still asked whether they are accepted). An unreachable remote
 * leaves the last good copy in service; refused credentials end it (docs/sources.md).
 */
export class GitSkillSource extends SnapshotSource {
  readonly name: string;
  readonly url: string;
  readonly ref: string | undefined;
  readonly repoPath: string | undefined;
  readonly cacheDir: string;
  readonly #timeoutMs: number;
  readonly #limit: number;
  readonly #config: Record<string, string>;
  readonly #secrets: string[];
  readonly #display: string;
  /** The environment every git command of this source runs in, taken once, so the identity describes what git gets. */
  readonly #env: NodeJS.ProcessEnv;
  /** The copies of this source's credential identity (its folder inside `cacheDir`). */
  readonly #kept: KeptCopies<GitState>;

  constructor(options: GitSkillSourceOptions) {
    super(options);
    if (typeof options.url !== "string" || options.url === "" || options.url.startsWith("-"))
      throw new RemoteSourceError("a git source needs a repository URL", "REMOTE_CONFIG");
    this.url = options.url;
    this.ref = options.ref === undefined ? undefined : checkRef(options.ref);
    const sub = options.path === undefined ? "" : normalizeRepoPath(options.path);
    this.repoPath = sub === "" ? undefined : sub;
    this.#display =
      redactUri(this.url) +
      (this.ref !== undefined || this.repoPath !== undefined
        ? `#${this.ref ?? ""}${this.repoPath !== undefined ? `:${this.repoPath}` : ""}`
        : "");
    this.name = options.name ?? this.#display;
    this.cacheDir = path.resolve(
      options.cacheDir ?? path.join(defaultCacheRoot(), "git", cacheKey(this.url, this.ref ?? "", this.repoPath ?? "")),
    );
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#secrets = [options.password ?? "", options.username ?? ""].filter((s) => s !== "");
    this.#config = {};
    this.#env = { ...process.env };
    // What grants access, for the cache identity: the user and password given, the OS user and git's credential environment.
    const identity: [string, string][] = [
      ["username", options.username ?? ""],
      ["password", options.password ?? ""],
      ["uid", String(process.getuid?.() ?? "")],
      ...ambientCredentials(this.#env),
    ];
    this.#kept = new KeptCopies(this.cacheDir, identity);
    if (options.username !== undefined || options.password !== undefined) {
      const token = Buffer.from(`${options.username ?? ""}:${options.password ?? ""}`).toString("base64");
      this.#secrets.push(token);
      // Scoped to this URL: a redirect to another host does not get the header.
      this.#config[`http.${this.url}.extraHeader`] = `Authorization: Basic ${token}`;
    }
  }

  /** A source from an address such as `git+https://user:token@host/repo.git#v1.2:skills` (docs/sources.md). */
  static fromAddress(
    address: string,
    options: Omit<GitSkillSourceOptions, "url" | "ref" | "path" | "username" | "password"> & { cwd?: string } = {},
  ): GitSkillSource {
    const parsed = parseGitAddress(address, options.cwd);
    return new GitSkillSource({
      ...options,
      url: parsed.url,
      ...(parsed.ref !== undefined && { ref: parsed.ref }),
      ...(parsed.path !== undefined && { path: parsed.path }),
      ...(parsed.username !== undefined && { username: parsed.username }),
      ...(parsed.password !== undefined && { password: parsed.password }),
      name: options.name ?? parsed.display,
    });
  }

  /** The commit the copy was made from, if there is a copy. */
  get revision(): string | undefined {
    return this.#kept.state?.revision;
  }

  /**
   * The checked-out folder the configured path names (the repository root without one), once synced: an installer
   * reads plugin manifests from it (decision 0422). Without a path it holds only the skills folder, unless the
   * repository root has a plugin manifest, in which case the whole repository is checked out.
   */
  get checkoutDir(): string | undefined {
    const state = this.#kept.state;
    if (state === undefined) return undefined;
    return path.join(this.#kept.treeDir(state.tree), ...(this.repoPath ?? "").split("/").filter(Boolean));
  }

  /** The folder inside the repository the copy serves (the configured path, else `skills` or the root), once synced. */
  get servedPath(): string | undefined {
    return this.#kept.state?.skillsPath;
  }

  protected async loadSnapshot(): Promise<Snapshot | undefined> {
    const state = await this.#kept.load(
      (file) => this.readState(file, gitStateSchema),
      (s) => s.url === this.url && s.ref === (this.ref ?? null) && s.path === (this.repoPath ?? null),
    );
    return state === undefined ? undefined : this.#snapshotOf(state);
  }

  protected async fetchSnapshot(last: Snapshot | undefined): Promise<Snapshot> {
    await ensurePrivateDir(await this.#kept.dir());
    const now = this.clock();
    const state = this.#kept.state;
    // No copy yet and no ref (a first `add`): one clone of the remote's HEAD both names and brings the commit, with no
    // `ls-remote` before it (processes and a round trip fewer). Any failure but a timeout takes the usual way below, so
    // a remote that is down or refuses still fails on `ls-remote`, with the message it always had.
    if (state === undefined && this.ref === undefined) {
      const built = await this.#checkout("HEAD").catch((error: unknown) => {
        if (gitTimedOut(error)) throw error;
        return undefined;
      });
      if (built !== undefined) return this.#keep(built, now, state);
    }
    const commit = isCommitId(this.ref) ? (this.ref as string) : await this.#resolveRef();
    // A pinned commit is never asked about, so a copy of it would outlive revoked access: ask the remote anyway.
    if (isCommitId(this.ref) && this.#secrets.length > 0)
      await this.#git(["ls-remote", "--", this.url, "HEAD"], "ls-remote", { cwd: this.#kept.home });
    if (last !== undefined && state !== undefined && state.revision === commit) {
      const next = { ...state, checkedAt: now };
      await this.#kept.save(next);
      return this.#snapshotOf(next);
    }
    return this.#keep(await this.#checkout(commit), now, state);
  }

  /** Records a new checkout as the copy in service (the previous tree is kept until the next prune). */
  async #keep(built: Checkout, now: number, state: GitState | undefined): Promise<Snapshot> {
    const next: GitState = {
      version: 1,
      url: this.url,
      ref: this.ref ?? null,
      path: this.repoPath ?? null,
      revision: built.commit,
      tree: built.tree,
      skillsPath: built.skillsPath,
      checkedAt: now,
      skipped: built.skipped,
      previousTree: state?.tree ?? null,
    };
    await this.#kept.save(next);
    return this.#snapshotOf(next);
  }

  protected pruneSnapshots(): Promise<void> {
    return this.#kept.prune();
  }

  protected discardSnapshots(): Promise<void> {
    return this.#kept.discard();
  }

  #snapshotOf(state: GitState): Snapshot {
    return {
      revision: state.revision,
      root: path.join(this.#kept.treeDir(state.tree), ...state.skillsPath.split("/").filter(Boolean)),
      checkedAt: state.checkedAt,
      skipped: state.skipped,
    };
  }

  #git(
    args: readonly string[],
    what: string,
    options: { cwd?: string; input?: string; config?: Record<string, string> } = {},
  ): Promise<string> {
    return runGit(args, {
      ...options,
      config: { ...this.#config, ...options.config },
      env: this.#env,
      timeoutMs: this.#timeoutMs,
      secrets: this.#secrets,
      what: `${what} ${this.#display}`,
      // A sync's first git command asks the remote (clone, ls-remote; an init just before a fetch).
      onSpawn: () => this.fetchStarted(),
    });
  }

  /** The commit the ref names on the remote now: a branch, else a tag (peeled to its commit), else the remote's HEAD. */
  async #resolveRef(): Promise<string> {
    const ref = this.ref;
    const patterns = ref === undefined ? ["HEAD"] : [ref, `${ref}^{}`];
    const out = await this.#git(["ls-remote", "--", this.url, ...patterns], "ls-remote", { cwd: this.#kept.home });
    const refs = new Map<string, string>();
    for (const line of out.split("\n")) {
      const [sha, name] = line.split("\t");
      if (sha && name) refs.set(name, sha);
    }
    const wanted = ref === undefined ? ["HEAD"] : [`refs/heads/${ref}`, `refs/tags/${ref}^{}`, `refs/tags/${ref}`, ref];
    for (const name of wanted) {
      const sha = refs.get(name);
      if (sha !== undefined) return sha;
    }
    throw new RemoteSourceError(
      `${this.#display}: the remote has no ${ref === undefined ? "HEAD" : `branch or tag ${JSON.stringify(ref)}`}`,
      "REMOTE_CONFIG",
    );
  }

  /**
   * A shallow checkout of one commit (`want`: a commit id, or `HEAD` for the remote's HEAD, whose commit the clone's
   * HEAD then names) into a new folder under trees/, of the skills folder only and without files over the limit (never
   * written, and with a filtering server never downloaded). The files are named to git one by one, NUL-separated and
   * literal (`checkout-index -z --stdin`): no pattern language, so no name in the repository (a newline, `*`, `!`, `#`,
   * a backslash, spaces) can widen or narrow what is written (decision 0241).
   */
  async #checkout(want: string): Promise<Checkout> {
    const trees = await ensurePrivateDir(path.join(this.#kept.home, "trees"));
    const suffix = randomHex(4);
    const tmp = path.join(trees, `.tmp-${want === "HEAD" ? "head" : want.slice(0, 12)}-${suffix}`);
    try {
      // No templates (hooks, info/): nothing in the copy needs them. Blobs over the limit are not even downloaded when
      // the server allows filters; otherwise git ignores the filter. Nothing is checked out here (see below).
      const shallow = ["--depth", "1", "--no-tags", `--filter=blob:limit=${this.#limit + 1}`];
      // This object store lives only until checkout-index below and is then removed: nothing in it needs to survive a
      // crash, so git (index-pack) does not fsync the pack and its index (decision 0432).
      const throwaway = { "core.fsync": "none" };
      let commit = want;
      if (want === "HEAD") {
        // The remote's HEAD: one `clone` (a repository, its remote and the fetch in one process; decision 0424).
        await this.#git(
          [
            "-c",
            "fetch.recurseSubmodules=false",
            "clone",
            "-q",
            "--template=",
            "--no-checkout",
            ...shallow,
            "--",
            this.url,
            tmp,
          ],
          "clone",
          { config: throwaway },
        );
        commit = await headCommit(tmp);
      } else {
        await this.#git(["init", "-q", "--template=", tmp], "init");
        // The remote lives only in the fetch's own configuration.
        await this.#git(["-c", "fetch.recurseSubmodules=false", "fetch", "-q", ...shallow, "origin", want], "fetch", {
          cwd: tmp,
          config: { "remote.origin.url": this.url, ...throwaway },
        });
      }
      // The index gets the whole commit (trees only are read) while the tree is listed: nothing is written to the work
      // tree until checkout-index below, which writes exactly the files named.
      const [entries] = await allSettled([
        this.#listTree(tmp, commit),
        this.#git(["read-tree", commit], "read-tree", { cwd: tmp }),
      ]);
      const layout = this.#layout(entries);
      const inside = (p: string) => layout.checkout === "" || p.startsWith(`${layout.checkout}/`);
      const skipped: RemoteSkipped[] = [];
      const wanted: string[] = [];
      for (const entry of entries) {
        if (!inside(entry.path)) continue;
        if (entry.type === "commit")
          skipped.push({ where: entry.path, reason: "a submodule; submodules are not fetched" });
        else if (entry.type !== "blob") continue;
        else if (entry.size === undefined || entry.size > this.#limit)
          skipped.push({ where: entry.path, reason: `larger than the limit of ${this.#limit} bytes; not checked out` });
        else wanted.push(entry.path);
      }
      if (wanted.length > 0) {
        const prefix = layout.prefix === "" ? [] : [`--prefix=${layout.prefix}/`];
        await this.#git(["-c", "core.symlinks=true", "checkout-index", "-z", "--stdin", ...prefix], "checkout", {
          cwd: tmp,
          input: `${wanted.join("\0")}\0`,
        });
      }
      await mkdir(path.join(tmp, ...layout.serve.split("/").filter(Boolean)), { recursive: true });
      // The clone's object store is no part of the copy: one rename takes it out of the tree, and it is removed while
      // the caller reads the copy (decision 0444). A removal cut short leaves a `.tmp-` folder, as an interrupted
      // checkout does; the process waits for it before it exits (pending file operations keep Node's loop alive).
      const store = path.join(trees, `.tmp-store-${suffix}`);
      await rename(path.join(tmp, ".git"), store);
      void rm(store, { recursive: true, force: true }).catch(() => undefined);
      const name = `${commit.slice(0, 12)}-${suffix}`;
      await rename(tmp, path.join(trees, name));
      return { commit, tree: name, skillsPath: layout.serve, skipped };
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * What to check out and which folder of it to serve. A configured path that is one skill folder (it holds SKILL.md)
   * is served from its parent, as the only skill there, like a local skill folder (decision 0242); any other path is
   * a folder of skills. Without a path: `skills/` when the repository has one; else the root, which when it holds
   * SKILL.md is one skill, written into a folder named after the repository (`prefix`).
   */
  #layout(entries: readonly TreeEntry[]): { checkout: string; serve: string; prefix: string } {
    const sub = this.repoPath;
    if (sub !== undefined) {
      if (!entries.some((e) => e.path.startsWith(`${sub}/`))) {
        throw new RemoteSourceError(
          `${this.#display}: the repository has no folder ${JSON.stringify(sub)}`,
          "REMOTE_CONFIG",
        );
      }
      const isSkill = entries.some((e) => e.type === "blob" && SKILL_FILE_NAMES.some((f) => e.path === `${sub}/${f}`));
      return { checkout: sub, serve: isSkill ? path.posix.dirname(sub).replace(/^\.$/, "") : sub, prefix: "" };
    }
    const skillsDir = entries.some((e) => e.path.startsWith("skills/"));
    // A plugin marketplace or plugin (its manifest at the root): the whole repository, so the skills its manifests
    // name (`plugins/*/skills/*`) are there to read; what is served is unchanged (decision 0422).
    if (entries.some((e) => e.type === "blob" && (PLUGIN_MANIFESTS as readonly string[]).includes(e.path)))
      return { checkout: "", serve: skillsDir ? "skills" : "", prefix: "" };
    if (skillsDir) return { checkout: "skills", serve: "skills", prefix: "" };
    if (!entries.some((e) => e.type === "blob" && (SKILL_FILE_NAMES as readonly string[]).includes(e.path)))
      return { checkout: "", serve: "", prefix: "" };
    const name =
      this.url
        .replace(/[?#].*$/, "")
        .replace(/\/+$/, "")
        .split("/")
        .pop()
        ?.replace(/\.git$/, "") ?? "";
    if (!isSafeSkillId(name)) {
      throw new RemoteSourceError(
        `${this.#display}: the repository is one skill, but its name ${JSON.stringify(name)} is not a usable skill folder name`,
        "REMOTE_CONFIG",
      );
    }
    return { checkout: "", serve: "", prefix: name };
  }

  /**
   * Every entry of the commit with blob sizes; a blob left out by the filter has no size (so it is over the limit).
   * The copy holds one shallow fetch and nothing else, so the objects it has are the commit's objects that arrived:
   * their sizes come from one `cat-file --batch-all-objects` (which never fetches a missing one), run beside `ls-tree`.
   */
  async #listTree(repo: string, commit: string): Promise<TreeEntry[]> {
    const [listing, objects] = await allSettled([
      this.#git(["ls-tree", "-r", "-z", "--full-tree", commit], "ls-tree", { cwd: repo }),
      this.#git(
        ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
        "cat-file",
        {
          cwd: repo,
        },
      ),
    ]);
    const sizes = new Map<string, number>();
    for (const line of objects.split("\n")) {
      const [oid, type, size] = line.split(" ");
      if (oid && type === "blob" && size && /^\d+$/.test(size)) sizes.set(oid, Number(size));
    }
    const entries: TreeEntry[] = [];
    for (const record of listing.split("\0")) {
      const tab = record.indexOf("\t");
      if (tab < 0) continue;
      const [, type, oid] = record.slice(0, tab).split(" ");
      if (type && oid)
        entries.push({ path: record.slice(tab + 1), type, oid, size: type === "blob" ? sizes.get(oid) : undefined });
    }
    return entries;
  }
}

/** Promise.all that waits for every command to end before it fails, so none still runs in a folder being removed. */
async function allSettled<T extends readonly unknown[]>(all: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(all);
  for (const result of results) if (result.status === "rejected") throw result.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * The commit a fresh clone's HEAD names: HEAD holds it, or names a branch whose loose ref (or line in packed-refs)
 * holds it. Read from the files git just wrote in our own private folder (gitrepository-layout), not a process.
 */
async function headCommit(repo: string): Promise<string> {
  const dotGit = path.join(repo, ".git");
  const head = (await readFile(path.join(dotGit, "HEAD"), "utf8")).trim();
  let commit = head;
  const ref = /^ref: (refs\/heads\/[^\0\n]+)$/.exec(head)?.[1];
  // The branch name is the remote's: git refuses `..` in ref names, and so does this read, which stays in .git.
  if (ref !== undefined && ref.split("/").some((part) => part === "" || part === "." || part === ".."))
    throw new RemoteSourceError("git clone left an unreadable HEAD", "REMOTE_FETCH");
  if (ref !== undefined) {
    const loose = await readFile(path.join(dotGit, ...ref.split("/")), "utf8").catch(() => undefined);
    const packed =
      loose === undefined ? await readFile(path.join(dotGit, "packed-refs"), "utf8").catch(() => "") : undefined;
    commit = (
      loose ??
      packed
        ?.split("\n")
        .find((line) => line.endsWith(` ${ref}`))
        ?.split(" ")[0] ??
      ""
    ).trim();
  }
  if (!isCommitId(commit)) throw new RemoteSourceError("git clone left no commit at HEAD", "REMOTE_FETCH");
  return commit;
}

/** Files at a repository's root that make it a plugin marketplace or a plugin (Claude Code, Agent Plugins 1.0). */
const PLUGIN_MANIFESTS = [".claude-plugin/marketplace.json", ".claude-plugin/plugin.json", "plugin.json"] as const;

interface TreeEntry {
  path: string;
  type: string;
  oid: string;
  size?: number | undefined;
}

interface Checkout {
  commit: string;
  tree: string;
  skillsPath: string;
  skipped: RemoteSkipped[];
}
