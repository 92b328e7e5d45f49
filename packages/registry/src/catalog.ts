import { sql, type Kysely } from "kysely";
import { SkillSearchIndex, type AnalysedSkill, type Frontmatter } from "@skillport/core";
import { analyseSkill } from "@skillport/core/internal";
import type { Finding, Verdict } from "@skillport/audit";
import { compareVersions, parseSemVer } from "./semver.js";
import type { HoldState, SkillSummary } from "./types.js";

/** One version as listings need it (no file list, no SKILL.md beyond its head). */
export interface CatalogVersion {
  version: string;
  description: string;
  verdict: Verdict;
  findings: Finding[];
  hold: HoldState;
  yanked: boolean;
  createdAt: string;
  frontmatter: Record<string, unknown>;
  bodyHead: string;
  blob: string;
  /** Hex sha256 of the flat archive (null: published before it was recorded). */
  flatDigest: string | null;
}

export interface CatalogSkill {
  id: string;
  namespace: string;
  name: string;
  owner: string;
  updatedAt: string;
  /** Newest first. */
  versions: CatalogVersion[];
  tags: Map<string, string>;
}

/** One entry of a well-known index, before it is rendered. */
export interface IndexEntrySource {
  name: string;
  skill: string;
  description: string;
  version: string;
  blob: string;
  /** Hex sha256 of the flat archive; null for a version published before it was recorded. */
  flat: string | null;
}

/** A version anyone may list or fetch: not yanked, not held, not rejected. */
export function isVisible(v: CatalogVersion): boolean {
  return !v.yanked && v.hold === null;
}

export function skillKey(namespace: string, name: string): string {
  return namespace === "" ? name : `@${namespace}/${name}`;
}

/** `latest` when it points at a visible version, else the highest visible release, else the highest visible version. */
export function currentVersion(skill: CatalogSkill): CatalogVersion | undefined {
  const tagged = skill.tags.get("latest");
  const visible = skill.versions.filter(isVisible);
  const byTag = tagged === undefined ? undefined : visible.find((v) => v.version === tagged);
  return byTag ?? visible.find((v) => (parseSemVer(v.version)?.prerelease.length ?? 1) === 0) ?? visible[0];
}

export function summaryOf(skill: CatalogSkill, v: CatalogVersion): SkillSummary {
  return {
    skill: skillKey(skill.namespace, skill.name),
    namespace: skill.namespace === "" ? null : skill.namespace,
    name: skill.name,
    description: v.description,
    version: v.version,
    tags: Object.fromEntries([...skill.tags].sort(([a], [b]) => (a < b ? -1 : 1))),
    updatedAt: skill.updatedAt,
    audit: { verdict: v.verdict, findings: v.verdict === "pass" ? [] : v.findings },
  };
}

/** Rendered documents (well-known indexes, up to megabytes each) kept per snapshot. */
const MAX_DOCUMENTS = 32;
/** Listing and search answers (a page of summaries each) kept per snapshot. */
const MAX_ANSWERS = 256;
/** The skills a listing filter lets through (a set of keys each) kept per snapshot. */
const MAX_FILTERS = 32;

/** A map that keeps the most recently used `max` values. */
class Recent<T> {
  readonly #max: number;
  readonly #values = new Map<string, T>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string, make: () => T): T {
    const hit = this.#values.get(key);
    if (hit !== undefined || this.#values.has(key)) {
      this.#values.delete(key);
      this.#values.set(key, hit as T);
      return hit as T;
    }
    const value = make();
    if (this.#values.size >= this.#max) this.#values.delete(this.#values.keys().next().value as string);
    this.#values.set(key, value);
    return value;
  }
}

/**
 * Every skill with its versions' listing columns, read in one go and kept until the registry's change counter moves
 * (a counter in the database, so every server process sees the same moment). What is derived from it — the search
 * index over the current versions, each skill's listing summary, rendered documents such as the well-known index — is
 * built on first use and lives exactly as long as the snapshot, so it is invalidated by the same counter (decision 0410).
 */
