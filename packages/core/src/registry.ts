import { scalarText } from "./fields.js";
import { compareCodeUnits } from "./compare.js";
import type { Diagnostic } from "./diagnostics.js";
import { hasErrors } from "./diagnostics.js";
import { AgentSkillsError, SkillNotFoundError, SkillValidationError } from "./errors.js";
import { isSafeSkillId } from "./safe-path.js";
import type { Frontmatter, SkillProvider } from "./types.js";
import { validateFrontmatter } from "./validate.js";
import { mapLimit } from "./map-limit.js";
import {
  buildSnapshot,
  copySnapshot,
  diffSnapshots,
  emptySnapshot,
  failureKey,
  patchSnapshot,
  type Loaded,
  type RegistrationFailure,
  type RegistryChange,
  type RegistryEntry,
  type Shadowing,
  type Snapshot,
  type SourcePatch,
} from "./registry-snapshot.js";
import { catalogPriority, renderCatalog, type CatalogEntry, type CatalogOptions } from "./catalog/index.js";
import {
  analyseSkill,
  SkillSearchIndex,
  type AnalysedSkill,
  type SearchHit,
  type SearchIndexOptions,
  type SearchOptions,
} from "./search/index.js";

export type { RegistrationFailure, RegistryChange, RegistryEntry, Shadowing } from "./registry-snapshot.js";

export interface RegistrationReport {
  /** Qualified ids registered from this call's provider, sorted. */
  registered: string[];
  failed: RegistrationFailure[];
  /** Every shadowing in the registry after the call. */
  shadowed: Shadowing[];
}

export interface SkillRegistryEvents {
  change: RegistryChange;
  shadow: Shadowing;
  failure: RegistrationFailure;
  /** A refresh triggered by a provider's watch failed as a whole. */
  error: unknown;
}

export interface SkillRegistryOptions {
  /** Most metadata reads in flight at once during a refresh. Default 8. */
  concurrency?: number;
  /** How `search` indexes skills: field weights, how much of each body, and a cache of analysed skills. */
  search?: RegistrySearchOptions;
}

/**
 * Keeps analysed skills between runs (e.g. on disk, keyed by the SKILL.md's stamp), so an unchanged skill's body is
 * not read and tokenised again. The cache decides whether what it holds still matches the entry.
 */
export interface SearchDocumentCache {
  get(entry: RegistryEntry): AnalysedSkill | undefined | Promise<AnalysedSkill | undefined>;
  set(entry: RegistryEntry, analysed: AnalysedSkill): void | Promise<void>;
}

export interface RegistrySearchOptions extends SearchIndexOptions {
  cache?: SearchDocumentCache;
}

export interface AddProviderOptions {
  /** Source name for qualified ids; default `provider.name`. Must be unique in the registry. */
  source?: string;
  /** Subscribe to `provider.watch` and refresh on changes. Default true. */
  watch?: boolean;
}

interface Source {
  readonly provider: SkillProvider;
  readonly name: string;
  /** `all` = every discovered skill; otherwise the explicitly registered ids. */
  readonly ids: "all" | ReadonlySet<string>;
  unwatch?: () => void;
}

type Listener<T> = (event: T) => void;

/**
 * Skills from several providers under one namespace. Earlier sources win on id collisions; every collision is
 * reported and the hidden skill stays reachable by its qualified id. State is a snapshot swapped whole at the end of
 * a refresh, so readers never see a half-refreshed registry; a partial refresh patches it in one synchronous step
 * (copying it first when the search index holds it), so what anyone holds never changes under them.
 */
export class SkillRegistry {
  readonly #concurrency: number;
  #sources: Source[] = [];
  #snapshot: Snapshot = emptySnapshot();
  /** Whether something besides `#snapshot` holds the snapshot (a patch must then copy it first). */
  #shared = false;
  readonly #searchOptions: RegistrySearchOptions;
  #index: { snapshot: Snapshot; index: Promise<SkillSearchIndex> } | undefined;
  /** Analysed skills by qualified id, with the metadata they were analysed from; dropped when a skill may have changed. */
  #analysed = new Map<string, { metadata: string; doc: AnalysedSkill }>();
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  /** Qualified ids providers reported changed since the last refresh started. */
  #reported = new Set<string>();
  readonly #listeners = new Map<keyof SkillRegistryEvents, Set<Listener<never>>>();

