import {
  parseSkillMd,
  ResourceNotFoundError,
  SkillNotFoundError,
  SkillRegistry,
  SkillSourceProvider,
  type Frontmatter,
  type SkillFile,
} from "@skillport/core";
import { createMcpRequestHandler, hostOriginGuard, SkillServer, type McpRequestHandler } from "@skillport/mcp";
import { currentVersion, skillKey } from "./catalog.js";
import { watchRegistryChanges, type RegistryWatch } from "./changes.js";
import { RegistryError } from "./errors.js";
import { rootEntries } from "./http/well-known.js";
import { route, type RouteModule } from "./http/route.js";
import { SPEC_NAME } from "./package.js";
import type { RegistryStore } from "./store.js";

/** The line that connects Claude Code to a registry's `/mcp` (with the token header when reads need a token). */
export function mcpAddLine(origin: string, readAccess: "public" | "token"): string {
  const base = `claude mcp add --transport http skillport-registry ${origin}/mcp`;
  return readAccess === "token" ? `${base} --header "Authorization: Bearer $SKILLPORT_REGISTRY_TOKEN"` : base;
}

interface Published {
  namespace: string;
  name: string;
  blob: string;
  frontmatter: Frontmatter;
}

/**
 * What the registry's `/mcp` serves, as a Skillport source: the skills the root well-known index lists (each at its
 * current version — never held, rejected or yanked; names the spec allows, each once), with their files from the
 * version's archive (digest-verified by the blob store). `reload()` re-reads the catalog and tells the watcher which
 * names changed (a different archive, added or gone), so the MCP snapshot rebuilds only those.
 */
class PublishedSkills extends SkillSourceProvider {
  readonly name = "registry";
  readonly #store: RegistryStore;
  #current: Map<string, Published> | undefined;
  /** Files by archive digest, for the archives of the current versions (immutable: a digest names its bytes). */
  #files = new Map<string, Promise<Map<string, Uint8Array>>>();
  readonly #watchers = new Set<(ids: string[]) => void>();

  constructor(store: RegistryStore) {
    super();
    this.#store = store;
  }

  async #published(): Promise<Map<string, Published>> {
    const snap = await this.#store.snapshot();
    const byKey = new Map(snap.skills.map((s) => [skillKey(s.namespace, s.name), s]));
    const out = new Map<string, Published>();
    for (const e of rootEntries(await this.#store.indexEntries(undefined))) {
      const skill = byKey.get(e.skill);
      const v = skill && currentVersion(skill);
      if (!skill || !v || v.blob !== e.blob || !SPEC_NAME.test(e.name)) continue;
      out.set(e.name, {
        namespace: skill.namespace,
        name: skill.name,
        blob: v.blob,
        frontmatter: v.frontmatter as Frontmatter,
      });
    }
    return out;
  }

