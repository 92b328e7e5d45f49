import { lstat, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LocalFileSystemSkillProvider, type LocalFileSystemProviderOptions } from "./provider.js";
import { walkTree } from "../floor/walk.js";

export type SkillRootScope = "project" | "user";

/** A directory of skills found by discoverSkillRoots. Earlier roots take precedence over later ones. */
export interface SkillRoot {
  /** Real absolute path of the skills directory. */
  path: string;
  scope: SkillRootScope;
  /** The client folder it came from: `agents` for `.agents/skills`, `claude` for `.claude/skills`, … */
  client: string;
}

export interface DiscoverSkillRootsOptions {
  /** Where the project walk starts. Default `process.cwd()`. */
  cwd?: string;
  /** The user's home, for user-level roots. Default `os.homedir()`. */
  home?: string;
  /** Client folder names, in precedence order; each is looked up as `.<client>/skills`. Default `["agents", "claude"]`. */
  clients?: readonly string[];
  /** Also look for client folders in subdirectories below `cwd` (monorepo packages). Default false. */
  nested?: boolean;
  /** How deep the nested walk goes below `cwd`. Default 4. */
  maxDepth?: number;
  /** Most directories examined in all (walking up and down). Default 2,000. */
  maxDirs?: number;
}

export const DEFAULT_SKILL_CLIENTS: readonly string[] = Object.freeze(["agents", "claude"]);
export const DEFAULT_ROOTS_MAX_DEPTH = 4;
export const DEFAULT_ROOTS_MAX_DIRS = 2000;

// Never worth descending into: VCS internals and installed dependencies.
const SKIPPED_DIRS = new Set([".git", "node_modules"]);

/**
 * Finds skill directories the way agent clients do: project level from `cwd` up to the git root (the nearest
 * directory holding `.git`; just `cwd` outside a repository), nearest first, then user level under `home`. Project
 * roots come before user roots, so project skills override user skills. Links to root directories are followed;
 * a directory reached twice (e.g. `.claude/skills` linked to `.agents/skills`) is listed once, where first seen.
 */
export async function discoverSkillRoots(options: DiscoverSkillRootsOptions = {}): Promise<SkillRoot[]> {
  const clients = options.clients ?? DEFAULT_SKILL_CLIENTS;
  for (const client of clients) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(client))
      throw new RangeError(`client folder names are plain names like "claude", got ${JSON.stringify(client)}`);
  }
  const maxDepth = options.maxDepth ?? DEFAULT_ROOTS_MAX_DEPTH;
  let budget = options.maxDirs ?? DEFAULT_ROOTS_MAX_DIRS;
  const take = () => budget-- > 0;

  const roots: SkillRoot[] = [];
  const seen = new Set<string>();
  const collect = async (dir: string, scope: SkillRootScope) => {
    for (const client of clients) {
      const real = await realDirectory(path.join(dir, `.${client}`, "skills"));
      if (real === undefined || seen.has(real)) continue;
      seen.add(real);
      roots.push({ path: real, scope, client });
    }
  };

  const cwd = await realDirectory(options.cwd ?? process.cwd());
  if (cwd !== undefined) {
    const ancestors = await projectDirs(cwd, take);
    for (const dir of ancestors) await collect(dir, "project");
    if (options.nested) {
      for (const dir of nestedDirs(cwd, maxDepth, budget)) await collect(dir, "project");
    }
  }
  const home = await realDirectory(options.home ?? os.homedir());
  if (home !== undefined) await collect(home, "user");
  return roots;
}

/** `cwd` and its ancestors up to the git root, nearest first; only `cwd` when no ancestor holds `.git`. */
async function projectDirs(cwd: string, take: () => boolean): Promise<string[]> {
  const dirs: string[] = [];
  for (let dir = cwd; take(); dir = path.dirname(dir)) {
    dirs.push(dir);
    if (await exists(path.join(dir, ".git"))) return dirs;
    if (path.dirname(dir) === dir) break;
  }
  return [cwd];
}

/** Subdirectories below `cwd` (breadth first, sorted), skipping dot-directories, `.git` and `node_modules`; no links. */
function nestedDirs(cwd: string, maxDepth: number, budget: number): string[] {
  if (budget <= 0) return [];
  const walked = walkTree(cwd, {
    files: false,
    directories: true,
    links: "exclude",
    checkNames: false,
    onProblem: "collect", // unreadable folders and the limits just end the search there
    maxDepth,
    maxDirs: budget + 1, // the budget counts folders found below cwd; the walker counts cwd too
    exclude: (rel, isDir) => {
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      return !isDir || name.startsWith(".") || SKIPPED_DIRS.has(name) ? "not searched" : undefined;
    },
  });
  // Breadth first: by depth, then segment by segment (so `a/x` comes before `a-b/y`, as a level-by-level walk finds them).
  const bySegments = walked.entries
    .map((e) => e.path.split("/"))
    .sort((a, b) => a.length - b.length || compareSegments(a, b))
    .slice(0, budget);
  return bySegments.map((segments) => path.join(cwd, ...segments));
}

function compareSegments(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

async function realDirectory(dir: string): Promise<string | undefined> {
  try {
    const real = await realpath(dir);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** A provider for one discovered root, with the root it serves. */
export interface RootProvider {
  root: SkillRoot;
  provider: LocalFileSystemSkillProvider;
}

/**
 * One provider per root, in the same (precedence) order, named `fs:<scope>:<client>` (`#2`, `#3`… when a scope and
 * client repeat). A root that vanished since discovery is left out.
 */
export function createRootProviders(
  roots: readonly SkillRoot[],
  options: Omit<LocalFileSystemProviderOptions, "name"> = {},
): RootProvider[] {
  const counts = new Map<string, number>();
  const out: RootProvider[] = [];
  for (const root of roots) {
    const base = `fs:${root.scope}:${root.client}`;
    const n = (counts.get(base) ?? 0) + 1;
    counts.set(base, n);
    try {
      out.push({
        root,
        provider: new LocalFileSystemSkillProvider(root.path, { ...options, name: n === 1 ? base : `${base}#${n}` }),
      });
    } catch {
      continue;
    }
  }
  return out;
}

/** discoverSkillRoots, then createRootProviders. */
export async function discoverSkillProviders(
  options: DiscoverSkillRootsOptions & { provider?: Omit<LocalFileSystemProviderOptions, "name"> } = {},
): Promise<RootProvider[]> {
  return createRootProviders(await discoverSkillRoots(options), options.provider);
}