  constructor(options: SkillRegistryOptions = {}) {
    const concurrency = options.concurrency ?? 8;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    this.#concurrency = concurrency;
    this.#searchOptions = options.search ?? {};
  }

  /** Subscribe to an event; returns the unsubscribe function. Listeners must not throw (errors are swallowed). */
  on<K extends keyof SkillRegistryEvents>(event: K, listener: Listener<SkillRegistryEvents[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /**
   * Adds every skill `provider` discovers, after all sources added before it (which win on collisions).
   * Skills that fail validation are reported in the result (and as `failure` events), never thrown.
   */
  async addProvider(provider: SkillProvider, options: AddProviderOptions = {}): Promise<RegistrationReport> {
    const source = this.#addSource(provider, options.source, "all");
    if (options.watch ?? true) this.#watch(source);
    await this.refresh();
    return this.#reportFor(source.name);
  }

  /** The seed name for addProvider: register every skill the provider discovers. */
  registerAll(provider: SkillProvider, options: AddProviderOptions = {}): Promise<RegistrationReport> {
    return this.addProvider(provider, options);
  }

  /** Registers one skill; throws SkillValidationError (nothing registered) when it is invalid or already registered. */
  async register(id: string, provider: SkillProvider, options: { source?: string } = {}): Promise<RegistryEntry> {
    await this.registerBatch([{ id, provider, ...options }]);
    return this.get(id);
  }

  /**
   * Registers several skills, all or nothing: each must be unregistered, unique in the batch, have readable metadata
   * and pass the lenient profile (a name that differs from the id is a warning). Any failure throws
   * SkillValidationError listing every problem, and nothing is registered.
   */
  async registerBatch(
    items: ReadonlyArray<{ id: string; provider: SkillProvider; source?: string }>,
  ): Promise<RegistrationReport> {
    const problems: Diagnostic[] = [];
    const seen = new Set<string>();
    for (const { id } of items) {
      if (seen.has(id))
        problems.push(diagnostic("id-duplicate", `skill ${JSON.stringify(id)} appears more than once in the batch`));
      else if (this.#snapshot.byId.has(id))
        problems.push(diagnostic("id-duplicate", `skill ${JSON.stringify(id)} is already registered`));
      seen.add(id);
    }
    const checked = await mapLimit(items, this.#concurrency, async ({ id, provider }) =>
      loadOne(provider, provider.name, id),
    );
    for (const result of checked) if ("failure" in result) problems.push(...result.failure.diagnostics);
    if (problems.length > 0) {
      throw new SkillValidationError(
        `cannot register ${items.length === 1 ? "the skill" : `${items.length} skills`}: ${problems.map((p) => p.message).join("; ")}`,
        problems,
      );
    }
    // Group by provider so one provider's explicit ids form one source (in first-seen order).
    const order: Array<{ provider: SkillProvider; source: string | undefined; ids: string[] }> = [];
    for (const item of items) {
      const group = order.find((g) => g.provider === item.provider && g.source === item.source);
      if (group) group.ids.push(item.id);
      else order.push({ provider: item.provider, source: item.source, ids: [item.id] });
    }
    const names: string[] = [];
    for (const group of order) names.push(this.#addSource(group.provider, group.source, new Set(group.ids)).name);
    await this.refresh();
    const reports = names.map((n) => this.#reportFor(n));
    return {
      registered: reports.flatMap((r) => r.registered).sort(),
      failed: reports.flatMap((r) => r.failed),
      shadowed: [...this.#snapshot.shadowed],
    };
  }

  /**
   * Re-reads every source and swaps in the new snapshot. Calls made while a refresh runs share ONE follow-up refresh
   * (so changes that arrived mid-way are never missed, and a burst of changes costs at most two passes).
   *
   * `only`: re-read just these ids of one source (a skill saved or deleted through its provider, as SkillBox does for
   * skills registered in code); every other skill keeps what the last refresh read. A partial call made while a refresh
   * runs joins the full follow-up.
   */
  refresh(only?: { source: string; ids: readonly string[] }): Promise<void> {
    if (!this.#running) {
      this.#running = this.#doRefresh(only).finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#queued ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.refresh();
      });
    return this.#queued;
  }

  /** Stops watching every provider. The registry keeps serving its last snapshot. */
  close(): void {
    for (const source of this.#sources) {
      source.unwatch?.();
      source.unwatch = undefined;
    }
  }

  has(idOrQualified: string): boolean {
    return this.#lookup(idOrQualified) !== undefined;
  }

  /** By id (the winner) or by qualified id `<source>:<id>`; throws SkillNotFoundError. */
  get(idOrQualified: string): RegistryEntry {
    const entry = this.#lookup(idOrQualified);
    if (!entry) throw new SkillNotFoundError(idOrQualified);
    return entry;
  }

  /** The seed's name for `get` (`registry.get_skill("incident-response")`). */
  getSkill(idOrQualified: string): RegistryEntry {
    return this.get(idOrQualified);
  }

  /** Winning skills sorted by id; with `includeShadowed`, every skill sorted by qualified id. */
  list(options: { includeShadowed?: boolean } = {}): RegistryEntry[] {
    if (options.includeShadowed)
      return [...this.#snapshot.byQualified.values()].sort((a, b) => compareCodeUnits(a.qualifiedId, b.qualifiedId));
    return [...this.#snapshot.byId.values()].sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  get shadowed(): readonly Shadowing[] {
    return this.#snapshot.shadowed;
  }

  get failures(): readonly RegistrationFailure[] {
    return this.#snapshot.failures;
  }

  /** Source names in precedence order (earlier wins). */
  get sources(): string[] {
    return this.#sources.map((s) => s.name);
  }

  /** Catalog entries for the winning skills, in precedence order (first source first, ids sorted within it). */
  async catalogEntries(): Promise<CatalogEntry[]> {
    const rank = new Map(this.#sources.map((s, i) => [s.name, i]));
    const entries = [...this.#snapshot.byId.values()].sort(
      (a, b) => (rank.get(a.source) ?? 0) - (rank.get(b.source) ?? 0) || compareCodeUnits(a.id, b.id),
    );
    return mapLimit(entries, this.#concurrency, async (entry) => {
      const metadata = entry.getMetadata();
      const location = await entry.getLocation().catch(() => undefined);
      return {
        id: entry.id,
        name: scalarText(metadata.name) || entry.id,
        description: scalarText(metadata.description) ?? "",
        ...(location !== undefined && { location }),
        metadata,
        source: entry.source,
        ...(catalogPriority(metadata) !== undefined && { priority: catalogPriority(metadata) }),
      };
    });
  }

  /** Renders the catalog of the winning skills (metadata only; bodies are never read). */
  async catalog(options: CatalogOptions = {}): Promise<string> {
    return renderCatalog(await this.catalogEntries(), options);
  }

  /**
   * Searches the winning skills (see SkillSearchIndex): name, description, when-to-use, triggers/tags, body headings
   * and the start of each body. Bodies are read once per skill and kept until the skill may have changed (a watched
   * provider reported it, or a refresh of an unwatched source). Skills marked `disable-model-invocation: true` are
   * found only with `includeHidden` (a user's search, never a model's). With `minConfidence`, [] means nothing fits.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const snapshot = this.#snapshot;
    if (this.#index?.snapshot !== snapshot) {
      this.#shared = true;
      this.#index = { snapshot, index: this.#buildIndex(snapshot) };
    }
    return (await this.#index.index).search(query, options);
  }

  /** Analysed form of every winner, reading bodies only for skills not analysed before (or not in the cache). */
  async #buildIndex(snapshot: Snapshot): Promise<SkillSearchIndex> {
    const options = this.#searchOptions;
    const index = new SkillSearchIndex([], options);
    const docs = await mapLimit([...snapshot.byId.values()], this.#concurrency, async (entry) => {
      const metadata = entry.getMetadata();
      const key = JSON.stringify(metadata);
      const known = this.#analysed.get(entry.qualifiedId);
      if (known?.metadata === key) return known.doc;
      let doc = await options.cache?.get(entry);
      if (!doc || doc.id !== entry.id) {
        const body = await entry.getBody().catch(() => undefined); // an unreadable body still leaves the metadata searchable
        doc = analyseSkill({ id: entry.id, metadata, body }, options);
        await options.cache?.set(entry, doc);
      }
      this.#analysed.set(entry.qualifiedId, { metadata: key, doc });
      return doc;
    });
    for (const doc of docs) index.addAnalysed(doc);
    return index;
  }

  #lookup(idOrQualified: string): RegistryEntry | undefined {
    const snapshot = this.#snapshot;
    const direct = snapshot.byId.get(idOrQualified);
    if (direct) return direct;
    return snapshot.byQualified.get(idOrQualified);
  }

  #addSource(provider: SkillProvider, requested: string | undefined, ids: Source["ids"]): Source {
    const name = requested ?? provider.name;
    if (typeof name !== "string" || name === "" || /[\s]/.test(name))
      throw new AgentSkillsError(`invalid source name ${JSON.stringify(name)}`);
    const existing = this.#sources.find((s) => s.name === name);
    if (existing) {
      if (existing.provider !== provider)
        throw new AgentSkillsError(
          `source name ${JSON.stringify(name)} is already used by another provider; pass {source} to name this one`,
        );
      if (existing.ids === "all" || ids === "all") {
        const merged: Source = { ...existing, ids: "all" };
        this.#sources = this.#sources.map((s) => (s === existing ? merged : s));
        return merged;
      }
      const merged: Source = { ...existing, ids: new Set([...existing.ids, ...ids]) };
      this.#sources = this.#sources.map((s) => (s === existing ? merged : s));
      return merged;
    }
    const source: Source = { provider, name, ids };
    this.#sources = [...this.#sources, source];
    return source;
  }

  #watch(source: Source): void {
    if (source.unwatch || !source.provider.watch) return;
    source.unwatch = source.provider.watch((ids) => {
      for (const id of ids) {
        source.provider.invalidate?.(id);
        this.#reported.add(`${source.name}:${id}`);
      }
      this.refresh().catch((error: unknown) => this.#emit("error", error));
    });
  }

  async #doRefresh(only?: { source: string; ids: readonly string[] }): Promise<void> {
    const previous = this.#snapshot;
    const sources = this.#sources;
    if (only && sources.every((s) => previous.perSource.has(s.name))) {
      const source = sources.find((s) => s.name === only.source);
      if (source) await this.#patch(source, only.ids);
      return;
    }
    // Taken now: a report arriving while this pass runs belongs to the follow-up pass it triggers.
    const reported = this.#reported;
    this.#reported = new Set();
    const perSource = new Map<string, Loaded>();
    for (const source of sources)
      perSource.set(source.name, await this.#loadSource(source, previous.perSource.get(source.name)));
    const next = buildSnapshot(
      sources.map((s) => s.name),
      perSource,
    );
    this.#forgetAnalysed(sources, reported);
    this.#snapshot = next;
    this.#shared = false;
    const change = diffSnapshots(previous, next, reported);
    const known = new Set(previous.shadowed.map((s) => s.shadowed));
    for (const shadowing of next.shadowed) if (!known.has(shadowing.shadowed)) this.#emit("shadow", shadowing);
    const knownFailures = new Set(previous.failures.map(failureKey));
    for (const failure of next.failures) if (!knownFailures.has(failureKey(failure))) this.#emit("failure", failure);
    if (change.added.length + change.removed.length + change.updated.length > 0) this.#emit("change", change);
  }

  /**
   * Reads `ids` of one source again and patches the snapshot with what it found: O(ids), whatever the registry holds.
   * An id whose metadata read raises SkillNotFoundError (the source contract's answer for an unknown skill) is gone.
   */
  async #patch(source: Source, ids: readonly string[]): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => isSafeSkillId(id) && (source.ids === "all" || source.ids.has(id)));
    const read = await mapLimit(wanted, this.#concurrency, (id) => loadOne(source.provider, source.name, id));
    const results: Array<SourcePatch["results"][number]> = [];
    for (const [i, result] of read.entries()) {
      const id = wanted[i] as string;
      if ("entry" in result) results.push({ id, entry: result.entry });
      else if (result.notFound) results.push({ id });
      else results.push({ id, failure: result.failure });
    }
    // From here to the end nothing awaits: readers see the registry before or after the patch, never half of it.
    if (this.#shared) {
      this.#snapshot = copySnapshot(this.#snapshot);
      this.#shared = false;
    }
    const outcome = patchSnapshot(
      this.#snapshot,
      this.#sources.map((s) => s.name),
      { source: source.name, results },
    );
    for (const id of wanted) this.#analysed.delete(`${source.name}:${id}`);
    for (const shadowing of outcome.shadowings) this.#emit("shadow", shadowing);
    for (const failure of outcome.failures) this.#emit("failure", failure);
    const { change } = outcome;
    if (change.added.length + change.removed.length + change.updated.length > 0) this.#emit("change", change);
  }

  async #loadSource(source: Source, previous: Loaded | undefined): Promise<Loaded> {
    let ids: string[];
    if (source.ids === "all") {
      try {
        ids = await source.provider.discover();
      } catch (error) {
        // An outage must not empty the catalog: keep what this source served before, and say why.
        const failure: RegistrationFailure = {
          source: source.name,
          id: undefined,
          message: `discovery failed: ${messageOf(error)}`,
          diagnostics: [],
        };
        return { entries: new Map(previous?.entries), failures: [failure] };
      }
    } else ids = [...source.ids];
    const results = await mapLimit(ids, this.#concurrency, (id) => loadOne(source.provider, source.name, id));
    const entries = new Map<string, RegistryEntry>();
    const failures: RegistrationFailure[] = [];
    for (const result of results) {
      if ("failure" in result) failures.push(result.failure);
      else entries.set(result.entry.qualifiedId, result.entry);
    }
    return { entries, failures };
  }

  /** Analysed bodies may be stale: for ids a watched provider reported, and for every skill of an unwatched source. */
  #forgetAnalysed(sources: readonly Source[], reported: ReadonlySet<string>): void {
    const unwatched = new Set(sources.filter((s) => !s.unwatch).map((s) => `${s.name}:`));
    for (const qualifiedId of [...this.#analysed.keys()]) {
      const source = qualifiedId.slice(0, qualifiedId.lastIndexOf(":") + 1);
      if (reported.has(qualifiedId) || unwatched.has(source)) this.#analysed.delete(qualifiedId);
    }
  }

  #reportFor(sourceName: string): RegistrationReport {
    const loaded = this.#snapshot.perSource.get(sourceName);
    return {
      registered: [...(loaded?.entries.keys() ?? [])].sort(compareCodeUnits),
      failed: [...(loaded?.failures ?? [])],
      shadowed: [...this.#snapshot.shadowed],
    };
  }

  #emit<K extends keyof SkillRegistryEvents>(event: K, payload: SkillRegistryEvents[K]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        (listener as Listener<SkillRegistryEvents[K]>)(payload);
      } catch {
        // A listener's bug must not break the registry's state machine.
      }
    }
  }
}

