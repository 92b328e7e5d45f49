import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import {
  InvalidPathError,
  LimitExceededError,
  ResourceNotFoundError,
  RESOURCE_KINDS,
  isSafeSkillId,
  parseSkillMd,
  resourceKindPath,
  SkillNotFoundError,
  type Diagnostic,
  type Frontmatter,
  type ResourceKind,
  type ResourceListing,
  type SkillFile,
  type SkillProvider,
} from "@skillport/core";
import { isInside, resolveConfined } from "@skillport/fs";

/** One SKILL.md found under a deployed version. */
export interface DeployedSkill {
  /** Unique in the scan: the skill's name, or `<name>@<versionId>` when two versions ship the same name. */
  id: string;
  name: string;
  description: string;
  versionId: string;
  /** Absolute path of the skill's directory (what the model resolves relative paths against). */
  directory: string;
  /** Absolute path of its SKILL.md. */
  skillMdPath: string;
  /** Path of the skill directory relative to the version root, e.g. `skills/pdf`. */
  relativeDir: string;
}

export interface ScanOptions {
  /** Directories skipped anywhere. Default: node_modules, .venv, venv (FastGPT's list) and hidden directories. */
  skipDirs?: readonly string[];
  /** Deepest directory searched below a version root. Default 6. */
  maxDepth?: number;
  /** Most skills accepted per scan. Default 1,000. */
  maxSkills?: number;
  /** Most directories visited per version. Default 10,000. */
  maxDirs?: number;
  /** Largest SKILL.md read. Default 1 MiB. */
  maxSkillMdBytes?: number;
}

export interface ScanResult {
  skills: DeployedSkill[];
  diagnostics: Diagnostic[];
  provider: WorkspaceSkillProvider;
}

const DEFAULT_SKIP = ["node_modules", ".venv", "venv"];

