import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { redactUri } from "@skillport/core/internal";
import { DEFAULT_MAX_FILE_BYTES, randomHex, writeFileAtomic } from "@skillport/fs";
import { cacheKey, defaultCacheRoot, ensurePrivateDir } from "../cache-dir.js";
import { RemoteSourceError } from "../errors.js";
import {
  KeptCopies,
  SnapshotSource,
  type KeptState,
  type Snapshot,
  type SnapshotSourceOptions,
} from "../snapshot-source.js";
import { deadlineIn, fetchBounded, type Deadline, type HttpFetchOptions } from "./fetch-bounded.js";
import { parseDiscoveryIndex, type IndexEntry } from "./index-format.js";

export const WELL_KNOWN_INDEX_PATH = ".well-known/agent-skills/index.json";

export interface HttpSkillSourceOptions extends SnapshotSourceOptions {
  /** A site (`https://example.com/`, the index is at `/.well-known/agent-skills/index.json` below it) or an index URL (`….json`). */
  url: string;
  /** Name in qualified ids and messages. Default: the index URL with credentials hidden. */
  name?: string;
  /**
   * Where downloads are kept, one folder per set of credentials (the address's user and password and every `headers`
   * entry) inside it (decision 0240). Default `<cache root>/http/<hash of the index URL>`.
   */
  cacheDir?: string;
  /** Other origins (`https://cdn.example.com`) that redirects and artifact URLs may lead to. Default none. */
  allowedOrigins?: readonly string[];
  /** Largest index document, in bytes. Default 1 MiB. */
  maxIndexBytes?: number;
  /** Most skills an index may list. Default 1,000. */
  maxSkills?: number;
  /** Largest archive artifact, in bytes. Default 50 MiB. */
  maxArchiveBytes?: number;
  /** Most files in one archive artifact. Default 1,000. */
  maxArchiveFiles?: number;
  /** Per request attempt, the body included (ms). Default 30,000. */
  timeoutMs?: number;
  /**
   * One whole sync: the index and every artifact, retries, backoff and streaming included (ms). A server that
   * trickles is stopped here; the sync fails and the last good copy stays in service. Default 600,000 (10 minutes).
   */
  syncDeadlineMs?: number;
  /** One file (the index or an artifact), all its attempts included (ms). Default 120,000. */
  fileDeadlineMs?: number;
  /** Further attempts after a 429, 5xx or network failure. Default 3. */
  retries?: number;
  /** First backoff delay (ms). Default 500. */
  retryBaseMs?: number;
  /** Longest wait between attempts, Retry-After included (ms). Default 30,000. */
  maxRetryDelayMs?: number;
  /** Extra request headers. Each one counts as a credential for the cache: other headers, another copy. */
  headers?: Record<string, string>;
  /** A `fetch` implementation, for tests. */
  fetch?: typeof fetch;
}

/** `revision` is the sha256 of the index document. */
interface HttpState extends KeptState {
  indexUrl: string;
  etag: string | null;
}

/** state.json's shape (zod v4 mini, loaded only when a copy's state is read; decision 0321). */
async function httpStateSchema() {
  const z = await import("zod/mini");
  const nullable = z.union([z.string(), z.null()]);
  return z.object({
    version: z.literal(1),
    indexUrl: z.string(),
    etag: nullable,
    revision: z.string(),
    tree: z.string(),
    checkedAt: z.number(),
    skipped: z.array(z.object({ where: z.string(), reason: z.string() })),
    previousTree: nullable,
  });
}

/**
 * Skills published through the Agent Skills discovery index (`/.well-known/agent-skills/index.json`, v0.2.0), read-only.
 * The index is revalidated with If-None-Match; each artifact (a SKILL.md or an archive of the skill folder) is fetched
 * once, verified against its sha256 digest (and size, when given) and kept by digest, so a restart or an unchanged
 * entry fetches nothing. The skills are unpacked into a cache folder and read through the filesystem provider.
 * A digest mismatch fails the sync: the last good copy stays in service and `status()` says why.
 */
export class HttpSkillSource extends SnapshotSource {
  readonly name: string;
  readonly indexUrl: string;
  readonly cacheDir: string;
  readonly #display: string;
  readonly #fetch: Omit<HttpFetchOptions, "maxBytes">;
  readonly #maxIndexBytes: number;
  readonly #maxSkills: number;
  readonly #maxFileBytes: number;
  readonly #maxArchiveBytes: number;
  readonly #maxArchiveFiles: number;
  readonly #syncDeadlineMs: number;
  readonly #fileDeadlineMs: number;
  /** The copies of this source's credential identity (its folder inside `cacheDir`). */
  readonly #kept: KeptCopies<HttpState>;

