import { LimitExceededError, ResourceNotFoundError, SkillExistsError, SkillNotFoundError } from "./errors.js";
import { isSafeSkillId, requireSafeResourcePath, requireSafeSkillId } from "./safe-path.js";
import { SkillSourceProvider } from "./source.js";
import { compareCodeUnits } from "./compare.js";
import { prepareSaveBatch } from "./save-batch.js";
import { Skill, type ResourceContent } from "./skill.js";
import { type Frontmatter, type SaveOptions, type SaveResult, type SkillFile, type SkillRepository } from "./types.js";

export interface InMemorySkillRepositoryOptions {
  /** Provider name used in qualified ids and messages. Default `memory`. */
  name?: string;
  /** Skills to start with (validated like a save). */
  skills?: Iterable<Skill>;
  /** Largest file served, in bytes; a file exactly at the limit passes. Default 10 MiB. */
  maxFileBytes?: number;
}

export const DEFAULT_MEMORY_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** One stored skill: an immutable copy, so callers' later edits never leak in or out. */
interface StoredSkill {
  readonly frontmatter: Frontmatter;
  readonly body: string;
  readonly skillMd: Uint8Array;
  /** Resource bytes by canonical relative path (SKILL.md not included). */
  readonly resources: ReadonlyMap<string, Uint8Array>;
}

const SKILL_MD = "SKILL.md";

/**
 * A SkillRepository over `Skill` objects held in memory, with the same observable semantics as the filesystem
 * provider: the skill id is the frontmatter `name`, metadata is a fresh object per call, resources are confined by
 * the shared safe-path rules, listings are sorted. Useful for tests, code-defined skills and per-tenant scoping.
 */
export class InMemorySkillRepository extends SkillSourceProvider implements SkillRepository {
  readonly name: string;
  readonly #maxFileBytes: number;
  readonly #skills = new Map<string, StoredSkill>();
  readonly #listeners = new Set<(ids: string[]) => void>();

  constructor(options: InMemorySkillRepositoryOptions = {}) {
    super();
    this.name = options.name ?? "memory";
    const max = options.maxFileBytes ?? DEFAULT_MEMORY_MAX_FILE_BYTES;
    if (!Number.isInteger(max) || max < 0)
      throw new RangeError(`maxFileBytes must be a non-negative integer, got ${max}`);
    this.#maxFileBytes = max;
    if (options.skills) this.#commit(this.#prepare([...options.skills]));
  }

  async discover(): Promise<string[]> {
    return [...this.#skills.keys()].sort(compareCodeUnits);
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    const stored = this.#skillMd(id);
    return structuredClone(stored.frontmatter);
  }

  async getBody(id: string): Promise<string> {
    return this.#skillMd(id).body;
  }

  /** Every stored skill, sorted by id, each a new `Skill` object. */
  override async getAllSkills(): Promise<Skill[]> {
    return Promise.all((await this.discover()).map((id) => this.getSkill(id)));
  }

  async skillExists(id: string): Promise<boolean> {
    return isSafeSkillId(id) && this.#skills.has(id);
  }

  /** The whole skill as a new `Skill` object (resources as bytes). */
  override async getSkill(id: string): Promise<Skill> {
    const stored = this.#find(id);
    const resources = new Map<string, ResourceContent>([...stored.resources].map(([p, bytes]) => [p, bytes.slice()]));
    return new Skill({
      frontmatter: structuredClone(stored.frontmatter),
      body: stored.body,
      resources,
      source: this.name,
    });
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    const stored = this.#find(id);
    const files: SkillFile[] = [{ path: SKILL_MD, size: stored.skillMd.byteLength }];
    for (const [path, bytes] of stored.resources) files.push({ path, size: bytes.byteLength });
    return files.sort((a, b) => compareCodeUnits(a.path, b.path));
  }

  async readFile(id: string, path: string): Promise<Uint8Array> {
    const stored = this.#find(id);
    const rel = requireSafeResourcePath(id, path);
    if (rel === SKILL_MD) return this.#withinLimit(id, rel, stored.skillMd).slice();
    return this.#resource(id, stored, rel);
  }

  async getLocation(_id: string): Promise<string | undefined> {
    return undefined; // memory skills have no place a model could open
  }

  /** Nothing is cached beyond the stored copy, so there is nothing to drop. */
  invalidate(_id?: string): void {}

  watch(onChange: (ids: string[]) => void): () => void {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  }

  /**
   * Saves all skills or none. Without `force`, meeting any existing id throws SkillExistsError and writes nothing;
   * with `force` existing skills are replaced whole (docs/decisions/0021-memory-repository-save-policy.md).
   */
  async save(skills: readonly Skill[], options: SaveOptions = {}): Promise<SaveResult> {
    const prepared = this.#prepare(skills);
    const existing = prepared.map(([id]) => id).filter((id) => this.#skills.has(id));
    if (existing.length > 0 && !options.force) throw new SkillExistsError(existing);
    this.#commit(prepared);
    return { saved: prepared.map(([id]) => id), replaced: existing };
  }

  async delete(id: string): Promise<boolean> {
    if (!isSafeSkillId(id) || !this.#skills.delete(id)) return false;
    this.#emit([id]);
    return true;
  }

  /** Validates and copies a batch; throws before anything is stored. */
  #prepare(skills: readonly Skill[]): Array<[string, StoredSkill]> {
    return prepareSaveBatch(skills, { target: this.name }).map(({ id, ...stored }) => [id, stored]);
  }

  #commit(prepared: Array<[string, StoredSkill]>): void {
    if (prepared.length === 0) return;
    // Written in place, in one synchronous step (readers never see half a batch), not by copying the map: a save costs
    // O(batch), not O(skills held), so n saves of one skill stay linear.
    for (const [id, stored] of prepared) this.#skills.set(id, stored);
    this.#emit(prepared.map(([id]) => id));
  }

  #emit(ids: string[]): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener([...ids]);
      } catch {
        // A failing listener must not undo or break a write that already happened.
      }
    }
  }

  #find(id: string): StoredSkill {
    const stored = this.#skills.get(requireSafeSkillId(id));
    if (!stored) throw new SkillNotFoundError(id);
    return stored;
  }

  #skillMd(id: string): StoredSkill {
    const stored = this.#find(id);
    this.#withinLimit(id, SKILL_MD, stored.skillMd);
    return stored;
  }

  #resource(id: string, stored: StoredSkill, path: string): Uint8Array {
    const bytes = stored.resources.get(path);
    if (!bytes) throw new ResourceNotFoundError(id, path);
    return this.#withinLimit(id, path, bytes).slice();
  }

  #withinLimit(id: string, path: string, bytes: Uint8Array): Uint8Array {
    if (bytes.byteLength > this.#maxFileBytes) {
      throw new LimitExceededError(
        "maxFileBytes",
        `${path} of skill ${JSON.stringify(id)} is larger than ${this.#maxFileBytes} bytes`,
      );
    }
    return bytes;
  }
}
