/**
 * Loading: a built `dist/` (or its parent plugin folder) or a `.pkg` becomes a staged, immutable copy in the
 * host's work dir, with its manifest validated by the SDK's schema and an identity derived from its content.
 * The worker runs the staged copy, so what runs is exactly what was hashed, whatever happens to the source.
 */
import { createHash } from "node:crypto";
import { mkdir, realpath, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import {
  BUILT_BUNDLE_FILE,
  BUILT_MANIFEST_FILE,
  BuiltManifestSchema,
  SINGLE_TOOL_CHILD_ID,
  toManifestIssues,
  type BuiltManifest,
  type JsonSchema,
} from "@skillport/plugin";
import { PluginHostError } from "./errors.js";
import { readPackageDir, readPackageArchive, type PackageFile, type PackageLimits } from "./package-files.js";

/** pluginId + version + a short content hash: two packages with the same identity run the same code. */
export interface PluginIdentity {
  pluginId: string;
  version: string;
  /** First 8 hex chars of a sha256 over the sorted `path\tsha256\tsize` lines of every file. */
  hash: string;
}

/** One tool of the plugin as the manifest describes it (schemas are JSON Schema). */
export interface PluginToolInfo {
  /** The child id `run()` takes: `tool` for a single-tool plugin. */
  id: string;
  name: BuiltManifest["name"];
  description: BuiltManifest["description"];
  toolDescription: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

export interface StagedPlugin {
  identity: PluginIdentity;
  manifest: BuiltManifest;
  tools: PluginToolInfo[];
  /** Directory holding the staged package files (read-only to the worker). */
  packageDir: string;
  /** Absolute path of the staged index.js. */
  entry: string;
  /** Directories outside the stage the worker must read: the SDK and zod the host provides. */
  providedRoots: string[];
}

export function contentHash(files: readonly PackageFile[]): string {
  const lines = files.map(
    (file) => `${file.path}\t${createHash("sha256").update(file.bytes).digest("hex")}\t${file.bytes.byteLength}\n`,
  );
  return createHash("sha256").update(lines.join("")).digest("hex").slice(0, 8);
}

/** Reads, checks and stages a plugin. `source` is a dist/ dir, a plugin folder containing dist/, or a .pkg file. */
export async function stagePlugin(source: string, stageDir: string, limits: PackageLimits): Promise<StagedPlugin> {
  const label = basename(source);
  const info = await stat(source).catch(() => {
    throw new PluginHostError("PLUGIN_INVALID", `${label}: no such file or directory`);
  });
  let files: PackageFile[];
  if (info.isDirectory()) {
    const dist = existsSync(join(source, BUILT_MANIFEST_FILE)) ? source : join(source, "dist");
    if (!existsSync(join(dist, BUILT_MANIFEST_FILE))) {
      throw new PluginHostError(
        "PLUGIN_INVALID",
        `${label}: no ${BUILT_MANIFEST_FILE} here or in dist/ (build the plugin first)`,
      );
    }
    files = await readPackageDir(dist, label, limits);
  } else {
    files = await readPackageArchive(source, label, limits);
  }

  const manifest = parseManifest(files, label);
  if (!files.some((file) => file.path === BUILT_BUNDLE_FILE)) {
    throw new PluginHostError("PLUGIN_INVALID", `${label}: ${BUILT_BUNDLE_FILE} is missing`);
  }
  const identity: PluginIdentity = { pluginId: manifest.pluginId, version: manifest.version, hash: contentHash(files) };

  const packageDir = join(stageDir, "plugin");
  for (const file of files) {
    const target = join(packageDir, ...file.path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.bytes, { mode: 0o444 });
  }
  // The bundle is ESM and imports the SDK and zod as externals: declare the module type and link what we provide.
  await writeFile(join(stageDir, "package.json"), JSON.stringify({ type: "module", private: true }));
  const providedRoots = await linkProvidedPackages(join(stageDir, "node_modules"));

  return {
    identity,
    manifest,
    tools: toolsOf(manifest),
    packageDir,
    entry: join(packageDir, BUILT_BUNDLE_FILE),
    providedRoots,
  };
}

function parseManifest(files: readonly PackageFile[], label: string): BuiltManifest {
  const file = files.find((candidate) => candidate.path === BUILT_MANIFEST_FILE);
  if (!file) throw new PluginHostError("PLUGIN_INVALID", `${label}: ${BUILT_MANIFEST_FILE} is missing`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(file.bytes).toString("utf8"));
  } catch (error) {
    throw new PluginHostError(
      "PLUGIN_INVALID",
      `${label}: ${BUILT_MANIFEST_FILE} is not valid JSON (${(error as Error).message})`,
    );
  }
  const parsed = BuiltManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issues = toManifestIssues(parsed.error).map((issue) => `${issue.path}: ${issue.message}`);
    throw new PluginHostError("PLUGIN_INVALID", `${label}: ${BUILT_MANIFEST_FILE} is invalid: ${issues.join("; ")}`);
  }
  return parsed.data;
}

