import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { mkdtemp, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SkillSourceProvider } from "@skillport/core";
import { AgentSkillsError } from "@skillport/core";
import { isInside } from "@skillport/fs";
import { redactUri } from "@skillport/core/internal";
import { CliError, EXIT_PROBLEMS, warnOn, type CliOutput } from "./io.js";
import type { OpenedSource, OpenSourceOptions } from "./sources/opened-source.js";
import { openSource, rootScheme } from "./source-uri.js";

/** A `.skill` file or a zipped/tarred skill folder (`add` takes a path or an http(s) URL to one). */
export const SKILL_ARCHIVE = /\.(?:skill|zip|tar|tgz|tar\.gz)$/i;

/** Longest wait for an archive download (headers and body). */
const DOWNLOAD_TIMEOUT_MS = 120_000;

/**
 * Opens what `add`/`install` read skills from. A `.skill`/`.zip`/`.tar(.gz)` file or URL is unpacked by the pack
 * package's hardened reader (size, count, depth, ratio limits; no links, no path escapes) into a private temp folder,
 * named after the archive's one top folder (else the file's name), and opened as one skill folder; closing removes it.
 * Every other address goes to the CLI's one `openSource`.
 */
export async function openInstallSource(
  address: string,
  io: CliOutput,
  hooks: Pick<OpenSourceOptions, "onFetch"> = {},
): Promise<OpenedSource> {
  const scheme = rootScheme(address);
  const local = path.resolve(io.cwd, address);
  const isFile = scheme === undefined && existsSync(local) && statSync(local).isFile();
  const isUrl = (scheme === "https" || scheme === "http") && SKILL_ARCHIVE.test(new URL(address).pathname);
  if (!(isFile && SKILL_ARCHIVE.test(local)) && !isUrl) {
    const layout =
      scheme === undefined && existsSync(local) && statSync(local).isDirectory()
        ? pluginSkillDirs(local, warnOn(io))
        : undefined;
    if (layout !== undefined) return openPlugins(address, layout, io);
    const opened = await openSource(address, { ...hooks, cwd: io.cwd, warn: warnOn(io) });
    // A git checkout laid out as a marketplace or a plugin is read through its manifests too (decision 0422).
    const remote = opened.provider as { checkoutDir?: unknown; repoPath?: unknown; revision?: unknown };
    const checkout = typeof remote.checkoutDir === "string" ? remote.checkoutDir : undefined;
    const plugins = checkout !== undefined && existsSync(checkout) ? pluginSkillDirs(checkout, warnOn(io)) : undefined;
    if (plugins === undefined || checkout === undefined) return opened;
    const repo: RepoPlacement = {
      root: realpathSync(checkout),
      prefix: typeof remote.repoPath === "string" ? remote.repoPath : "",
      ...(typeof remote.revision === "string" && { revision: remote.revision }),
    };
    return openPlugins(opened.label, plugins, io, repo).finally(() => opened.close());
  }
  const { DEFAULT_PACKAGE_LIMITS, unpackArchive } = await import("@skillport/pack");
  const shown = isUrl ? redactUri(address) : address;
  let input: string | Uint8Array = local;
  if (isUrl) {
    const downloading = download(address, shown, DEFAULT_PACKAGE_LIMITS.maxArchiveBytes);
    hooks.onFetch?.();
    input = await downloading;
  }
  const temp = await mkdtemp(path.join(os.tmpdir(), "skillport-add-"));
  try {
    const stage = path.join(temp, "stage");
    const unpacked = await unpackArchive(input, stage, { stripWrapper: false }).catch((error: unknown) => {
      // The reader refuses what it will not write (a path that climbs, a link, a bomb): one line naming the archive.
      if (error instanceof AgentSkillsError) throw new CliError(`${shown}: ${error.message}`, EXIT_PROBLEMS);
      throw error;
    });
    // SKILL.md at the root (the folder is named after the file), or one top folder holding it (`export`'s layout).
    const paths = unpacked.files.map((f) => f.path);
    const tops = new Set(paths.map((p) => p.split("/")[0] ?? ""));
    const [top = ""] = tops;
    let dir: string;
    if (paths.includes("SKILL.md")) {
      const fileName = (isUrl ? new URL(address).pathname : local).split("/").pop() ?? "";
      dir = path.join(temp, fileName.replace(SKILL_ARCHIVE, ""));
      if (path.dirname(dir) !== temp || dir === stage)
        throw new CliError(`${shown}: the file name does not give a skill folder name`, EXIT_PROBLEMS);
      await rename(stage, dir);
    } else if (tops.size === 1 && paths.includes(`${top}/SKILL.md`)) {
      dir = path.join(stage, top);
    } else {
      throw new CliError(`${shown}: the archive holds no SKILL.md at its root or in its one top folder`, EXIT_PROBLEMS);
    }
    const opened = await openSource(dir, { cwd: io.cwd, warn: warnOn(io) });
    return {
      ...opened,
      label: shown,
      close: () => opened.close().finally(() => rm(temp, { recursive: true, force: true })),
    };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A plugin marketplace or plugin folder as one source: each skills folder opened the one way, its skills served as
 * `<plugin>/<id>` (the folder name, which the skill's name must equal, stays the last segment).
 */
/** Where a plugin layout read from a git checkout sits in its repository, and the commit it was checked out at. */
interface RepoPlacement {
  /** The checkout folder (real path) the manifests were read from. */
  root: string;
  /** That folder's path inside the repository ("" for the root). */
  prefix: string;
  revision?: string;
}

interface PluginPart {
  source: OpenedSource;
  id: string;
  /** SKILL.md's path in the repository (git checkouts only), for the lock's `skillPath`. */
  repoPath?: string;
}

async function openPlugins(
  address: string,
  layout: readonly { plugin: string; dir: string }[],
  io: CliOutput,
  repo?: RepoPlacement,
): Promise<OpenedSource> {
  const parts: OpenedSource[] = [];
  const owner = new Map<string, PluginPart>();
  try {
    for (const { plugin, dir } of layout) {
      const opened = await openSource(dir, { cwd: io.cwd, warn: warnOn(io) });
      parts.push(opened);
      const ids = opened.only !== undefined ? [opened.only] : await opened.provider.discover();
      for (const id of ids) {
        const part: PluginPart = { source: opened, id };
        if (repo !== undefined) {
          // One skill folder named by the manifest is the folder itself; a folder of skills holds it as `<id>`.
          const folder = opened.only !== undefined ? dir : path.join(dir, id);
          const inRepo = path.relative(repo.root, folder).split(path.sep).join("/");
          part.repoPath = [repo.prefix, inRepo, "SKILL.md"].filter((s) => s !== "").join("/");
        }
        owner.set(`${plugin}/${id}`, part);
      }
    }
  } catch (error) {
    await Promise.all(parts.map((p) => p.close()));
    throw error;
  }
  return {
    label: address,
    provider: new PluginsProvider(address, owner, repo?.revision),
    close: async () => void (await Promise.all(parts.map((p) => p.close()))),
  };
}

class PluginsProvider extends SkillSourceProvider {
  readonly name: string;
  readonly #owner: ReadonlyMap<string, PluginPart>;
  readonly #revision: string | undefined;

  constructor(name: string, owner: ReadonlyMap<string, PluginPart>, revision?: string) {
    super();
    this.name = name;
    this.#owner = owner;
    this.#revision = revision;
  }

  /** The commit a git checkout was read at (the sidecar records it), like a remote source's status. */
  status(): { revision?: string } {
    return this.#revision === undefined ? {} : { revision: this.#revision };
  }
  /** SKILL.md's path in the repository, for a layout read from git (the lock's `skillPath`). */
  repoPathOf(id: string): string | undefined {
    return this.#owner.get(id)?.repoPath;
  }

  discover(): Promise<string[]> {
    return Promise.resolve([...this.#owner.keys()].sort());
  }
  getMetadata(id: string): ReturnType<SkillSourceProvider["getMetadata"]> {
    const { source, id: inner } = this.#part(id);
    return source.provider.getMetadata(inner);
  }
  getBody(id: string): Promise<string> {
    const { source, id: inner } = this.#part(id);
    return source.provider.getBody(inner);
  }
  listFiles(id: string): ReturnType<SkillSourceProvider["listFiles"]> {
    const { source, id: inner } = this.#part(id);
    return source.provider.listFiles(inner);
  }
  readFile(id: string, file: string): Promise<Uint8Array> {
    const { source, id: inner } = this.#part(id);
    return source.provider.readFile(inner, file);
  }
  #part(id: string): PluginPart {
    const part = this.#owner.get(id);
    if (part === undefined) throw new CliError(`${this.name}: no skill ${JSON.stringify(id)}`);
    return part;
  }
}

/** The archive's bytes, at most `max`; a larger answer (announced or streamed) is refused before it is all read. */
async function download(url: string, shown: string, max: number): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (error) {
    throw new CliError(`${shown}: download failed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!response.ok) throw new CliError(`${shown}: the server answered ${response.status}`);
  const announced = Number(response.headers.get("content-length") ?? "0");
  if (announced > max)
    throw new CliError(`${shown}: ${announced} bytes, over the ${max}-byte archive limit`, EXIT_PROBLEMS);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += (chunk as Uint8Array).byteLength;
    if (total > max) throw new CliError(`${shown}: over the ${max}-byte archive limit`, EXIT_PROBLEMS);
    chunks.push(chunk as Uint8Array);
  }
  return Buffer.concat(chunks);
}

/** Largest plugin manifest read (`marketplace.json`, `plugin.json`). */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * The skills folders of a Claude Code plugin marketplace (`.claude-plugin/marketplace.json`, each plugin's `source`
 * a folder inside the repository) or of one plugin (`plugin.json` or `.claude-plugin/plugin.json`, Agent Plugins
 * 1.0): each plugin's `skills` field (a path or a list of paths: folders of skills or single skill folders; in the
 * marketplace entry or the plugin's manifest), else its `skills/` folder. Only folders that exist
 * and resolve inside `root` (links resolved) count; a plugin hosted elsewhere is left out with a warning.
 * Undefined when `root` has neither manifest.
 */
function pluginSkillDirs(root: string, warn: (message: string) => void): { plugin: string; dir: string }[] | undefined {
  const realRoot = realpathSync(root);
  const inside = (rel: string): string | undefined => {
    const full = path.resolve(root, rel);
    if (!existsSync(full)) return undefined;
    const real = realpathSync(full);
    return isInside(realRoot, real) ? real : undefined;
  };
  const manifest = (dir: string, names: readonly string[]): Record<string, unknown> | undefined => {
    for (const name of names) {
      const file = inside(path.join(dir, name));
      if (file === undefined || !statSync(file).isFile() || statSync(file).size > MAX_MANIFEST_BYTES) continue;
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
          return parsed as Record<string, unknown>;
      } catch {
        warn(`${path.join(dir, name)} is not valid JSON; read as no manifest`);
      }
    }
    return undefined;
  };
  const folder = (rel: string): string | undefined => {
    const real = inside(rel);
    return real !== undefined && statSync(real).isDirectory() ? real : undefined;
  };
  const skillsOf = (plugin: string, dir: string, inline?: unknown): { plugin: string; dir: string }[] => {
    // A marketplace entry may carry the plugin's fields itself (`skills` among them); else the plugin's manifest says.
    const declared = inline ?? manifest(dir, [".claude-plugin/plugin.json", "plugin.json"])?.skills;
    const wanted =
      typeof declared === "string"
        ? [declared]
        : Array.isArray(declared)
          ? declared.filter((d): d is string => typeof d === "string")
          : ["skills"];
    return wanted.flatMap((rel) => {
      const real = folder(path.join(dir, rel));
      return real !== undefined ? [{ plugin, dir: real }] : [];
    });
  };
  const market = manifest(".", [".claude-plugin/marketplace.json"]);
  if (market !== undefined) {
    const plugins = Array.isArray(market.plugins) ? market.plugins : [];
    return plugins.flatMap((p: unknown) => {
      const entry = (typeof p === "object" && p !== null ? p : {}) as {
        name?: unknown;
        source?: unknown;
        skills?: unknown;
      };
      const name = typeof entry.name === "string" ? entry.name : "?";
      if (typeof entry.source !== "string" || inside(entry.source) === undefined) {
        warn(`plugin ${JSON.stringify(name)} of the marketplace is not a folder inside it; left out`);
        return [];
      }
      return skillsOf(name, entry.source, entry.skills);
    });
  }
  const plugin = manifest(".", [".claude-plugin/plugin.json", "plugin.json"]);
  if (plugin !== undefined) return skillsOf(typeof plugin.name === "string" ? plugin.name : path.basename(root), ".");
  return containerSkillDirs(folder);
}

/** The hidden container folders of `skills/` that Vercel's `skills` CLI also searches (openai/skills keeps its skills there). */
const SKILL_CONTAINERS = [".curated", ".experimental", ".system"] as const;

/**
 * With any of the container folders, `skills/` and each of them are read as groups named after their folders, so
 * `skillport add openai/skills` finds what `skills add` does (decision 0445); undefined without one. `folder(rel)` is
 * the real path of a folder inside the root (a link leaving it is no folder).
 */
function containerSkillDirs(
  folder: (rel: string) => string | undefined,
): { plugin: string; dir: string }[] | undefined {
  const containers = SKILL_CONTAINERS.flatMap((name) => {
    const dir = folder(path.join("skills", name));
    return dir === undefined ? [] : [{ plugin: name, dir }];
  });
  if (containers.length === 0) return undefined;
  const skills = folder("skills");
  return [...(skills === undefined ? [] : [{ plugin: "skills", dir: skills }]), ...containers];
}
