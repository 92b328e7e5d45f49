import { rename, rm, lstat } from "node:fs/promises";
import path from "node:path";
import {
  SkillExistsError,
  SkillValidationError,
  validateSkillMd,
  type Diagnostic,
  type ProfileName,
} from "@skillport/core";
import { assertSafeSkillId } from "@skillport/core/internal";
import { siblingTemp, swapIntoPlace, writeFileAtomic } from "@skillport/fs";
import { readArchive, type ArchiveFile } from "./archive/read.js";
import { ArchiveError } from "./errors.js";
import { resolveLimits, type PackageLimits } from "./limits.js";
import type { ManifestFile } from "./pack.js";
import { canonicalSkillFiles, collectFiles, type ExcludedEntry } from "./walk.js";
import { computeVersionId } from "./version.js";
import { writeTree } from "./unpack.js";
import { DeterministicZip } from "./zip-writer.js";
import { readCollected } from "./read-files.js";

/** Profile a `.skill` is validated with on export and import: the portable spec, leniently. */
export const DEFAULT_SKILL_FILE_PROFILE: ProfileName = "lenient";

export interface ExportSkillOptions {
  limits?: Partial<PackageLimits>;
  includeSecrets?: boolean;
  followLinks?: boolean;
  profile?: ProfileName;
  compressionLevel?: number;
  /** Absolute path to leave out (the output file, if inside the skill). */
  skipAbsolute?: string;
}

export interface ExportSkillResult {
  /** The `.skill` archive: a deterministic ZIP with one top-level folder named after the skill. */
  archive: Uint8Array;
  name: string;
  /** Content address of the skill's files (paths relative to the skill folder). */
  versionId: string;
  digest: string;
  files: ManifestFile[];
  excluded: ExcludedEntry[];
  diagnostics: Diagnostic[];
}

/** Exports a skill directory to a `.skill` file's bytes; exclusions and secret rules apply as for packages. */
export async function exportSkill(skillDir: string, options: ExportSkillOptions = {}): Promise<ExportSkillResult> {
  const limits = resolveLimits(options.limits);
  const collected = await collectFiles(skillDir, {
    limits,
    includeSecrets: options.includeSecrets,
    followLinks: options.followLinks,
    skipAbsolute: options.skipAbsolute,
    skillFolders: "root",
  });
  canonicalSkillFiles(collected.files, "root");
  const skillMd = collected.files.find((f) => f.path === "SKILL.md");
  if (!skillMd) {
    throw new SkillValidationError("the directory has no SKILL.md at its root, so it is not a skill", [
      {
        code: "skill-md-missing",
        severity: "error",
        message: "SKILL.md is missing",
        file: "SKILL.md",
        line: 0,
        column: 0,
      },
    ]);
  }
  const dirName = path.basename(path.resolve(skillDir));
  // The folder name comes from SKILL.md, which sorts after e.g. `LICENSE`; so read first, then zip.
  const contents = new Map<string, Uint8Array>();
  const files = await readCollected(
    collected,
    { followLinks: options.followLinks, maxFileBytes: limits.maxFileBytes },
    (file, bytes) => contents.set(file.path, bytes),
  );
  const { name, diagnostics } = validateSkill(contents.get("SKILL.md") ?? new Uint8Array(), dirName, options.profile);
  const zip = new DeterministicZip({ compressionLevel: options.compressionLevel });
  for (const f of files)
    zip.add({ path: `${name}/${f.path}`, mode: f.mode, bytes: contents.get(f.path) ?? new Uint8Array() });
  const bytes = await zip.finish();
  const { versionId, digest } = computeVersionId(files);
  return { archive: bytes, name, versionId, digest, files, excluded: collected.excluded, diagnostics };
}

/** exportSkill, then an atomic write to `outFile`. */
export async function exportSkillToFile(
  skillDir: string,
  outFile: string,
  options: ExportSkillOptions = {},
): Promise<ExportSkillResult> {
  const result = await exportSkill(skillDir, { ...options, skipAbsolute: path.resolve(outFile) });
  await writeFileAtomic(outFile, result.archive);
  return result;
}

export interface ImportSkillOptions {
  limits?: Partial<PackageLimits>;
  /** Replace a skill of the same name. Without it an existing skill is an error and nothing is written. */
  force?: boolean;
  profile?: ProfileName;
}