export class CatalogSnapshot {
  readonly changes: number;
  readonly skills: CatalogSkill[];
  readonly #byKey: Map<string, CatalogSkill>;
  readonly #summaries = new Map<CatalogSkill, SkillSummary | null>();
  readonly #documents = new Recent<unknown>(MAX_DOCUMENTS);
  readonly #answers = new Recent<unknown>(MAX_ANSWERS);
  readonly #filters = new Recent<ReadonlySet<string>>(MAX_FILTERS);
  #index: SkillSearchIndex | undefined;
  /** Analysed search documents by skill key and blob digest: the previous snapshot's, then this one's once built. */
  #analysed: ReadonlyMap<string, AnalysedSkill>;

  constructor(changes: number, skills: CatalogSkill[], analysed: ReadonlyMap<string, AnalysedSkill> = new Map()) {
    this.changes = changes;
    this.skills = skills;
    this.#analysed = analysed;
    this.#byKey = new Map(skills.map((s) => [skillKey(s.namespace, s.name), s]));
  }

  /** The skill `@namespace/name` (or `name` with namespace ""), whatever its versions' state. */
  find(namespace: string, name: string): CatalogSkill | undefined {
    return this.#byKey.get(skillKey(namespace, name));
  }

  /** The skill by its key (`@namespace/name` or `name`), as search hits name it. */
  byKey(key: string): CatalogSkill | undefined {
    return this.#byKey.get(key);
  }

  /**
   * The skill at its current version as listings show it (undefined: nothing visible), computed once and shared by
   * every answer of this snapshot, so frozen.
   */
  currentSummary(skill: CatalogSkill): Readonly<SkillSummary> | undefined {
    let summary = this.#summaries.get(skill);
    if (summary === undefined) {
      const v = currentVersion(skill);
      summary = v ? summaryOf(skill, v) : null;
      if (summary) {
        Object.freeze(summary.tags);
        Object.freeze(summary.audit);
        Object.freeze(summary);
      }
      this.#summaries.set(skill, summary);
    }
    return summary ?? undefined;
  }

  /**
   * A document computed from this snapshot alone, once per `key` (e.g. a rendered index for one origin). Keys can come
   * from requests (an origin), so only the 32 most recently used are kept; a dropped one is computed again.
   */
  derived<T>(key: string, make: () => T): T {
    return this.#documents.get(key, make) as T;
  }

