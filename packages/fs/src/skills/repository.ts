import { mkdirSync } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, rename, rm, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  AgentSkillsError,
  isSafeSkillId,
  SkillExistsError,
  SkillNotFoundError,
  type SaveOptions,
  type SaveResult,
  type Skill,
  type SkillRepository,
} from "@skillport/core";
import { randomHex, swapIntoPlace } from "../floor/atomic.js";
import { errorCode, isMissing } from "../floor/errno.js";
import { LocalFileSystemSkillProvider, type LocalFileSystemProviderOptions } from "./provider.js";

export interface FileSystemRepositoryOptions extends LocalFileSystemProviderOptions {
  /** Create the root directory (and its parents) when it is missing. Default false. */
  create?: boolean;
}

interface PreparedSkill {
  id: string;
  /** Relative POSIX path → bytes; SKILL.md included. */
  files: Map<string, Uint8Array>;
}

interface Placement {
  id: string;
  /** Where the replaced skill was moved aside, when there was one. */
  aside: string | undefined;
  placed: boolean;
}

/**
 * A writable skills directory. Reads behave exactly like LocalFileSystemSkillProvider. `save` is all-or-nothing:
 * without `force`, any existing target throws SkillExistsError before anything is written; each skill is written into
 * a temp directory inside the root and renamed into place (docs/decisions/0031-filesystem-save-policy.md).
 */
export class FileSystemSkillRepository extends LocalFileSystemSkillProvider implements SkillRepository {
  constructor(root: string, options: FileSystemRepositoryOptions = {}) {
    super(ensureRoot(root, options.create ?? false), options);
  }

  async save(skills: readonly Skill[], options: SaveOptions = {}): Promise<SaveResult> {
    const prepared = await this.#prepare(skills);
    const existing: string[] = [];
    for (const { id } of prepared) if (await this.#exists(id)) existing.push(id);
    if (existing.length > 0 && !options.force) throw new SkillExistsError(existing);

    const staged = new Map<string, string>();
    try {
      for (const skill of prepared) {
        const dir = await mkdtemp(path.join(this.root, `.tmp-${shortId(skill.id)}-`));
        staged.set(skill.id, dir);
        await chmod(dir, 0o755); // mkdtemp makes it private; a skill directory is not
        await writeSkillFiles(dir, skill.files);
      }
      await this.#swapIn(
        prepared.map((s) => s.id),
        staged,
        new Set(existing),
      );
    } catch (error) {
      await Promise.all([...staged.values()].map((dir) => rm(dir, { recursive: true, force: true })));
      throw this.#writeError(
        "save",
        prepared.map((s) => s.id),
        error,
      );
    } finally {
      for (const { id } of prepared) this.invalidate(id);
    }
    return { saved: prepared.map((s) => s.id), replaced: existing };
  }

  async skillExists(id: string): Promise<boolean> {
    try {
      await this.getLocation(id);
      return true;
    } catch (error) {
      if (error instanceof SkillNotFoundError) return false;
      throw error;
    }
  }

  /** Removes a skill directory (a linked skill loses only its link). False when there is no such skill. */
  async delete(id: string): Promise<boolean> {
    if (!isSafeSkillId(id)) return false;
    const target = path.join(this.root, id);
    try {
      // A skill is a folder (or a link to one inside the root) holding a skill file; nothing else is deleted.
      this.invalidate(id);
      if (!(await this.skillExists(id))) return false;
      if ((await lstat(target)).isSymbolicLink()) {
        await unlink(target);
      } else {
        // Rename first so the skill disappears at once; the slow recursive removal happens out of sight.
        const trash = path.join(this.root, `.del-${shortId(id)}-${randomHex(6)}`);
        await rename(target, trash);
        await rm(trash, { recursive: true, force: true });
      }
    } catch (error) {
      if (isMissing(error)) return false;
      throw this.#writeError("delete", [id], error);
    } finally {
      this.invalidate(id);
    }
    return true;
  }

  /** Renames every staged directory into place; on failure puts back what was there before. */
  async #swapIn(ids: readonly string[], staged: Map<string, string>, existing: ReadonlySet<string>): Promise<void> {
    const placements: Placement[] = [];
    try {
      for (const id of ids) {
        const target = path.join(this.root, id);
        const placement: Placement = { id, aside: undefined, placed: false };
        placements.push(placement);
        try {
          if (existing.has(id)) {
            const aside = path.join(this.root, `.old-${shortId(id)}-${randomHex(6)}`);
            if (swapIntoPlace(staged.get(id) ?? "", target, aside)) placement.aside = aside;
          } else {
            await rename(staged.get(id) ?? "", target);
          }
        } catch (error) {
          // Someone created the target after our existence check: the same answer the check would have given.
          const code = errorCode(error);
          if (!existing.has(id) && (code === "ENOTEMPTY" || code === "EEXIST")) throw new SkillExistsError([id]);
          throw error;
        }
        staged.delete(id);
        placement.placed = true;
      }
    } catch (error) {
      for (const placement of placements.reverse()) {
        const target = path.join(this.root, placement.id);
        if (placement.placed) await rm(target, { recursive: true, force: true });
        if (placement.aside !== undefined) await rename(placement.aside, target);
      }
      throw error;
    }
    await Promise.all(
      placements.map((p) => (p.aside === undefined ? undefined : rm(p.aside, { recursive: true, force: true }))),
    );
  }

  async #exists(id: string): Promise<boolean> {
    try {
      await lstat(path.join(this.root, id));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw this.#writeError("save", [id], error);
    }
  }

  /**
   * Checks and encodes a whole batch (core's shared save rules); throws SkillValidationError before anything touches the
   * disk. Core's save rules and Skill model (with the serialiser) are imported here, where they are
   * used, not with the package: every process that only lists skills imports this module through the main entry
   * (decision 0215).
   */
  async #prepare(skills: readonly Skill[]): Promise<PreparedSkill[]> {
    const { prepareSaveBatch } = await import("@skillport/core/internal");
    return prepareSaveBatch(skills, { target: this.name, maxFileBytes: this.maxFileBytes }).map(
      ({ id, skillMd, resources }) => ({
        id,
        files: new Map([["SKILL.md", skillMd], ...resources]),
      }),
    );
  }

  #writeError(action: string, ids: readonly string[], error: unknown): AgentSkillsError {
    if (error instanceof AgentSkillsError) return error;
    const what = ids.map((id) => JSON.stringify(id)).join(", ");
    return new AgentSkillsError(`${this.name}: cannot ${action} ${what} (${errorCode(error) ?? "unknown error"})`, {
      cause: error,
    });
  }
}

function ensureRoot(root: string, create: boolean): string {
  if (create) mkdirSync(root, { recursive: true });
  return root;
}

/** Temp names stay under the 255-byte file-name limit even for the longest ids. */
function shortId(id: string): string {
  return id.slice(0, 64);
}

async function writeSkillFiles(dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  for (const [rel, bytes] of files) {
    const abs = path.join(dir, ...rel.split("/"));
    await mkdir(path.dirname(abs), { recursive: true, mode: 0o755 });
    // `wx`: the directory is fresh, so an existing file (or link) here means something raced us; never write through it.
    await writeFile(abs, bytes, { flag: "wx", mode: startsWithShebang(bytes) ? 0o755 : 0o644 });
  }
}

/** Scripts that name their interpreter (`#!`) are written executable; everything else is plain data. */
function startsWithShebang(bytes: Uint8Array): boolean {
  return bytes[0] === 0x23 && bytes[1] === 0x21;
}