  /** Re-reads the catalog; reports the names whose served version changed. */
  async reload(): Promise<void> {
    const previous = this.#current;
    const next = await this.#published();
    this.#current = next;
    const blobs = new Set([...next.values()].map((p) => p.blob));
    for (const blob of this.#files.keys()) if (!blobs.has(blob)) this.#files.delete(blob);
    if (previous === undefined) return;
    const changed = new Set<string>();
    for (const [name, p] of next) if (previous.get(name)?.blob !== p.blob) changed.add(name);
    for (const name of previous.keys()) if (!next.has(name)) changed.add(name);
    if (changed.size === 0) return;
    const ids = [...changed].sort();
    for (const watcher of this.#watchers) watcher(ids);
  }

  async #skill(id: string): Promise<Published> {
    this.#current ??= await this.#published();
    const p = this.#current.get(id);
    if (p === undefined) throw new SkillNotFoundError(id);
    return p;
  }

  async #filesOf(id: string): Promise<Map<string, Uint8Array>> {
    const p = await this.#skill(id);
    let files = this.#files.get(p.blob);
    if (files === undefined) {
      files = this.#store.archiveFiles(p.blob, p.name);
      this.#files.set(p.blob, files);
      files.catch(() => this.#files.delete(p.blob));
    }
    return files;
  }

  async discover(): Promise<string[]> {
    this.#current ??= await this.#published();
    return [...this.#current.keys()].sort();
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    return structuredClone((await this.#skill(id)).frontmatter);
  }

  async getBody(id: string): Promise<string> {
    const md = (await this.#filesOf(id)).get("SKILL.md");
    if (md === undefined) throw new ResourceNotFoundError(id, "SKILL.md");
    return parseSkillMd(md).body;
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    const files = await this.#filesOf(id);
    return [...files]
      .map(([path, bytes]) => ({ path, size: bytes.byteLength }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readFile(id: string, path: string): Promise<Uint8Array> {
    const bytes = (await this.#filesOf(id)).get(path);
    if (bytes === undefined) throw new ResourceNotFoundError(id, path);
    return bytes;
  }

  watch(onChange: (ids: string[]) => void): () => void {
    this.#watchers.add(onChange);
    return () => this.#watchers.delete(onChange);
  }
}

export interface RegistryMcpOptions {
  /** The server's name in `initialize`. Default `skillport-registry`. */
  name?: string;
  /** How often the change counter is read where no NOTIFY arrives (SQLite; PostgreSQL while not listening). Default 2,000 ms. */
  pollIntervalMs?: number;
  /** Host header values allowed besides the bound address and the public URL's host. */
  allowedHosts?: readonly string[];
  /** Browser origins allowed besides the server's own and the public URL's. */
  allowedOrigins?: readonly string[];
  /** The URL clients reach the registry by: its host and origin are allowed. */
  publicUrl?: string;
  /** Where skills that are not served are named, with the reason. Default: nowhere. */
  log?: (message: string) => void;
}

/**
 * The registry's MCP endpoint: `@skillport/mcp`'s SkillServer (the Skills extension, SEP-2640, and the tool fallback)
 * over the published skills, and its Streamable HTTP handling, mounted at `/mcp` as a route module — behind the
 * registry's own token check (`readAccess`), rate limits and body limit, and the MCP server's Host/Origin rules. A
 * publish, yank, undelete or decision — in this process, or in another instance on the same PostgreSQL (NOTIFY) —
 * swaps the snapshot and sends `notifications/resources/list_changed`.
 */
export class RegistryMcp {
  readonly server: SkillServer;
  readonly module: RouteModule;
  readonly #registry: SkillRegistry;
  readonly #source: PublishedSkills;
  readonly #handler: McpRequestHandler;
  readonly #watch: RegistryWatch;
  readonly #options: RegistryMcpOptions;
  #guard: ((host: string, origin: string | undefined) => string | undefined) | undefined;
  /** Changes happened that the snapshot does not show yet (no session was open to be told). */
  #stale = false;
  #catchingUp: Promise<void> | undefined;

  private constructor(
    source: PublishedSkills,
    registry: SkillRegistry,
    server: SkillServer,
    watch: RegistryWatch,
    options: RegistryMcpOptions,
  ) {
    this.#source = source;
    this.#registry = registry;
    this.server = server;
    this.#watch = watch;
    this.#options = options;
    this.#handler = createMcpRequestHandler(server);
    const handler = this.#handler;
    const serve = route({
      method: "post",
      path: "/mcp",
      summary: "MCP (Streamable HTTP): the published skills through the Skills extension",
      tag: "mcp",
      scope: "read",
      document: false,
      maxBodyBytes: () => 1024 * 1024,
      responses: { 200: { description: "a JSON-RPC answer or an event stream" } },
      handler: async ({ c, actor, readAccess }) => {
        const refused = this.#guard?.(c.req.header("host") ?? "", c.req.header("origin"));
        if (refused !== undefined)
          return c.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: refused } }, 403);
        // The same rule as every read of the registry: with `readAccess: "token"`, a token must come along.
        if (readAccess === "token" && !actor)
          throw new RegistryError(
            "REGISTRY_UNAUTHORIZED",
            "this registry needs a token to read (Authorization: Bearer <token>)",
          );
        if (this.#stale) {
          this.#stale = false;
          this.#catchingUp = this.sync().finally(() => (this.#catchingUp = undefined));
        }
        // Requests arriving while the snapshot catches up wait for it too.
        await this.#catchingUp;
        return handler.fetch(c.req.raw);
      },
    });
    this.module = {
      name: "mcp",
      routes: (["post", "get", "delete"] as const).map((method) => ({ ...serve, method })),
    };
  }

  /** Builds the first snapshot of the published skills and starts following changes. */
  static async open(store: RegistryStore, options: RegistryMcpOptions = {}): Promise<RegistryMcp> {
    const source = new PublishedSkills(store);
    // Watching from the start; changes the registry reports while the first snapshot is built are applied after it.
    // Until the endpoint exists, every change is applied; after, `onChange` decides (see #changed).
    let onChange: () => Promise<void> = () => source.reload();
    const watch = await watchRegistryChanges(store, () => onChange(), {
      ...(options.pollIntervalMs !== undefined && { pollIntervalMs: options.pollIntervalMs }),
    });
    const registry = new SkillRegistry();
    let server: SkillServer;
    const early = new Set<string>();
    const off = registry.on("change", (c) => [...c.added, ...c.removed, ...c.updated].forEach((id) => early.add(id)));
    try {
      await registry.addProvider(source);
      early.clear();
      server = await SkillServer.create(registry, {
        name: options.name ?? "skillport-registry",
        ...(options.log !== undefined && { log: options.log }),
      });
      off();
      if (early.size > 0) await server.refresh([...early]);
    } catch (error) {
      off();
      await watch.stop();
      registry.close();
      throw error;
    }
    const mcp = new RegistryMcp(source, registry, server, watch, options);
    onChange = () => mcp.#changed();
    return mcp;
  }

  /**
   * A change is applied at once while a 2025-era session is open (its client may hold a stream waiting for
   * `list_changed`); otherwise the snapshot is only marked stale and brought up to date by the next MCP request.
   * Rebuilding on every publish re-reads the whole catalog — ~0.5 s of CPU at 10,000 skills — which a registry
   * nobody reads over MCP should not pay on each publish.
   */
  async #changed(): Promise<void> {
    if (this.#handler.openSessions() > 0) {
      this.#stale = false;
      await this.#source.reload();
    } else this.#stale = true;
  }

  /** Brings the snapshot up to the database now (what a change notice does), and waits for the swap. */
  async sync(): Promise<void> {
    await this.#source.reload();
    await this.#registry.refresh();
    await this.server.refresh();
  }

  /** Whether other instances' changes arrive by NOTIFY (PostgreSQL) rather than by polling. */
  get notified(): boolean {
    return this.#watch.notified;
  }

  /**
   * Turns on the Host/Origin check of `@skillport/mcp` for the address the server listens on (`serveRegistry` calls
   * it): the bound address's names (any loopback name when it is loopback), the public URL's host and origin, and the
   * allowed ones. Until then (`app.request` in process) nothing is checked.
   */
  listening(bound: { host: string; port: number }): void {
    const allowedHosts = [...(this.#options.allowedHosts ?? [])];
    const allowedOrigins = [...(this.#options.allowedOrigins ?? [])];
    if (this.#options.publicUrl !== undefined) {
      const url = new URL(this.#options.publicUrl);
      allowedHosts.push(url.host);
      allowedOrigins.push(url.origin);
    }
    this.#guard = hostOriginGuard({ ...bound, allowedHosts, allowedOrigins });
  }

  async close(): Promise<void> {
    await this.#watch.stop();
    await this.#handler.close();
    this.server.close();
    this.#registry.close();
  }
}