  /**
   * The keys of the skills a listing filter (namespace, tag, verdict: named by `key`) lets through, once per filter:
   * search is handed the same set each time, and core keeps which of its skills the set holds, so a filtered search
   * tests a byte per match. Filters come from requests, so only the 32 most recently used are kept.
   */
  accepted(key: string, passes: (skill: CatalogSkill) => boolean): ReadonlySet<string> {
    return this.#filters.get(key, () => {
      const keys = new Set<string>();
      for (const skill of this.skills) {
        if (!passes(skill)) continue;
        keys.add(skillKey(skill.namespace, skill.name));
      }
      return keys;
    });
  }

  /** A listing or search answer, once per `key` (the query); the 256 most recently used are kept. */
  answer<T>(key: string, make: () => T): T {
    return this.#answers.get(key, make) as T;
  }

  /**
   * Reads the catalog as of `changes`. `previous` lends its analysed search documents: a version's document depends
   * only on its skill key and its archive (blob digest), neither of which changes, so only new versions are analysed
   * again when the index is built (decision 0410).
   */
  static async load(db: Kysely<unknown>, changes: number, previous?: CatalogSnapshot): Promise<CatalogSnapshot> {
    const { rows } =
      await sql<VersionRow>`select s.id, s.namespace, s.name, s.owner, s.updated_at, v.version, v.description, v.verdict, v.findings, v.hold, v.yanked, v.created_at, v.frontmatter, v.body_head, v.blob, v.flat_digest from registry_skills s join registry_versions v on v.skill_id = s.id`.execute(
        db,
      );
    const tags = await sql<{
      skill_id: string;
      tag: string;
      version: string;
    }>`select skill_id, tag, version from registry_tags`.execute(db);
    const byId = new Map<string, CatalogSkill>();
    for (const r of rows) {
      let skill = byId.get(r.id);
      if (!skill)
        byId.set(
          r.id,
          (skill = {
            id: r.id,
            namespace: r.namespace,
            name: r.name,
            owner: r.owner,
            updatedAt: r.updated_at,
            versions: [],
            tags: new Map(),
          }),
        );
      skill.versions.push({
        version: r.version,
        description: r.description,
        verdict: r.verdict as Verdict,
        findings: JSON.parse(r.findings) as Finding[],
        hold: (r.hold ?? null) as HoldState,
        yanked: Number(r.yanked) === 1,
        createdAt: r.created_at,
        frontmatter: JSON.parse(r.frontmatter) as Record<string, unknown>,
        bodyHead: r.body_head,
        blob: r.blob,
        flatDigest: r.flat_digest ?? null,
      });
    }
    for (const t of tags.rows) byId.get(t.skill_id)?.tags.set(t.tag, t.version);
    const skills = [...byId.values()];
    for (const s of skills) s.versions.sort((a, b) => compareVersions(b.version, a.version));
    skills.sort((a, b) => (skillKey(a.namespace, a.name) < skillKey(b.namespace, b.name) ? -1 : 1));
    return new CatalogSnapshot(changes, skills, previous === undefined ? undefined : previous.#analysed);
  }

  /** What the well-known index lists: each skill's current version, visible ones only (one namespace, or all). */
  indexEntries(namespace: string | undefined): IndexEntrySource[] {
    const out: IndexEntrySource[] = [];
    for (const skill of this.skills) {
      if (namespace !== undefined && skill.namespace !== namespace) continue;
      const v = currentVersion(skill);
      if (v)
        out.push({
          name: skill.name,
          skill: skillKey(skill.namespace, skill.name),
          description: v.description,
          version: v.version,
          blob: v.blob,
          flat: v.flatDigest,
        });
    }
    return out;
  }

  /**
   * Core's ranking (BM25F with calibrated confidence) over each skill's current version: the hits `offset` … `offset +
   * limit − 1` among the skills `among` holds (all when not given), and how many of those match (counted, not ranked).
   */
  search(
    query: string,
    page: { offset: number; limit: number; among?: ReadonlySet<string> },
  ): { total: number; hits: Array<{ key: string; confidence: number }> } {
    const { total, hits } = this.#searchIndex().searchPage(query, { ...page, includeHidden: true });
    return { total, hits: hits.map((h) => ({ key: h.id, confidence: h.confidence })) };
  }

  #searchIndex(): SkillSearchIndex {
    if (!this.#index) {
      const index = new SkillSearchIndex([], { mode: "postings" });
      const analysed = new Map<string, AnalysedSkill>();
      for (const skill of this.skills) {
        const v = currentVersion(skill);
        if (!v) continue;
        const id = skillKey(skill.namespace, skill.name);
        const key = `${id}\n${v.blob}`;
        const doc =
          this.#analysed.get(key) ??
          analyseSkill(
            {
              id,
              name: skill.name,
              description: v.description,
              metadata: v.frontmatter as Frontmatter,
              body: v.bodyHead,
            },
            {},
          );
        analysed.set(key, doc);
        index.addAnalysed(doc);
      }
      // Only what this snapshot uses is handed on, so the documents kept never outgrow the catalog.
      this.#analysed = analysed;
      this.#index = index;
    }
    return this.#index;
  }
}

interface VersionRow {
  id: string;
  namespace: string;
  name: string;
  owner: string;
  updated_at: string;
  version: string;
  description: string;
  verdict: string;
  findings: string;
  hold: string | null;
  yanked: number | string;
  created_at: string;
  frontmatter: string;
  body_head: string;
  blob: string;
  flat_digest: string | null;
}
