import type { Skill } from "./skill.js";
import type { Frontmatter } from "./skill-data.js";

// The plain values live in skill-data.ts, which the Skill model imports without reaching back here (no cycle).
export { RESOURCE_KINDS, type Frontmatter, type FrontmatterValue, type ResourceKind } from "./skill-data.js";

/** Regular files directly inside each resource folder, sorted; every key present. */
export interface ResourceListing {
  references: string[];
  scripts: string[];
  assets: string[];
}

/** One file of a skill: a POSIX path relative to the skill directory. */
export interface SkillFile {
  path: string;
  size: number;
  /** `sha256:<hex>` when the provider knows it without extra reads. */
  digest?: string;
}

/**
 * The narrow contract every skill source implements (filesystem, memory, deployed workspace, SQL, git, HTTP, npm…),
 * with progressive disclosure: `discover` and `getMetadata` never read bodies, `getBody` never reads resources,
 * files are read one at a time. `SkillSourceProvider` / `toSkillProvider` derive the seed's kind helpers from it.
 * An unsupported capability RAISES its *NotSupportedError; it never answers with an empty result.
 */
export interface SkillSource {
  /** Stable, human-readable, e.g. `fs:skills` or `memory`; used in qualified ids and messages. */
  readonly name: string;
  /** Sorted skill ids. Does not validate. */
  discover(): Promise<string[]>;
  /** Frontmatter only, as a fresh object on every call. */
  getMetadata(id: string): Promise<Frontmatter>;
  /** The Markdown after the frontmatter. */
  getBody(id: string): Promise<string>;
  /** Every file of the skill (SKILL.md included), recursively, sorted by path. */
  listFiles(id: string): Promise<SkillFile[]>;
  /** Original bytes of one file, confined to the skill. */
  readFile(id: string, path: string): Promise<Uint8Array>;
  /** Where the skill's SKILL.md lives, if it has a location a model could be shown (e.g. an absolute path). */
  getLocation?(id: string): Promise<string | undefined>;
  /** Drop cached content for one skill, or all. Unknown ids are ignored. */
  invalidate?(id?: string): void;
  /** Subscribe to changes; returns an unsubscribe function. */
  watch?(onChange: (ids: string[]) => void): () => void;
}

/** A source plus the seed's per-kind helpers (agentskills-core's provider), derived once in `SkillSourceProvider`. */
export interface SkillProvider extends SkillSource {
  getReference(id: string, name: string): Promise<Uint8Array>;
  getScript(id: string, name: string): Promise<Uint8Array>;
  getAsset(id: string, name: string): Promise<Uint8Array>;
  /** Files directly inside references/, scripts/ and assets/ (dotfiles skipped), sorted; every key present. */
  listResources(id: string): Promise<ResourceListing>;
  /** AgentScope's whole-skill read: frontmatter, body and every other file as bytes; throws when any part fails. */
  getSkill(id: string): Promise<Skill>;
  /** Every skill that reads whole, sorted by id; one that cannot be read is left out (a SkillRegistry reports why). */
  getAllSkills(): Promise<Skill[]>;
}

export interface SaveOptions {
  /**
   * Replace skills that already exist. Without it a save that meets any existing skill throws
   * SkillExistsError and writes nothing (docs/decisions/0002-repository-save-policy.md).
   */
  force?: boolean;
}

export interface SaveResult {
  /** Ids written, in input order. */
  saved: string[];
  /** Ids that existed before and were replaced (only with `force`). */
  replaced: string[];
}

/** A provider that can also be written to (AgentScope's repository: `save`, `delete`, `skillExists`). */
export interface SkillRepository extends SkillProvider {
  save(skills: readonly Skill[], options?: SaveOptions): Promise<SaveResult>;
  /** True when something was deleted. */
  delete(id: string): Promise<boolean>;
  /** Whether a skill with this id is stored (unsafe ids: false). */
  skillExists(id: string): Promise<boolean>;
}

/** What a repository says about itself (AgentScope's `getRepositoryInfo()`). Never holds a secret. */
export interface SkillRepositoryInfo {
  /** The kind of store: `sql`, `filesystem`, `git`, … */
  type: string;
  /** Where it is, for people: a path or an address with any password replaced. */
  location: string;
  writeable: boolean;
}
