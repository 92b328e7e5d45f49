import { realpathSync } from "node:fs";
import path from "node:path";
import { isSafeSkillId, validateFrontmatter, type Diagnostic, type Frontmatter } from "@skillport/core";
import { compareCodeUnits } from "@skillport/core/internal";
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_NESTED_SKIP_DIRS,
  SkillDirectory,
  SkillDirectorySource,
  SkillListLocator,
  isInside,
  scanNestedSkills,
} from "@skillport/fs";

/** One skill found under a deployed version. */
export interface DeployedSkill {
  /** Unique in the scan: the skill's name, or `<name>@<versionId>` when two versions ship the same name. */
  id: string;
  name: string;
  description: string;
  versionId: string;
  /** Real path of the skill's directory (what the model resolves relative paths against). */
  directory: string;
  /** Absolute path of its SKILL.md (or skill.md). */
  skillMdPath: string;
  /** Path of the skill directory relative to the version root, e.g. `skills/pdf`. */
  relativeDir: string;
}

export interface ScanOptions {
  /** Directories skipped anywhere. Default: node_modules, .venv, venv (FastGPT's list); hidden directories always. */
  skipDirs?: readonly string[];
  /** Deepest directory searched below a version root. Default 6. */
  maxDepth?: number;
  /** Most skills accepted per scan. Default 1,000. */
  maxSkills?: number;
  /** Most directories visited per version. Default 10,000. */
  maxDirs?: number;
  /** Largest file served, SKILL.md included (the filesystem provider's limit). Default 10 MiB. */
  maxFileBytes?: number;
}

export interface ScanResult {
  skills: DeployedSkill[];
  /** Everything skipped or wrong, with `file` relative to `projects/`: nothing is dropped silently. */
  diagnostics: Diagnostic[];
  provider: WorkspaceSkillProvider;
}

/**
 * Finds the skills under the given version directories with fs's nested locator (bounded; hidden folders and
 * `skipDirs` not entered; links never followed) and wraps them as a provider. Reads the frontmatter only.
 */
export async function scanDeployedSkills(
  projectsDir: string,
  versionIds: readonly string[],
  options: ScanOptions = {},
): Promise<ScanResult> {
  const maxSkills = options.maxSkills ?? 1000;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const diagnostics: Diagnostic[] = [];
  const found: Array<Omit<DeployedSkill, "id"> & { skill: SkillDirectory }> = [];
  let projectsReal: string;
  try {
    projectsReal = realpathSync(projectsDir);
  } catch {
    return finish([], [warn("scan-unreadable", "the projects folder cannot be read", "")], maxFileBytes);
  }

  for (const versionId of versionIds) {
    let root: string;
    try {
      root = realpathSync(path.join(projectsReal, versionId));
    } catch {
      diagnostics.push(warn("scan-unreadable", "the version folder cannot be read", `${versionId}/`));
      continue;
    }
    if (root === projectsReal || !isInside(projectsReal, root)) {
      diagnostics.push(
        warn(
          "scan-link-outside",
          "the version folder is a link that leads outside the workspace; not scanned",
          `${versionId}/`,
        ),
      );
      continue;
    }
    const scan = scanNestedSkills(root, {
      skipDirs: options.skipDirs ?? DEFAULT_NESTED_SKIP_DIRS,
      maxDepth: options.maxDepth ?? 6,
      maxDirs: options.maxDirs ?? 10_000,
      maxFileBytes,
      refuseHardLinks: true,
    });
    for (const skipped of scan.skipped) {
      const where = skipped.path === "" ? `${skipped.where}/` : `${skipped.where}/${skipped.path}`;
      diagnostics.push({
        code: skipped.code,
        severity: skipped.severity,
        message: skipped.message,
        file: `${versionId}/${where}`,
        line: 0,
        column: 0,
      });
    }
    for (const { where, skill } of scan.skills) {
      const file = `${versionId}/${where}/${skill.file}`;
      const { frontmatter, diagnostics: parsed } = await readFrontmatterSafely(skill, file);
      diagnostics.push(...parsed);
      const dirName = path.posix.basename(where);
      const name =
        typeof frontmatter?.name === "string" && isSafeSkillId(frontmatter.name) ? frontmatter.name : dirName;
      const description = typeof frontmatter?.description === "string" ? frontmatter.description : "";
      if (!frontmatter)
        diagnostics.push(warn("skill-unparsed", "frontmatter unusable; listed under its directory name", file));
      else {
        // The registry's own rule (lenient, no lint): what it refuses, catalogs leave out — said here, at deploy time.
        const refused = validateFrontmatter(frontmatter as Frontmatter, {
          profile: "lenient",
          dirName,
          lint: false,
          file,
        }).filter((d) => d.severity === "error");
        if (refused.length > 0) {
          diagnostics.push(
            warn(
              "skill-left-out",
              `catalogs (list, prompt, tools, SkillBox) leave this skill out: ${refused.map((d) => d.message).join("; ")}`,
              file,
            ),
          );
        }
      }
      found.push({
        name,
        description,
        versionId,
        directory: skill.dir,
        skillMdPath: skill.skillMdPath,
        relativeDir: where,
        skill,
      });
      if (found.length >= maxSkills) {
        diagnostics.push(warn("scan-limit", `stopped after ${maxSkills} skills`, file));
        return finish(found, diagnostics, maxFileBytes);
      }
    }
  }
  return finish(found, diagnostics, maxFileBytes);
}

