import { AgentSkillsError, InvalidPathError, ResourceNotFoundError } from "./errors.js";
import { compareCodeUnits } from "./compare.js";
import { resourceKindPath } from "./safe-path.js";
import type { ResourceContent, Skill } from "./skill.js";
import {
  RESOURCE_KINDS,
  type ResourceKind,
  type ResourceListing,
  type SkillProvider,
  type SkillSource,
} from "./types.js";

/**
 * Reads `<kind>/<name>` of a skill through the source's `readFile`: `name` must be one safe segment, and anything
 * `readFile` refuses as a path (a link leaving the skill, say) names no resource, so it is "not found" here.
 */
async function readKindFile(source: SkillSource, id: string, kind: ResourceKind, name: string): Promise<Uint8Array> {
  const rel = resourceKindPath(id, kind, name);
  try {
    return await source.readFile(id, rel);
  } catch (error) {
    if (error instanceof InvalidPathError) throw new ResourceNotFoundError(id, rel, undefined, { cause: error });
    throw error;
  }
}

/** The files directly inside references/, scripts/ and assets/ (dotfiles skipped), from one `listFiles` call. */
async function listKindFiles(source: SkillSource, id: string): Promise<ResourceListing> {
  const listing: ResourceListing = { references: [], scripts: [], assets: [] };
  for (const file of await source.listFiles(id)) {
    const slash = file.path.indexOf("/");
    if (slash < 0 || file.path.indexOf("/", slash + 1) >= 0) continue;
    const kind = file.path.slice(0, slash);
    const name = file.path.slice(slash + 1);
    if (!name.startsWith(".") && (RESOURCE_KINDS as readonly string[]).includes(kind))
      listing[kind as ResourceKind].push(name);
  }
  for (const kind of RESOURCE_KINDS) listing[kind].sort(compareCodeUnits);
  return listing;
}

/**
 * AgentScope's `getSkill` for any source: frontmatter, body and every other file as bytes, read one file at a time
 * through the source's own confinement; any part that fails makes the whole read throw (never half a skill).
 * The skill file itself is the one `getLocation` names, else the top-level `SKILL.md` in any case.
 */
async function readWholeSkill(source: SkillSource, id: string): Promise<Skill> {
  const [frontmatter, body, files, location] = await Promise.all([
    source.getMetadata(id),
    source.getBody(id),
    source.listFiles(id),
    source.getLocation?.(id),
  ]);
  const skillFile = location === undefined ? undefined : location.slice(location.lastIndexOf("/") + 1);
  const isSkillFile = (path: string): boolean =>
    skillFile === undefined ? path.toLowerCase() === "skill.md" : path === skillFile;
  const resources = new Map<string, ResourceContent>();
  for (const file of files) if (!isSkillFile(file.path)) resources.set(file.path, await source.readFile(id, file.path));
  // Loaded on first use: the serializer behind Skill stays out of the discovery path (decision 0202).
  const { Skill: SkillClass } = await import("./skill.js");
  return new SkillClass({ frontmatter, body, resources, source: source.name });
}

/** AgentScope's `getAllSkills`: every skill that reads whole, sorted by id; one that fails to read is left out. */
async function readAllSkills(source: SkillSource): Promise<Skill[]> {
  const skills: Skill[] = [];
  for (const id of await source.discover()) {
    try {
      skills.push(await readWholeSkill(source, id));
    } catch (error) {
      if (!(error instanceof AgentSkillsError)) throw error;
    }
  }
  return skills;
}

/**
 * The one adapter from the narrow source contract to the seed's provider: a source implements `discover`,
 * `getMetadata`, `getBody`, `listFiles` and `readFile`; this class derives `getReference`, `getScript`, `getAsset`,
 * `listResources` and AgentScope's `getSkill`/`getAllSkills` from them, so no source writes them again
 * (docs/decisions/0110-narrow-source-contract.md).
 */
export abstract class SkillSourceProvider implements SkillProvider {
  abstract readonly name: string;
  abstract discover(): ReturnType<SkillSource["discover"]>;
  abstract getMetadata(id: string): ReturnType<SkillSource["getMetadata"]>;
  abstract getBody(id: string): ReturnType<SkillSource["getBody"]>;
  abstract listFiles(id: string): ReturnType<SkillSource["listFiles"]>;
  abstract readFile(id: string, path: string): ReturnType<SkillSource["readFile"]>;

  getReference(id: string, name: string): Promise<Uint8Array> {
    return readKindFile(this, id, "references", name);
  }

  getScript(id: string, name: string): Promise<Uint8Array> {
    return readKindFile(this, id, "scripts", name);
  }

  getAsset(id: string, name: string): Promise<Uint8Array> {
    return readKindFile(this, id, "assets", name);
  }

  listResources(id: string): Promise<ResourceListing> {
    return listKindFiles(this, id);
  }

  getSkill(id: string): Promise<Skill> {
    return readWholeSkill(this, id);
  }

  getAllSkills(): Promise<Skill[]> {
    return readAllSkills(this);
  }
}

/** A provider for any source: the source itself when it already is one, else a thin wrapper that derives the helpers. */
export function toSkillProvider(source: SkillSource): SkillProvider {
  if (source instanceof SkillSourceProvider) return source;
  const wrapped: SkillProvider = {
    name: source.name,
    discover: () => source.discover(),
    getMetadata: (id) => source.getMetadata(id),
    getBody: (id) => source.getBody(id),
    listFiles: (id) => source.listFiles(id),
    readFile: (id, path) => source.readFile(id, path),
    getReference: (id, name) => readKindFile(source, id, "references", name),
    getScript: (id, name) => readKindFile(source, id, "scripts", name),
    getAsset: (id, name) => readKindFile(source, id, "assets", name),
    listResources: (id) => listKindFiles(source, id),
    getSkill: (id) => readWholeSkill(source, id),
    getAllSkills: () => readAllSkills(source),
  };
  if (source.getLocation) wrapped.getLocation = (id) => source.getLocation!(id);
  if (source.invalidate) wrapped.invalidate = (id) => source.invalidate!(id);
  if (source.watch) wrapped.watch = (onChange) => source.watch!(onChange);
  return wrapped;
}
