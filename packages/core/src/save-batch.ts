import type { Diagnostic } from "./diagnostics.js";
import { SkillValidationError } from "./errors.js";
import { isSafeSkillId, normalizeResourcePath, type SafePathLimits } from "./safe-path.js";
import { serializeSkillMd } from "./serialize.js";
import type { Skill } from "./skill.js";
import type { Frontmatter } from "./types.js";

/** One skill of a save, checked and encoded: what a repository writes. */
export interface PreparedSkill {
  id: string;
  frontmatter: Frontmatter;
  body: string;
  skillMd: Uint8Array;
  /** Resource bytes by canonical relative POSIX path (SKILL.md not included). */
  resources: Map<string, Uint8Array>;
}

export interface PrepareSaveOptions {
  /** Names the repository in the error message. */
  target: string;
  /** Refuse files (SKILL.md included) larger than this. */
  maxFileBytes?: number;
  /** Refuse skills with more files than this (SKILL.md included). */
  maxFilesPerSkill?: number;
  /** Refuse skills whose files (SKILL.md included) add up to more bytes than this. */
  maxSkillBytes?: number;
  /** Tighter path rules than the defaults (a SQL column of 500 characters, say). */
  pathLimits?: Partial<SafePathLimits>;
}

const encoder = new TextEncoder();

/**
 * Checks and encodes a whole save batch before anything is written, so every repository applies the same rules:
 * ids usable as ids, no id twice, resource paths safe and canonical, nothing that shadows SKILL.md, no path that is
 * both a file and a folder, sizes within the limit. Throws SkillValidationError listing every problem.
 */
export function prepareSaveBatch(skills: readonly Skill[], options: PrepareSaveOptions): PreparedSkill[] {
  const diagnostics: Diagnostic[] = [];
  const problem = (code: string, message: string) =>
    diagnostics.push({ code, severity: "error", message, line: 0, column: 0 });
  const seen = new Set<string>();
  const prepared: PreparedSkill[] = [];
  for (const [index, skill] of skills.entries()) {
    const id = skill.name;
    if (!isSafeSkillId(id)) {
      problem("name-invalid", `skill #${index + 1}: name ${JSON.stringify(id)} cannot be used as a skill id`);
      continue;
    }
    if (seen.has(id)) {
      problem("name-duplicate", `skill ${JSON.stringify(id)} appears more than once in one save`);
      continue;
    }
    seen.add(id);
    const resources = new Map<string, Uint8Array>();
    for (const [rawPath, content] of skill.resources) {
      let path: string;
      try {
        path = normalizeResourcePath(rawPath, options.pathLimits);
      } catch (error) {
        problem("resource-path-invalid", `skill ${JSON.stringify(id)}: ${(error as Error).message}`);
        continue;
      }
      // Case-insensitive: on macOS and Windows `skill.md` would overwrite the skill's own SKILL.md.
      if (path.toLowerCase() === "skill.md") {
        problem(
          "resource-path-invalid",
          `skill ${JSON.stringify(id)}: ${JSON.stringify(path)} would shadow the skill's own SKILL.md`,
        );
        continue;
      }
      resources.set(path, typeof content === "string" ? encoder.encode(content) : content.slice());
    }
    const conflict = fileFolderConflict(resources.keys());
    if (conflict !== undefined)
      problem(
        "resource-path-invalid",
        `skill ${JSON.stringify(id)}: ${JSON.stringify(conflict)} is both a file and a folder`,
      );
    const frontmatter = structuredClone(skill.frontmatter);
    const skillMd = encoder.encode(serializeSkillMd(frontmatter, skill.body));
    if (options.maxFileBytes !== undefined) {
      for (const [path, bytes] of [["SKILL.md", skillMd] as const, ...resources]) {
        if (bytes.byteLength > options.maxFileBytes) {
          problem(
            "file-too-large",
            `skill ${JSON.stringify(id)}: ${JSON.stringify(path)} is larger than the ${options.maxFileBytes}-byte limit (maxFileBytes)`,
          );
        }
      }
    }
    if (options.maxFilesPerSkill !== undefined && resources.size + 1 > options.maxFilesPerSkill) {
      problem(
        "too-many-files",
        `skill ${JSON.stringify(id)} has ${resources.size + 1} files, more than the ${options.maxFilesPerSkill}-file limit (maxFilesPerSkill)`,
      );
    }
    if (options.maxSkillBytes !== undefined) {
      let total = skillMd.byteLength;
      for (const bytes of resources.values()) total += bytes.byteLength;
      if (total > options.maxSkillBytes) {
        problem(
          "skill-too-large",
          `skill ${JSON.stringify(id)} has ${total} bytes of files, more than the ${options.maxSkillBytes}-byte limit (maxSkillBytes)`,
        );
      }
    }
    prepared.push({ id, frontmatter, body: skill.body, skillMd, resources });
  }
  if (diagnostics.length > 0)
    throw new SkillValidationError(`cannot save to ${options.target}: ${diagnostics.length} problem(s)`, diagnostics);
  return prepared;
}

/** A path that is also the folder of another path (`a` and `a/b`): such a skill cannot exist on disk. */
function fileFolderConflict(paths: Iterable<string>): string | undefined {
  const all = new Set(paths);
  for (const path of all) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      if (all.has(prefix)) return prefix;
    }
  }
  return undefined;
}
