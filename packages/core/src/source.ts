import { InvalidPathError, ResourceNotFoundError } from "./errors.js";
import { compareCodeUnits } from "./compare.js";
import { resourceKindPath } from "./safe-path.js";
import { RESOURCE_KINDS, type ResourceKind, type ResourceListing, type SkillProvider, type SkillSource } from "./types.js";

/**
 * Reads `<kind>/<name>` of a skill through the source's `readFile`: `name` must be one safe segment, and anything
 * `readFile` refuses as a path (a link leaving the skill, say) names no resource, so it is "not found" here.
 */
export async function readKindFile(source: SkillSource, id: string, kind: ResourceKind, name: string): Promise<Uint8Array> {
  const rel = resourceKindPath(id, kind, name);
  try {
    return await source.readFile(id, rel);
  } catch (error) {
    if (error instanceof InvalidPathError) throw new ResourceNotFoundError(id, rel, undefined, { cause: error });
    throw error;
  }
}

/** The files directly inside references/, scripts/ and assets/ (dotfiles skipped), from one `listFiles` call. */
export async function listKindFiles(source: SkillSource, id: string): Promise<ResourceListing> {
  const listing: ResourceListing = { references: [], scripts: [], assets: [] };
  for (const file of await source.listFiles(id)) {
    const slash = file.path.indexOf("/");
    if (slash < 0 || file.path.indexOf("/", slash + 1) >= 0) continue;
    const kind = file.path.slice(0, slash);
    const name = file.path.slice(slash + 1);
    if (!name.startsWith(".") && (RESOURCE_KINDS as readonly string[]).includes(kind)) listing[kind as ResourceKind].push(name);
  }
  for (const kind of RESOURCE_KINDS) listing[kind].sort(compareCodeUnits);
  return listing;
}

/**
 * The one adapter from the narrow source contract to the seed's provider: a source implements `discover`,
 * `getMetadata`, `getBody`, `listFiles` and `readFile`; this class derives `getReference`, `getScript`, `getAsset`
 * and `listResources` from them, so no source writes them again (docs/decisions/0110-narrow-source-contract.md).
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
  };
  if (source.getLocation) wrapped.getLocation = (id) => source.getLocation!(id);
  if (source.invalidate) wrapped.invalidate = (id) => source.invalidate!(id);
  if (source.watch) wrapped.watch = (onChange) => source.watch!(onChange);
  return wrapped;
}