/** Reads and validates one skill's metadata; never throws. `notFound`: the provider says it has no such skill. */
async function loadOne(
  provider: SkillProvider,
  source: string,
  id: string,
): Promise<{ entry: RegistryEntry } | { failure: RegistrationFailure; notFound?: boolean }> {
  const fail = (message: string, diagnostics: Diagnostic[] = [diagnostic("registry-load-failed", message)]) => ({
    failure: { source, id, message, diagnostics },
  });
  if (!isSafeSkillId(id)) return fail(`skill id ${JSON.stringify(id)} is not a safe id`);
  let metadata: Frontmatter;
  try {
    metadata = await provider.getMetadata(id);
  } catch (error) {
    return {
      ...fail(`skill ${JSON.stringify(id)}: metadata unreadable: ${messageOf(error)}`),
      notFound: error instanceof SkillNotFoundError,
    };
  }
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
    return fail(`skill ${JSON.stringify(id)}: metadata is not a mapping`);
  const diagnostics = validateFrontmatter(metadata, {
    profile: "lenient",
    dirName: id,
    lint: false,
    file: `${id}/SKILL.md`,
  });
  if (hasErrors(diagnostics)) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    return fail(`skill ${JSON.stringify(id)}: ${errors.map((d) => d.message).join("; ")}`, diagnostics);
  }
  return { entry: makeEntry(provider, source, id, structuredClone(metadata), diagnostics) };
}

function makeEntry(
  provider: SkillProvider,
  source: string,
  id: string,
  metadata: Frontmatter,
  diagnostics: Diagnostic[],
): RegistryEntry {
  return Object.freeze({
    id,
    qualifiedId: `${source}:${id}`,
    source,
    provider,
    diagnostics: Object.freeze([...diagnostics]),
    getMetadata: () => structuredClone(metadata),
    getBody: () => provider.getBody(id),
    getReference: (name: string) => provider.getReference(id, name),
    getScript: (name: string) => provider.getScript(id, name),
    getAsset: (name: string) => provider.getAsset(id, name),
    listResources: () => provider.listResources(id),
    listFiles: () => provider.listFiles(id),
    readFile: (path: string) => provider.readFile(id, path),
    getLocation: async () => (provider.getLocation ? provider.getLocation(id) : undefined),
  });
}

function diagnostic(code: string, message: string): Diagnostic {
  return { code, severity: "error", message, line: 0, column: 0 };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