export interface ImportSkillResult {
  name: string;
  /** The skill directory written: `<skillsDir>/<name>`. */
  dir: string;
  files: ManifestFile[];
  /** A skill of that name existed and was replaced (only with `force`). */
  replaced: boolean;
  dropped: ExcludedEntry[];
  diagnostics: Diagnostic[];
}

/**
 * Imports a `.skill` file or a zipped skill folder (zip or tar; one top-level folder with SKILL.md, or SKILL.md at
 * the root) into `skillsDir/<name>`. Validated before anything is written; the skill appears atomically.
 */
export async function importSkill(
  input: string | Uint8Array,
  skillsDir: string,
  options: ImportSkillOptions = {},
): Promise<ImportSkillResult> {
  const archive = await readArchive(input, { limits: options.limits, stripWrapper: false });
  const { prefix, folder } = skillArchiveRoot(archive.files);
  const files = archive.files.map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
  const skillMd = files.find((f) => f.path === "SKILL.md");
  const { name, diagnostics } = validateSkill(skillMd?.bytes ?? new Uint8Array(), folder, options.profile);
  const target = path.join(skillsDir, name);
  const exists = await pathExists(target);
  if (exists && !options.force) throw new SkillExistsError([name]);

  const directories = archive.directories
    .filter((d) => d.startsWith(prefix) && d.length > prefix.length)
    .map((d) => d.slice(prefix.length));
  const staged = siblingTemp(target, `import-${name}`);
  const written = await writeTree(
    { files: files.map((f) => ({ path: f.path, mode: f.mode, read: () => f.bytes })), directories },
    staged,
  );
  const old = siblingTemp(target, `old-${name}`);
  try {
    // Without `force` nothing is replaced, not even a folder made meanwhile: the plain rename then fails.
    if (!exists) await rename(staged, target);
    else if (swapIntoPlace(staged, target, old)) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(staged, { recursive: true, force: true });
    throw error;
  }
  return {
    name,
    dir: target,
    files: written,
    replaced: exists,
    dropped: archive.dropped,
    diagnostics,
  };
}

/**
 * Where the one skill of a `.skill` (or zipped skill folder) sits: `""` when SKILL.md is at the root, else `<folder>/`.
 * Anything else is an ArchiveError (`layout`).
 */
export function skillArchiveRoot(files: readonly Pick<ArchiveFile, "path">[]): {
  prefix: string;
  folder: string | undefined;
} {
  if (files.some((f) => f.path === "SKILL.md")) return { prefix: "", folder: undefined };
  const tops = new Set(files.map((f) => f.path.split("/")[0]));
  const [only] = tops;
  if (tops.size === 1 && only !== undefined && files.some((f) => f.path === `${only}/SKILL.md`))
    return { prefix: `${only}/`, folder: only };
  throw new ArchiveError("layout", "a .skill archive must hold one top-level folder with SKILL.md at its root");
}

/** Validates SKILL.md and picks the skill's name: its frontmatter `name`, else the folder's. */
function validateSkill(
  skillMd: Uint8Array,
  folder: string | undefined,
  profile: ProfileName | undefined,
): { name: string; diagnostics: Diagnostic[] } {
  const result = validateSkillMd(skillMd, {
    profile: profile ?? DEFAULT_SKILL_FILE_PROFILE,
    dirName: folder,
    file: "SKILL.md",
    lint: false,
  });
  if (!result.valid) {
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    throw new SkillValidationError(
      `SKILL.md failed validation with ${errors} error${errors === 1 ? "" : "s"}`,
      result.diagnostics,
    );
  }
  const declared = result.parsed.frontmatter?.name;
  // A declared name decides the folder (and must be safe); only a skill without one falls back to its folder name.
  const name = typeof declared === "string" ? declared : folder;
  if (name === undefined) {
    throw new SkillValidationError("SKILL.md has no usable name", [
      {
        code: "name-missing",
        severity: "error",
        message: "'name' is required to name the skill folder",
        file: "SKILL.md",
        line: 1,
        column: 1,
      },
    ]);
  }
  assertSafeSkillId(name);
  return { name, diagnostics: result.diagnostics };
}

async function pathExists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