/** Finds the SKILL.md files under the given version directories (bounded) and wraps them as a SkillProvider. */
export async function scanDeployedSkills(projectsDir: string, versionIds: readonly string[], options: ScanOptions = {}): Promise<ScanResult> {
  const skip = new Set(options.skipDirs ?? DEFAULT_SKIP);
  const maxDepth = options.maxDepth ?? 6;
  const maxSkills = options.maxSkills ?? 1000;
  const maxDirs = options.maxDirs ?? 10_000;
  const maxBytes = options.maxSkillMdBytes ?? 1024 * 1024;
  const diagnostics: Diagnostic[] = [];
  const found: Array<Omit<DeployedSkill, "id">> = [];

  for (const versionId of versionIds) {
    const root = path.join(projectsDir, versionId);
    let visited = 0;
    const queue: Array<{ rel: string; depth: number }> = [{ rel: "", depth: 0 }];
    while (queue.length > 0) {
      const { rel, depth } = queue.shift()!;
      if (++visited > maxDirs) {
        diagnostics.push(warn("scan-limit", `stopped after ${maxDirs} directories`, `${versionId}/`));
        break;
      }
      let entries;
      try {
        entries = await readdir(path.join(root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // Symbolic links are not followed: a deployed package cannot point the scan outside itself.
      if (rel !== "" && entries.some((e) => e.name === "SKILL.md" && e.isFile())) {
        const file = `${versionId}/${rel}/SKILL.md`;
        const skillMdPath = path.join(root, rel, "SKILL.md");
        const size = (await lstat(skillMdPath)).size;
        if (size > maxBytes) {
          diagnostics.push(warn("skill-too-large", `SKILL.md is larger than ${maxBytes} bytes; skipped`, file));
        } else {
          const parsed = parseSkillMd(await readFile(skillMdPath), { file });
          diagnostics.push(...parsed.diagnostics);
          const fm = parsed.frontmatter;
          const dirName = path.basename(rel);
          const name = typeof fm?.name === "string" && isSafeSkillId(fm.name) ? fm.name : dirName;
          const description = typeof fm?.description === "string" ? fm.description : "";
          if (!fm) diagnostics.push(warn("skill-unparsed", "frontmatter unusable; listed under its directory name", file));
          found.push({ name, description, versionId, directory: path.join(root, rel), skillMdPath, relativeDir: rel });
          if (found.length >= maxSkills) {
            diagnostics.push(warn("scan-limit", `stopped after ${maxSkills} skills`, file));
            return finish(found, diagnostics);
          }
        }
        continue; // A skill's own subfolders (scripts/, references/) hold no further skills.
      }
      if (depth >= maxDepth) continue;
      for (const entry of entries) {
        if (!entry.isDirectory() || skip.has(entry.name) || entry.name.startsWith(".")) continue;
        queue.push({ rel: rel === "" ? entry.name : `${rel}/${entry.name}`, depth: depth + 1 });
      }
    }
  }
  return finish(found, diagnostics);
}

function finish(found: Array<Omit<DeployedSkill, "id">>, diagnostics: Diagnostic[]): ScanResult {
  const versionsByName = new Map<string, Set<string>>();
  for (const s of found) versionsByName.set(s.name, (versionsByName.get(s.name) ?? new Set()).add(s.versionId));
  const skills: DeployedSkill[] = [];
  const seen = new Set<string>();
  for (const s of found) {
    const id = (versionsByName.get(s.name)?.size ?? 0) > 1 ? `${s.name}@${s.versionId}` : s.name;
    if (seen.has(id)) {
      diagnostics.push(warn("skill-duplicate", `duplicate skill name ${JSON.stringify(s.name)} in one version; kept the first`, `${s.versionId}/${s.relativeDir}/SKILL.md`));
      continue;
    }
    seen.add(id);
    skills.push({ id, ...s });
  }
  skills.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { skills, diagnostics, provider: new WorkspaceSkillProvider(skills) };
}

function warn(code: string, message: string, file: string): Diagnostic {
  return { code, severity: "warning", message, file, line: 0, column: 0 };
}

export interface WorkspaceProviderOptions {
  name?: string;
  /** Largest file read through the provider. Default 16 MiB. */
  maxFileBytes?: number;
  /** Most files listed per skill. Default 10,000. */
  maxFiles?: number;
}

/** Read access to the skills of the deployed versions; every read is confined to the skill's directory by real path. */
export class WorkspaceSkillProvider implements SkillProvider {
  readonly name: string;
  private readonly byId: Map<string, DeployedSkill>;
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;

  constructor(skills: readonly DeployedSkill[], options: WorkspaceProviderOptions = {}) {
    this.name = options.name ?? "workspace";
    this.byId = new Map(skills.map((s) => [s.id, s]));
    this.maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
    this.maxFiles = options.maxFiles ?? 10_000;
  }

  /** The deployed skills with their directories and SKILL.md paths, sorted by id. */
  skills(): DeployedSkill[] {
    return [...this.byId.values()].map((s) => ({ ...s }));
  }

  async discover(): Promise<string[]> {
    return [...this.byId.keys()].sort();
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    const parsed = await this.parse(id);
    if (!parsed.frontmatter) throw new SkillNotFoundError(id, `skill ${JSON.stringify(id)} has no usable frontmatter`);
    return parsed.frontmatter;
  }

  async getBody(id: string): Promise<string> {
    return (await this.parse(id)).body;
  }

  getReference(id: string, name: string): Promise<Uint8Array> {
    return this.readKind(id, "references", name);
  }

  getScript(id: string, name: string): Promise<Uint8Array> {
    return this.readKind(id, "scripts", name);
  }

  getAsset(id: string, name: string): Promise<Uint8Array> {
    return this.readKind(id, "assets", name);
  }

  async listResources(id: string): Promise<ResourceListing> {
    const skill = this.skill(id);
    const listing: ResourceListing = { references: [], scripts: [], assets: [] };
    for (const kind of RESOURCE_KINDS) {
      try {
        const entries = await readdir(path.join(skill.directory, kind), { withFileTypes: true });
        listing[kind] = entries.filter((e) => e.isFile()).map((e) => e.name).sort();
      } catch {
        // No such folder: an empty list for that kind.
      }
    }
    return listing;
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    const skill = this.skill(id);
    const skillReal = await realpath(skill.directory);
    const files: SkillFile[] = [];
    const walk = async (rel: string): Promise<void> => {
      const entries = await readdir(path.join(skill.directory, rel), { withFileTypes: true });
      for (const entry of entries) {
        const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
        let info = entry;
        if (entry.isSymbolicLink()) {
          // A link is listed only when it stays inside the skill; one that escapes is an error, never hidden.
          const target = await realpath(path.join(skill.directory, child)).catch(() => undefined);
          if (target === undefined || !isInside(skillReal, target)) throw new InvalidPathError(child, `link escapes skill ${JSON.stringify(id)}`);
          const targetInfo = await stat(target);
          if (!targetInfo.isFile()) continue; // links to directories are not followed (no cycles)
          info = { isDirectory: () => false, isFile: () => true } as typeof entry;
        }
        if (info.isDirectory()) await walk(child);
        else if (info.isFile()) {
          if (files.length >= this.maxFiles) throw new LimitExceededError("maxFiles", `skill ${JSON.stringify(id)} has more than ${this.maxFiles} files`);
          files.push({ path: child, size: (await stat(path.join(skill.directory, child))).size });
        }
      }
    };
    await walk("");
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readFile(id: string, relPath: string): Promise<Uint8Array> {
    const skill = this.skill(id);
    const real = await resolveConfined(skill.directory, relPath, { skillId: id });
    const info = await lstat(real);
    if (!info.isFile()) throw new ResourceNotFoundError(id, relPath);
    if (info.size > this.maxFileBytes) throw new ResourceNotFoundError(id, relPath, `file ${JSON.stringify(relPath)} in skill ${JSON.stringify(id)} is larger than ${this.maxFileBytes} bytes`);
    return new Uint8Array(await readFile(real));
  }

  async getLocation(id: string): Promise<string | undefined> {
    return this.skill(id).skillMdPath;
  }

  /** A kind getter names a resource: anything it cannot serve (a link out of the skill included) is "not found". */
  private async readKind(id: string, kind: ResourceKind, name: string): Promise<Uint8Array> {
    const rel = resourceKindPath(id, kind, name);
    try {
      return await this.readFile(id, rel);
    } catch (error) {
      if (error instanceof InvalidPathError) throw new ResourceNotFoundError(id, rel, undefined, { cause: error });
      throw error;
    }
  }

  private skill(id: string): DeployedSkill {
    const skill = this.byId.get(id);
    if (!skill) throw new SkillNotFoundError(id);
    return skill;
  }

  private async parse(id: string) {
    const bytes = await this.readFile(id, "SKILL.md");
    return parseSkillMd(bytes, { file: `${this.skill(id).relativeDir}/SKILL.md` });
  }
}