function toolsOf(manifest: BuiltManifest): PluginToolInfo[] {
  if (manifest.children) {
    return manifest.children.map((child) => ({
      id: child.id,
      name: child.name,
      description: child.description,
      toolDescription: child.toolDescription,
      inputSchema: child.inputSchema,
      outputSchema: child.outputSchema,
    }));
  }
  return [
    {
      id: SINGLE_TOOL_CHILD_ID,
      name: manifest.name,
      description: manifest.description,
      toolDescription: manifest.toolDescription,
      // The schema guarantees both exist when there are no children.
      inputSchema: manifest.inputSchema ?? { type: "object" },
      outputSchema: manifest.outputSchema ?? { type: "object" },
    },
  ];
}

/** Packages the host provides to every plugin, resolved from the host's own installation. */
const PROVIDED_PACKAGES = ["@skillport/plugin", "zod"] as const;

let provided: Promise<Map<string, string>> | undefined;

/** Real root directories of the provided packages (the SDK's own zod first, so schemas share one copy). */
function providedPackageRoots(): Promise<Map<string, string>> {
  provided ??= (async () => {
    const roots = new Map<string, string>();
    let from = createRequire(import.meta.url);
    for (const name of PROVIDED_PACKAGES) {
      let resolved: string;
      try {
        resolved = from.resolve(name);
      } catch {
        continue; // not installed: a plugin importing it fails with Node's own "Cannot find package" message
      }
      const root = await realpath(packageRoot(resolved, name));
      roots.set(name, root);
      from = createRequire(join(root, "package.json"));
    }
    return roots;
  })();
  return provided;
}

/** The directory of the package named `name` that contains `file` (dirname(file) when none is found). */
export function packageRoot(file: string, name: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    try {
      if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === name) return dir;
    } catch {
      // an unreadable package.json is not the one we look for
    }
  }
  return dirname(file);
}

/**
 * Names plugins import that stand for a provided package: FastGPT's CLI leaves `@fastgpt-plugin/sdk-factory`
 * external in its bundles, so a package it built imports the SDK by that name at run time.
 */
const PROVIDED_ALIASES: Readonly<Record<string, (typeof PROVIDED_PACKAGES)[number]>> = {
  "@fastgpt-plugin/sdk-factory": "@skillport/plugin",
};

/** Links the provided packages (and their aliases) into `nodeModules`; returns their real roots (what a sandbox must mount). */
export async function linkProvidedPackages(nodeModules: string): Promise<string[]> {
  const roots = await providedPackageRoots();
  const links = new Map(roots);
  for (const [alias, name] of Object.entries(PROVIDED_ALIASES)) {
    const root = roots.get(name);
    if (root !== undefined) links.set(alias, root);
  }
  for (const [name, root] of links) {
    const link = join(nodeModules, ...name.split("/"));
    await mkdir(dirname(link), { recursive: true });
    await symlink(root, link, "dir");
  }
  return [...roots.values()];
}