async function readFrontmatterSafely(
  skill: SkillDirectory,
  file: string,
): Promise<{ frontmatter: Record<string, unknown> | undefined; diagnostics: Diagnostic[] }> {
  try {
    return await skill.readFrontmatter(file);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      frontmatter: undefined,
      diagnostics: [{ code: "skill-md-unreadable", severity: "error", message, file, line: 0, column: 0 }],
    };
  }
}

function finish(
  found: Array<Omit<DeployedSkill, "id"> & { skill: SkillDirectory }>,
  diagnostics: Diagnostic[],
  maxFileBytes: number,
): ScanResult {
  const versionsByName = new Map<string, Set<string>>();
  for (const s of found) versionsByName.set(s.name, (versionsByName.get(s.name) ?? new Set()).add(s.versionId));
  const skills: DeployedSkill[] = [];
  const seen = new Set<string>();
  for (const { skill: _skill, ...s } of found) {
    const id = (versionsByName.get(s.name)?.size ?? 0) > 1 ? `${s.name}@${s.versionId}` : s.name;
    if (seen.has(id)) {
      diagnostics.push(
        warn(
          "skill-duplicate",
          `duplicate skill name ${JSON.stringify(s.name)} in one version; kept the first`,
          `${s.versionId}/${s.relativeDir}/SKILL.md`,
        ),
      );
      continue;
    }
    seen.add(id);
    skills.push({ id, ...s });
  }
  skills.sort((a, b) => compareCodeUnits(a.id, b.id));
  return { skills, diagnostics, provider: new WorkspaceSkillProvider(skills, { maxFileBytes }) };
}

function warn(code: string, message: string, file: string): Diagnostic {
  return { code, severity: "warning", message, file, line: 0, column: 0 };
}

export interface WorkspaceProviderOptions {
  name?: string;
  /** Largest file read through the provider. Default 10 MiB (the filesystem provider's limit). */
  maxFileBytes?: number;
  /** Most files listed per skill. Default 10,000. */
  maxFiles?: number;
}

/**
 * Read access to the skills of the deployed versions, through fs's one skill-directory policy: each skill folder is
 * the real path the scan found, fixed at construction and never re-resolved; every read is confined to it by the
 * OPENED file (a folder swapped for a link later is "outside", not followed); hard links are refused (the workspace
 * is writable by sandboxed code); metadata is the frontmatter only, cached until `invalidate`.
 */
export class WorkspaceSkillProvider extends SkillDirectorySource {
  readonly name: string;
  readonly #skills: ReadonlyMap<string, DeployedSkill>;

  /** `skills` as a scan returns them: `directory` must be the folder's real path. */
  constructor(skills: readonly DeployedSkill[], options: WorkspaceProviderOptions = {}) {
    const directoryOptions = {
      maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      maxListFiles: options.maxFiles,
      refuseHardLinks: true,
    };
    const entries: Array<[string, SkillDirectory]> = [];
    for (const s of skills) {
      const probe = SkillDirectory.probe(s.directory, directoryOptions);
      if (probe.ok) entries.push([s.id, probe.skill]);
    }
    super(new SkillListLocator(entries, directoryOptions), {
      maxFileBytes: directoryOptions.maxFileBytes,
      maxListFiles: options.maxFiles,
      refuseHardLinks: true,
    });
    this.name = options.name ?? "workspace";
    this.#skills = new Map(skills.map((s) => [s.id, s]));
  }

  /** The deployed skills with their directories and SKILL.md paths, sorted by id. */
  skills(): DeployedSkill[] {
    return [...this.#skills.values()].map((s) => ({ ...s }));
  }
}
