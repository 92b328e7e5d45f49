import {
  InMemorySkillRepository,
  skillFields,
  SkillRegistry,
  SkillValidationError,
  toSkillProvider,
  type Frontmatter,
  type RegistryChange,
  type RegistryEntry,
  type Skill,
  type SkillSource,
} from "@skillport/core";
import { isHiddenFromModel } from "@skillport/core/internal";
import { AgentError } from "./errors.js";
import type { BoxSkill, RegisterResult, SkillVersion } from "./box-skill.js";
import { folderLinkTarget } from "./secret-paths.js";
import { skillIdOf } from "./skill-id.js";
import { messageOf } from "./tool.js";

export interface SkillStoreOptions {
  sources?: readonly SkillSource[] | undefined;
  registry?: SkillRegistry | undefined;
  watch?: boolean | undefined;
}

interface Row {
  readonly skill: BoxSkill;
  readonly entry: RegistryEntry;
}

/**
 * The skills a box serves: ONE registry (the box's own, or the one it was given) holds them all. Skills registered in
 * code live in an in-memory source of that registry, one per skill source name (`custom` by default), so listing,
 * reading and search are the registry's. What the store adds: box ids (`<name>_<source>`), the version log of code
 * skills, skills hidden from this box, and a generation per skill that bumps whenever its content may have changed.
 */
export class SkillStore {
  readonly registry: SkillRegistry;
  /** Resolves when the given sources are loaded; rejects when one cannot be read. */
  readonly ready: Promise<void>;
  readonly #own: boolean;
  readonly #memory = new Map<string, InMemorySkillRepository>();
  /** Versions of code skills by box id, in first-registration order (the order they are listed in). */
  readonly #versions = new Map<string, SkillVersion[]>();
  readonly #removed = new Set<string>();
  readonly #generation = new Map<string, number>();
  readonly #metadata = new WeakMap<RegistryEntry, Frontmatter>();
  /** Registry id → the box ids it was listed under (kept as lists are built), to bump them when it changes. */
  readonly #boxIdsOf = new Map<string, Set<string>>();
  readonly #changed: () => void;
  #rows: Row[] | undefined;
  #byId: Map<string, Row> | undefined;
  #unsubscribe: (() => void) | undefined;

  /** `changed` is called whenever the list may differ (caches built on it are stale). */
  constructor(options: SkillStoreOptions, changed: () => void) {
    if (options.sources && options.registry)
      throw new AgentError("AGENT_CONFIG", "give SkillBox either sources or a registry, not both");
    this.#own = options.registry === undefined;
    const registry = (this.registry = options.registry ?? new SkillRegistry());
    this.#changed = changed;
    this.#unsubscribe = registry.on("change", (change) => this.#onRegistryChange(change));
    const sources = options.sources ?? [];
    this.ready = (async () => {
      for (const source of sources)
        await registry.addProvider(toSkillProvider(source), { watch: options.watch ?? false });
    })();
    this.ready.catch(() => undefined); // surfaced by ready()
  }

  /** Every skill served, hidden ones included: code skills first (in registration order), then the registry's. */
  list(): BoxSkill[] {
    return this.#table().map((row) => row.skill);
  }

  visible(): BoxSkill[] {
    return this.list().filter((s) => !s.hidden);
  }

  get(id: string): BoxSkill | undefined {
    return this.#index().get(id)?.skill;
  }

  has(id: string): boolean {
    return this.#index().has(id);
  }

  /** Bumped whenever the skill may have changed: an activation stamped with an older one is void. */
  generation(id: string): number {
    return this.#generation.get(id) ?? 0;
  }