  constructor(options: HttpSkillSourceOptions) {
    super(options);
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new RemoteSourceError(`not a URL: ${JSON.stringify(redactUri(options.url))}`, "REMOTE_CONFIG");
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new RemoteSourceError(`an HTTP source needs an http(s) URL, got ${url.protocol}`, "REMOTE_CONFIG");
    const secrets: string[] = [];
    let authorization: HttpFetchOptions["authorization"];
    if (url.username !== "" || url.password !== "") {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      const token = Buffer.from(`${user}:${password}`).toString("base64");
      secrets.push(user, password, token);
      authorization = { origin: url.origin, value: `Basic ${token}` };
      url.username = "";
      url.password = "";
    }
    if (!url.pathname.endsWith(".json")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/${WELL_KNOWN_INDEX_PATH}`;
    url.hash = "";
    this.indexUrl = url.href;
    this.#display = redactUri(this.indexUrl);
    this.name = options.name ?? this.#display;
    this.cacheDir = path.resolve(options.cacheDir ?? path.join(defaultCacheRoot(), "http", cacheKey(this.indexUrl)));
    const identity: [string, string][] = [
      ["authorization", authorization?.value ?? ""],
      ...Object.entries(options.headers ?? {}).map(([k, v]): [string, string] => [k.toLowerCase(), v]),
    ];
    identity.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#kept = new KeptCopies(this.cacheDir, identity);
    this.#maxIndexBytes = options.maxIndexBytes ?? 1024 * 1024;
    this.#maxSkills = options.maxSkills ?? 1000;
    this.#maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#maxArchiveBytes = options.maxArchiveBytes ?? 50 * 1024 * 1024;
    this.#maxArchiveFiles = options.maxArchiveFiles ?? 1000;
    this.#syncDeadlineMs = positiveMs("syncDeadlineMs", options.syncDeadlineMs ?? 600_000);
    this.#fileDeadlineMs = positiveMs("fileDeadlineMs", options.fileDeadlineMs ?? 120_000);
    this.#fetch = {
      headers: { accept: "application/json, */*;q=0.5", ...options.headers },
      ...(authorization !== undefined && { authorization }),
      timeoutMs: options.timeoutMs ?? 30_000,
      retries: options.retries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      allowedOrigins: new Set((options.allowedOrigins ?? []).map((o) => new URL(o).origin)),
      secrets: secrets.filter((s) => s !== ""),
      ...(options.fetch !== undefined && { fetch: options.fetch }),
    };
  }

  protected async loadSnapshot(): Promise<Snapshot | undefined> {
    const state = await this.#kept.load(
      (file) => this.readState(file, httpStateSchema),
      (s) => s.indexUrl === this.indexUrl,
    );
    return state === undefined ? undefined : this.#snapshotOf(state);
  }

  protected async fetchSnapshot(last: Snapshot | undefined): Promise<Snapshot> {
    await ensurePrivateDir(await this.#kept.dir());
    const now = this.clock();
    const state = last === undefined ? undefined : this.#kept.state;
    const conditional: Record<string, string> = state?.etag ? { "if-none-match": state.etag } : {};
    const sync = deadlineIn(
      this.#syncDeadlineMs,
      `the sync's deadline of ${this.#syncDeadlineMs} ms (syncDeadlineMs) passed`,
    );
    const asked = fetchBounded(this.indexUrl, {
      ...this.#fetch,
      headers: { ...this.#fetch.headers, ...conditional },
      maxBytes: this.#maxIndexBytes,
      deadlines: [sync, this.#fileDeadline()],
    });
    this.fetchStarted();
    const response = await asked;
    const etag = response.headers.get("etag");
    if (response.status === 304) {
      if (state === undefined)
        throw new RemoteSourceError(`GET ${this.#display} answered 304 to an unconditional request`, "REMOTE_FETCH");
      return this.#keep({ ...state, checkedAt: now });
    }
    const revision = sha256Hex(response.bytes);
    if (state !== undefined && state.revision === revision) return this.#keep({ ...state, etag, checkedAt: now });
    const index = parseDiscoveryIndex(response.bytes, response.url, this.#maxSkills, this.#display);
    const tree = await this.#build(index.entries, response.url, sync);
    const next: HttpState = {
      version: 1,
      indexUrl: this.indexUrl,
      etag,
      revision,
      tree,
      checkedAt: now,
      skipped: index.skipped,
      previousTree: this.#kept.state?.tree ?? null,
    };
    return this.#keep(next);
  }

  protected pruneSnapshots(): Promise<void> {
    return this.#kept.prune();
  }

  protected discardSnapshots(): Promise<void> {
    return this.#kept.discard();
  }

  async #keep(state: HttpState): Promise<Snapshot> {
    await this.#kept.save(state);
    return this.#snapshotOf(state);
  }

  #snapshotOf(state: HttpState): Snapshot {
    return {
      revision: state.revision,
      root: this.#kept.treeDir(state.tree),
      checkedAt: state.checkedAt,
      skipped: state.skipped,
    };
  }

  /** Every artifact verified (fetched only when not already kept by digest), then laid out as a folder of skills. */
  async #build(entries: readonly IndexEntry[], indexUrl: string, sync: Deadline): Promise<string> {
    const trees = await ensurePrivateDir(path.join(this.#kept.home, "trees"));
    await ensurePrivateDir(path.join(this.#kept.home, "blobs"));
    const name = `${Date.now().toString(36)}-${randomHex(4)}`;
    const tmp = path.join(trees, `.tmp-${name}`);
    await mkdir(tmp, { mode: 0o700 });
    try {
      for (const entry of entries) {
        const bytes = await this.#artifact(entry, indexUrl, sync);
        const dir = path.join(tmp, entry.name);
        if (entry.type === "skill-md") {
          await mkdir(dir);
          await writeFile(path.join(dir, "SKILL.md"), bytes);
        } else {
          await this.#unpack(entry, bytes, tmp);
        }
      }
      await rename(tmp, path.join(trees, name));
      return name;
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw error;
    }
  }

  /** The artifact's bytes, from the digest-keyed store or the network; the digest and size are checked either way. */
  async #artifact(entry: IndexEntry, indexUrl: string, sync: Deadline): Promise<Uint8Array> {
    const blob = path.join(this.#kept.home, "blobs", entry.sha256);
    const kept = await readFile(blob).catch(() => undefined);
    if (kept !== undefined && sha256Hex(kept) === entry.sha256) return kept;
    const target = new URL(entry.url);
    if (
      target.origin !== new URL(this.indexUrl).origin &&
      target.origin !== new URL(indexUrl).origin &&
      !this.#fetch.allowedOrigins.has(target.origin)
    ) {
      throw new RemoteSourceError(
        `${this.#display}: skill ${JSON.stringify(entry.name)} is served from another host (${target.origin}); refused unless that origin is allowed`,
        "REMOTE_REFUSED",
      );
    }
    const limit = entry.type === "skill-md" ? this.#maxFileBytes : this.#maxArchiveBytes;
    const { bytes } = await fetchBounded(entry.url, {
      ...this.#fetch,
      maxBytes: limit,
      deadlines: [sync, this.#fileDeadline()],
    });
    if (entry.size !== undefined && bytes.byteLength !== entry.size) {
      throw new RemoteSourceError(
        `${this.#display}: skill ${JSON.stringify(entry.name)}: ${bytes.byteLength} bytes received, the index says ${entry.size}; refused`,
        "REMOTE_INTEGRITY",
      );
    }
    const actual = sha256Hex(bytes);
    if (actual !== entry.sha256) {
      throw new RemoteSourceError(
        `${this.#display}: skill ${JSON.stringify(entry.name)}: digest mismatch (index sha256:${entry.sha256.slice(0, 12)}…, received sha256:${actual.slice(0, 12)}…); refused`,
        "REMOTE_INTEGRITY",
      );
    }
    await writeFileAtomic(blob, bytes);
    return bytes;
  }

  #fileDeadline(): Deadline {
    return deadlineIn(
      this.#fileDeadlineMs,
      `the file's deadline of ${this.#fileDeadlineMs} ms (fileDeadlineMs) passed`,
    );
  }

  /** An archive of one skill folder: SKILL.md at its top, or inside one wrapper folder. Unpacked with pack's safety rules. */
  async #unpack(entry: IndexEntry, bytes: Uint8Array, tmp: string): Promise<void> {
    const { unpackArchive } = await import("@skillport/pack");
    const staging = path.join(tmp, `.unpack-${entry.name}`);
    let files: string[];
    try {
      const result = await unpackArchive(bytes, staging, {
        limits: {
          maxFiles: this.#maxArchiveFiles,
          maxFileBytes: this.#maxFileBytes,
          maxArchiveBytes: this.#maxArchiveBytes,
        },
        stripWrapper: false,
      });
      files = result.files.map((f) => f.path);
    } catch (error) {
      throw new RemoteSourceError(
        `${this.#display}: skill ${JSON.stringify(entry.name)}: the archive was refused (${error instanceof Error ? error.message : String(error)})`,
        "REMOTE_REFUSED",
        { cause: error },
      );
    }
    const top = files.some((f) => f === "SKILL.md" || f === "skill.md") ? "" : wrapperOf(files);
    if (top === undefined)
      throw new RemoteSourceError(
        `${this.#display}: skill ${JSON.stringify(entry.name)}: the archive has no SKILL.md at its top or in one folder`,
        "REMOTE_REFUSED",
      );
    await rename(top === "" ? staging : path.join(staging, top), path.join(tmp, entry.name));
    await rm(staging, { recursive: true, force: true });
  }
}

/** The single top folder every file is in, when it holds SKILL.md. */
function wrapperOf(files: readonly string[]): string | undefined {
  const first = files[0]?.split("/")[0];
  if (first === undefined || !files.every((f) => f.startsWith(`${first}/`))) return undefined;
  return files.includes(`${first}/SKILL.md`) || files.includes(`${first}/skill.md`) ? first : undefined;
}

function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RemoteSourceError(
      `${name} must be a number of milliseconds above 0, got ${String(value)}`,
      "REMOTE_CONFIG",
    );
  return value;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
