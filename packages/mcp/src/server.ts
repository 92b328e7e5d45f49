import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type CacheHint,
  type Resource,
} from "@modelcontextprotocol/server";
import {
  SkillsExtension,
  type DirectoryResource,
  type Skill,
  type SkillReadResult,
  type SkillSource,
} from "@modelcontextprotocol/server/ext/skills";
import type { SkillRegistry } from "@skillport/core";
import {
  buildSnapshot,
  textOf,
  type Refusal,
  type ServedFile,
  type ServedSkill,
  type Snapshot,
  type SnapshotLimits,
} from "./snapshot.js";
import { registerFallback, registerScriptTool } from "./fallback.js";
import { ByteBudgetCache } from "./byte-cache.js";
import { FileBytes, FileChangedError } from "./files.js";
import type { RemoteCodeRunner } from "@skillport/core/internal";

export interface SkillServerOptions extends SnapshotLimits {
  /** The server's name in `initialize` / `server/discover` and in the catalog. Default `skillport`. */
  name?: string;
  version?: string;
  /** Entries per `skills/list` page and per directory page. Default 100. */
  pageSize?: number;
  /** The tool fallback (`load_skill_through_path`, `search_skills`) and the catalog resource. Default true. */
  tools?: boolean;
  /** How long a replaced version of a skill stays readable by its URIs, in ms. Default 600,000 (10 minutes). */
  retainMs?: number;
  /** `ttlMs` / `cacheScope` sent on 2026-07-28 connections. Default the SDK's (0, private). */
  cacheHint?: CacheHint;
  /** Where the server says what it does not serve and why. Default: nowhere. */
  log?: (message: string) => void;
  /** Follow the registry's changes (providers that watch). Default true. */
  watch?: boolean;
  /**
   * Offer `run_skill_script` with the tool fallback, run by this runner (a pool: `QueueCodeRunner` of
   * `@skillport/runners`; decision 0440). Default: no script tool, nothing runs.
   */
  scripts?: RemoteCodeRunner;
  /**
   * Bytes of serialised answers kept for the current snapshot (`skills/list` pages, `skills/get`, `resources/read`,
   * directory pages; about the least recently used dropped first). Default 16 MiB; 0 keeps none.
   */
  answerCacheBytes?: number;
  /**
   * Bytes of hot files kept in memory (about the least recently used dropped first). A snapshot holds each file's size and
   * digest, not its bytes: other reads go to the source and are verified (decision 0381). Default 8 MiB; 0 keeps none.
   */
  fileCacheBytes?: number;
}

export interface SnapshotChange {
  generation: number;
  added: string[];
  removed: string[];
  changed: string[];
  /** A skill was added or removed, or a name or description changed: `notifications/resources/list_changed` went out. */
  listChanged: boolean;
}

interface Retired {
  skill: ServedSkill;
  until: number;
}

const CURSOR_PREFIX = "after:";