  versions(id: string): readonly SkillVersion[] {
    return [...(this.#versions.get(id) ?? [])];
  }

  /**
   * Same digest as the current version: nothing happens. A new digest: the skill is saved into its source's memory
   * repository (replacing the old content) and a version is added to the log. Skill names are one namespace in the
   * registry: a name another source already serves is refused, never silently shadowed either way.
   */
  async register(skill: Skill): Promise<RegisterResult> {
    const name = skill.name;
    if (name.trim() === "") throw new AgentError("AGENT_CONFIG", "a skill needs a name to be registered");
    const source = skill.source;
    const id = skillIdOf(name, source);
    const digest = await skill.digest();
    const latest = this.#versions.get(id)?.at(-1);
    if (latest?.digest === digest) return { skillId: id, status: "unchanged", version: latest.version };
    await this.ready.catch(() => undefined); // given sources come first in the registry
    const owner = this.registry.has(name) ? this.registry.get(name) : undefined;
    if (owner && owner.source !== source) {
      throw new AgentError(
        "AGENT_CONFIG",
        `cannot register ${id}: the name ${JSON.stringify(name)} is already served by source ${JSON.stringify(owner.source)} (skill id ${this.#boxId(owner)}); skill names are one namespace in a box`,
      );
    }
    const repo = await this.#memoryFor(source);
    try {
      await repo.save([skill], { force: true });
    } catch (error) {
      const problems =
        error instanceof SkillValidationError ? error.diagnostics.map((d) => d.message).join("; ") : messageOf(error);
      throw new AgentError("AGENT_CONFIG", `cannot register ${id}: ${problems}`, { cause: error });
    }
    // Only this skill is read again: registering n skills costs n reads, not n refreshes of everything.
    const only = { source, ids: [name] };
    await this.registry.refresh(only);
    if (!this.registry.has(`${source}:${name}`)) {
      const failure = this.registry.failures.find((f) => f.source === source && f.id === name);
      await repo.delete(name);
      await this.registry.refresh(only);
      throw new AgentError(
        "AGENT_CONFIG",
        `cannot register ${id}: ${failure?.message ?? "the registry did not take it"}`,
      );
    }
    const versions = this.#versions.get(id) ?? [];
    const previous = versions.at(-1);
    const version = (previous?.version ?? 0) + 1;
    this.#versions.set(id, [...versions, { version, digest, skill }]);
    this.#boxIdsOf.set(name, new Set([...(this.#boxIdsOf.get(name) ?? []), id]));
    this.#removed.delete(id);
    this.#bump(id);
    return { skillId: id, status: previous ? "updated" : "added", version };
  }

  /** Removes a skill: a code skill from its memory source (every version); a registry skill is hidden from this box. */
  remove(id: string): boolean {
    const row = this.#index().get(id);
    if (!row) return false;
    this.#removed.add(id); // at once; the memory source is emptied and the registry refreshed in the background
    if (this.#versions.delete(id)) {
      const repo = this.#memory.get(row.entry.source);
      if (repo) {
        void repo
          .delete(row.entry.id)
          .then(() => this.registry.refresh({ source: row.entry.source, ids: [row.entry.id] }))
          .catch(() => undefined);
      }
    }
    this.#bump(id);
    return true;
  }

  /** Drops every version of code skills but the current one; returns how many were dropped. */
  clearOldVersions(): number {
    let dropped = 0;
    for (const [id, versions] of this.#versions) {
      if (versions.length <= 1) continue;
      dropped += versions.length - 1;
      this.#versions.set(id, versions.slice(-1));
    }
    return dropped;
  }

  /** The registry's search (BM25F, calibrated confidence), as box skills; hidden and removed skills never. */
  async search(
    query: string,
    limit: number,
    minConfidence: number,
  ): Promise<Array<{ skill: BoxSkill; confidence: number }>> {
    const hits: Array<{ skill: BoxSkill; confidence: number }> = [];
    for (const hit of await this.registry.search(query, { limit: limit * 2, minConfidence })) {
      const entry = this.registry.has(hit.id) ? this.registry.get(hit.id) : undefined;
      const skill = entry ? this.get(this.#boxId(entry)) : undefined;
      if (skill && !skill.hidden) hits.push({ skill, confidence: hit.confidence });
    }
    return hits.sort((a, b) => b.confidence - a.confidence || (a.skill.id < b.skill.id ? -1 : 1)).slice(0, limit);
  }

  /** Stops listening to the registry; a registry the box made itself stops watching its sources. */
  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#own) this.registry.close();
  }

  async #memoryFor(source: string): Promise<InMemorySkillRepository> {
    const known = this.#memory.get(source);
    if (known) return known;
    const repo = new InMemorySkillRepository({ name: source });
    this.#memory.set(source, repo);
    try {
      await this.registry.addProvider(repo, { watch: false });
    } catch (error) {
      this.#memory.delete(source);
      throw new AgentError(
        "AGENT_CONFIG",
        `cannot register skills of source ${JSON.stringify(source)}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    return repo;
  }

  #bump(id: string): void {
    this.#generation.set(id, this.generation(id) + 1);
    this.#drop();
  }

  #drop(): void {
    this.#rows = undefined;
    this.#byId = undefined;
    this.#changed();
  }

  /** Bumps the skills a registry change touched (as they were and as they are), without rebuilding the list. */
  #onRegistryChange(change: RegistryChange): void {
    for (const id of [...change.updated, ...change.removed]) {
      for (const boxId of this.#boxIdsOf.get(id) ?? []) this.#bump(boxId);
      if (this.registry.has(id)) this.#bump(this.#boxId(this.registry.get(id)));
    }
    this.#drop();
  }

  #table(): Row[] {
    if (this.#rows) return this.#rows;
    const code = new Map<string, Row>();
    const rows: Row[] = [];
    const seen = new Set<string>();
    const memory = new Set<unknown>(this.#memory.values());
    for (const entry of this.registry.list()) {
      const frontmatter = this.#metadataOf(entry);
      const id = this.#boxId(entry, frontmatter);
      if (seen.has(id) || this.#removed.has(id)) continue;
      seen.add(id);
      let boxIds = this.#boxIdsOf.get(entry.id);
      if (!boxIds) this.#boxIdsOf.set(entry.id, (boxIds = new Set()));
      boxIds.add(id);
      const current = memory.has(entry.provider) ? this.#versions.get(id)?.at(-1) : undefined;
      const row = { entry, skill: boxSkill(id, entry, frontmatter, current) };
      if (current) code.set(id, row);
      else rows.push(row);
    }
    const ordered = [...this.#versions.keys()].flatMap((id) => code.get(id) ?? []);
    this.#rows = [...ordered, ...rows];
    return this.#rows;
  }

  #index(): Map<string, Row> {
    this.#byId ??= new Map(this.#table().map((row) => [row.skill.id, row]));
    return this.#byId;
  }

  #metadataOf(entry: RegistryEntry): Frontmatter {
    let metadata = this.#metadata.get(entry);
    if (!metadata) this.#metadata.set(entry, (metadata = entry.getMetadata()));
    return metadata;
  }

  #boxId(entry: RegistryEntry, frontmatter = this.#metadataOf(entry)): string {
    return skillIdOf(skillFields(frontmatter).name || entry.id, entry.source);
  }
}

/** A registry entry as the box holds it; a code skill (`version` given) carries its version and digest. */
function boxSkill(
  id: string,
  entry: RegistryEntry,
  frontmatter: Frontmatter,
  version: SkillVersion | undefined,
): BoxSkill {
  const fields = skillFields(frontmatter);
  return Object.freeze({
    id,
    name: fields.name || entry.id,
    description: fields.description ?? "",
    source: entry.source,
    frontmatter,
    origin: version ? ("registered" as const) : ("registry" as const),
    version: version?.version ?? 1,
    digest: version?.digest,
    hidden: isHiddenFromModel(frontmatter),
    registryId: version ? undefined : entry.id,
    reader: {
      body: () => entry.getBody(),
      listFiles: async () => (await entry.listFiles()).map((f) => f.path),
      readFile: (path: string) => entry.readFile(path),
      linkTarget: async (path: string) => folderLinkTarget(await entry.getLocation().catch(() => undefined), path),
    },
  });
}