function encodeCursor(uri: string): string {
  return Buffer.from(CURSOR_PREFIX + uri, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(CURSOR_PREFIX)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
  return text.slice(CURSOR_PREFIX.length);
}

/** Items after the cursor's URI, one page; entries are whole (never split across pages). */
function paginate<T extends { uri: string }>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    // Binary search: the items are sorted by URI.
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((items[mid] as T).uri <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  const last = page.at(-1);
  return end < items.length && last !== undefined
    ? { items: page, nextCursor: encodeCursor(last.uri) }
    : { items: page };
}

/** The methods {@link SkillServer.legacyAnswer} answers (they depend only on the snapshot) and their params. */
const SNAPSHOT_PARAMS: ReadonlyMap<string, readonly string[]> = new Map([
  ["skills/list", ["cursor"]],
  ["skills/get", ["uri"]],
  ["resources/read", ["uri"]],
  ["resources/directory/read", ["uri", "cursor"]],
]);

/** Serialised answers of one snapshot, by request, within a byte budget. */
class AnswerCache extends ByteBudgetCache<Buffer> {
  readonly snapshot: Snapshot | undefined;

  constructor(snapshot: Snapshot | undefined, budget: number) {
    super(budget);
    this.snapshot = snapshot;
  }
}

/** `skill://<version>/<name>` of any URI inside a served skill, or undefined. */
function rootOf(uri: string): { root: string; canonical: string } | undefined {
  let canonical: string;
  try {
    const url = new URL(uri);
    url.hash = "";
    canonical = url.href;
  } catch {
    return undefined;
  }
  if (!canonical.startsWith("skill://")) return undefined;
  const parts = canonical.slice("skill://".length).split("/");
  if (parts.length < 2) return undefined;
  return { root: `skill://${parts[0]}/${parts[1]}`, canonical };
}

/**
 * Serves the winning skills of a Skillport registry over MCP, through the SDK's Skills extension (SEP-2640), from
 * immutable snapshots: each skill's bytes, digests and frontmatter are captured together, and a change swaps the whole
 * snapshot at once. Every URI carries the skill's content version (`skill://<version>/<name>/…`), so a URI with its
 * digest never names other bytes: a replaced version stays readable for `retainMs`, then reads of it fail as unknown.
 */
export class SkillServer {
  readonly #registry: SkillRegistry;
  readonly #options: SkillServerOptions;
  #snapshot: Snapshot;
  readonly #retired = new Map<string, Retired>();
  #pending: Set<string> | "all" | undefined;
  readonly #servers = new Set<WeakRef<McpServer>>();
  readonly #listeners = new Set<(change: SnapshotChange) => void>();
  readonly #unsubscribe: (() => void) | undefined;
  readonly #extension: SkillsExtension;
  readonly #files: FileBytes;
  /** Roots of current skills a changed file already asked to rebuild (one refresh per version, not per read). */
  readonly #stale = new Set<string>();

  private constructor(registry: SkillRegistry, options: SkillServerOptions, snapshot: Snapshot) {
    this.#registry = registry;
    this.#options = options;
    this.#snapshot = snapshot;
    this.#files = new FileBytes(options.fileCacheBytes ?? 8 * 1024 * 1024);
    this.#extension = new SkillsExtension({
      source: this.#source(),
      ...(options.cacheHint !== undefined && { cacheHint: options.cacheHint }),
      onWarning: (w) => options.log?.(`${w.path}: ${w.message}`),
    });
    if (options.watch ?? true) {
      this.#unsubscribe = registry.on("change", (change) => {
        void this.refresh([...change.added, ...change.removed, ...change.updated]).catch((error: unknown) =>
          options.log?.(
            `refresh failed, the previous snapshot keeps serving: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      });
    }
    this.#logRefusals(snapshot.refused);
  }

  /** Builds the first snapshot (reading every winning skill whole) and returns a server ready to be connected. */
  static async create(registry: SkillRegistry, options: SkillServerOptions = {}): Promise<SkillServer> {
    return new SkillServer(registry, options, await buildSnapshot(registry, options));
  }

  /** The snapshot being served now. */
  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** Told after every swap (the HTTP layer forwards list changes to `subscriptions/listen` streams). */
  onChange(listener: (change: SnapshotChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Re-reads the given skills (by registry id; all when omitted), builds the next snapshot and swaps it in at once.
   * Calls during a rebuild share one follow-up rebuild. On failure the current snapshot keeps serving.
   */
  refresh(ids?: readonly string[]): Promise<SnapshotChange> {
    if (ids === undefined) this.#pending = "all";
    else if (this.#pending !== "all") this.#pending = new Set([...(this.#pending ?? []), ...ids]);
    const run = this.#queue.then(() => {
      const pending = this.#pending;
      this.#pending = undefined;
      return pending === undefined ? this.#last : this.#swap(pending);
    });
    this.#queue = run.catch(() => this.#last);
    return run;
  }

  #queue: Promise<SnapshotChange> = Promise.resolve({
    generation: 1,
    added: [],
    removed: [],
    changed: [],
    listChanged: false,
  });
  #last: SnapshotChange = { generation: 1, added: [], removed: [], changed: [], listChanged: false };

  async #swap(pending: Set<string> | "all"): Promise<SnapshotChange> {
    const previous = this.#snapshot;
    const next = await buildSnapshot(
      this.#registry,
      this.#options,
      previous,
      pending === "all" ? undefined : pending,
      (digest, bytes) => this.#files.keep(digest, bytes),
    );
    this.#snapshot = next;
    this.#stale.clear();
    const until = Date.now() + (this.#options.retainMs ?? 600_000);
    for (const [root, skill] of previous.byRoot) if (!next.byRoot.has(root)) this.#retired.set(root, { skill, until });
    this.#prune();
    const before = new Map(previous.skills.map((s) => [s.id, s]));
    const after = new Map(next.skills.map((s) => [s.id, s]));
    const added = [...after.keys()].filter((id) => !before.has(id));
    const removed = [...before.keys()].filter((id) => !after.has(id));
    const changed = [...after.keys()].filter((id) => before.has(id) && before.get(id)?.root !== after.get(id)?.root);
    // Every version change moves the SKILL.md URI, so resources/list changes whenever any skill does.
    const listChanged = added.length + removed.length + changed.length > 0;
    this.#last = { generation: next.generation, added, removed, changed, listChanged };
    this.#logRefusals(
      next.refused.filter(
        (r) => !previous.refused.some((p) => p.id === r.id && p.source === r.source && p.reason === r.reason),
      ),
    );
    if (listChanged) this.#notify();
    for (const listener of this.#listeners) listener(this.#last);
    return this.#last;
  }

  #logRefusals(refused: readonly Refusal[]): void {
    for (const r of refused) this.#options.log?.(`not served: ${r.source}:${r.id}: ${r.reason}`);
  }

  #prune(): void {
    const now = Date.now();
    for (const [root, r] of this.#retired) if (r.until <= now) this.#retired.delete(root);
  }

  #notify(): void {
    for (const ref of this.#servers) {
      const mcp = ref.deref();
      if (mcp === undefined) {
        this.#servers.delete(ref);
        continue;
      }
      if (!mcp.isConnected()) continue;
      Promise.resolve()
        .then(() => mcp.server.sendResourceListChanged())
        .catch((error: unknown) =>
          this.#options.log?.(
            `resources/list_changed could not be sent: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    }
  }

  /** The skill a URI belongs to: the current snapshot first, then a retained earlier version. */
  #skillAt(uri: string): { skill: ServedSkill; canonical: string } | undefined {
    const at = rootOf(uri);
    if (at === undefined) return undefined;
    const current = this.#snapshot.byRoot.get(at.root);
    if (current !== undefined) return { skill: current, canonical: at.canonical };
    const retired = this.#retired.get(at.root);
    if (retired === undefined) return undefined;
    if (retired.until <= Date.now()) {
      this.#retired.delete(at.root);
      return undefined;
    }
    return { skill: retired.skill, canonical: at.canonical };
  }

  /** One `skills/list` page of the current snapshot (an invalid cursor throws −32602). */
  #listPage(cursor: string | undefined): { skills: Skill[]; nextCursor?: string } {
    const page = paginate(this.#snapshot.entries, cursor, this.#options.pageSize ?? 100);
    return page.nextCursor === undefined ? { skills: page.items } : { skills: page.items, nextCursor: page.nextCursor };
  }

  #getSkill(uri: string): Skill | undefined {
    const found = this.#skillAt(uri);
    return found !== undefined && found.canonical === found.skill.entry.uri ? found.skill.entry : undefined;
  }

  /**
   * A served file's bytes, verified against the snapshot. A file changed at its source since is refused with a
   * −32603 naming it (never served as the snapshot's); when its skill is current, that skill is rebuilt once.
   */
  async #readBytes(skill: ServedSkill, file: ServedFile): Promise<Uint8Array> {
    try {
      return await this.#files.read(skill, file);
    } catch (error) {
      if (!(error instanceof FileChangedError)) throw error;
      if (this.#snapshot.byRoot.get(skill.root) === skill && !this.#stale.has(skill.root)) {
        this.#stale.add(skill.root);
        this.refresh([skill.id]).catch(() => undefined);
      }
      throw new ProtocolError(ProtocolErrorCode.InternalError, error.message);
    }
  }

  async #readFile(uri: string): Promise<SkillReadResult | undefined> {
    const found = this.#skillAt(uri);
    const file: ServedFile | undefined = found?.skill.files.get(found.canonical);
    if (found === undefined || file === undefined) return undefined;
    const bytes = await this.#readBytes(found.skill, file);
    const text = file.isText ? textOf(bytes) : undefined;
    return text === undefined ? { bytes, mimeType: file.mimeType } : { text, mimeType: file.mimeType };
  }

  #directoryPage(
    uri: string,
    cursor: string | undefined,
  ): { resources: DirectoryResource[]; nextCursor?: string } | undefined {
    const found = this.#skillAt(uri);
    const children = found?.skill.dirs().get(found.canonical.replace(/\/+$/, ""));
    if (children === undefined) return undefined;
    const page = paginate(children, cursor, this.#options.pageSize ?? 100);
    return page.nextCursor === undefined
      ? { resources: page.items }
      : { resources: page.items, nextCursor: page.nextCursor };
  }

  #source(): SkillSource {
    return {
      list: async ({ cursor }) => this.#listPage(cursor),
      get: async (uri): Promise<Skill | undefined> => this.#getSkill(uri),
      read: (uri): Promise<SkillReadResult | undefined> => this.#readFile(uri),
      readDirectory: async (uri, { cursor }) => this.#directoryPage(uri, cursor),
      listResources: async (): Promise<Resource[]> =>
        this.#snapshot.skills.map((s) => ({
          uri: s.entry.uri,
          name: s.name,
          description: s.description,
          mimeType: "text/markdown",
          size: s.files.get(s.entry.uri)?.size ?? 0,
        })),
    };
  }

  #answers: AnswerCache = new AnswerCache(undefined, 0);

  /**
   * The JSON text of the `result` a 2025-era connection gets for a request that depends only on the current
   * snapshot — `skills/list`, `skills/get`, `resources/read`, `resources/directory/read` — serialised once per snapshot
   * and reused; exactly the bytes the SDK's handlers produce (no cache fields on that era). The bytes themselves when
   * at hand; a promise when a file must first be read from its source (decision 0381). Undefined (or a promise of
   * undefined) whenever the SDK must answer: another method, params other than the method's own, a URI not in its
   * canonical form, a URI of a retained earlier version (its lifetime is checked per request), an unknown URI, an
   * invalid cursor or a file changed at its source (errors are the SDK's to word).
   */
  legacyAnswer(
    method: string,
    params: Readonly<Record<string, unknown>> | undefined,
  ): Buffer | Promise<Buffer | undefined> | undefined {
    const own = SNAPSHOT_PARAMS.get(method);
    if (own === undefined) return undefined;
    if (params !== undefined) for (const key in params) if (!own.includes(key)) return undefined;
    const uri = params?.["uri"];
    const cursor = params?.["cursor"];
    if (cursor !== undefined && typeof cursor !== "string") return undefined;
    if (method !== "skills/list" && typeof uri !== "string") return undefined;
    const snapshot = this.#snapshot;
    if (this.#answers.snapshot !== snapshot)
      this.#answers = new AnswerCache(snapshot, this.#options.answerCacheBytes ?? 16 * 1024 * 1024);
    const answers = this.#answers;
    const key = `${method}\n${typeof uri === "string" ? uri : ""}\n${cursor ?? ""}`;
    const cached = answers.get(key);
    if (cached !== undefined) return cached;
    const done = (result: unknown): Buffer | undefined => {
      if (result === undefined) return undefined;
      const bytes = Buffer.from(JSON.stringify(result), "utf8");
      // Into the cache of the snapshot it was built from: after a swap that cache is no longer consulted.
      answers.set(key, bytes);
      return bytes;
    };
    let result: unknown;
    try {
      result = this.#legacyResult(method, uri as string, cursor, snapshot);
    } catch {
      return undefined;
    }
    return result instanceof Promise ? result.then(done, () => undefined) : done(result);
  }

  /** The result object the SDK's handler returns on a 2025-era connection, built from `snapshot` alone. */
  #legacyResult(method: string, uri: string, cursor: string | undefined, snapshot: Snapshot): unknown {
    if (method === "skills/list") return this.#listPage(cursor);
    // Only URIs already in the form the SDK echoes (`new URL(uri).href`), and only skills of this snapshot.
    const at = rootOf(uri);
    if (at === undefined || at.canonical !== uri || !snapshot.byRoot.has(at.root)) return undefined;
    if (method === "skills/get") {
      const skill = this.#getSkill(uri);
      return skill === undefined ? undefined : { skill };
    }
    if (method === "resources/read") {
      const skill = snapshot.byRoot.get(at.root) as ServedSkill;
      const file = skill.files.get(uri);
      if (file === undefined) return undefined;
      return this.#readBytes(skill, file).then((bytes) => {
        const text = file.isText ? textOf(bytes) : undefined;
        return {
          contents: [
            text !== undefined
              ? { uri, mimeType: file.mimeType, text }
              : {
                  uri,
                  mimeType: file.mimeType,
                  blob: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
                },
          ],
        };
      });
    }
    return this.#directoryPage(uri, cursor);
  }

  /** What a fallback tool reads a served file with: the same verified bytes `resources/read` answers from. */
  readonly #toolBytes = (skill: ServedSkill, file: ServedFile): Promise<Uint8Array> => this.#readBytes(skill, file);

  /**
   * A new MCP server instance over these skills: the extension attached, the tool fallback and the catalog resource
   * registered unless `tools: false`. One per connection (stdio, a 2025 HTTP session) or per request (2026-07-28 HTTP).
   */
  createServer(): McpServer {
    const tools = this.#options.tools ?? true;
    const mcp = new McpServer(
      { name: this.#options.name ?? "skillport", version: this.#options.version ?? "0.1.0" },
      { capabilities: { resources: { listChanged: true }, ...(tools && { tools: {} }) } },
    );
    this.#extension.attach(mcp);
    const name = this.#options.name ?? "skillport";
    if (tools) registerFallback(mcp, () => this.#snapshot, this.#toolBytes, this.#registry, name);
    if (tools && this.#options.scripts !== undefined)
      registerScriptTool(mcp, () => this.#snapshot, this.#toolBytes, this.#options.scripts, name);
    this.#servers.add(new WeakRef(mcp));
    if (this.#servers.size > 4096)
      for (const ref of this.#servers) if (ref.deref()?.isConnected() !== true) this.#servers.delete(ref);
    return mcp;
  }

  /** Stops following the registry. Connected clients keep the last snapshot until they disconnect. */
  close(): void {
    this.#unsubscribe?.();
    this.#listeners.clear();
  }
}
