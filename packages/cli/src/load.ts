import os from "node:os";
import path from "node:path";
import { SkillRegistry, SkillValidationError, type RegistrationFailure, type Shadowing } from "@skillport/core";
import { createRootProviders, discoverSkillRoots, LocalFileSystemSkillProvider } from "@skillport/fs";
import { cacheFileName } from "./cache-dir.js";
import { displayPath, colors, warnOn, type CliIO } from "./io.js";
import { skippedOf } from "./sources/path.js";
import { openSource, type OpenedSource } from "./source-uri.js";

export interface LoadedSkills {
  registry: SkillRegistry;
  /** The roots actually read, for messages. */
  roots: string[];
  /**
   * Every skill that could not be loaded, from folders of skills and single skill folders alike — including folders
   * fs's policy refused before any read (a SKILL.md link leaving the skill, a dangling one…).
   */
  failures: RegistrationFailure[];
  /**
   * Folders in a root that are simply not skills (no SKILL.md, a name that is not a safe id): reported, not failures.
   * Nothing is dropped silently (docs/decisions/0125).
   */
  skipped: SkippedFolder[];
  /** Real paths of the skills roots, in precedence order (what caches are keyed by). */
  rootPaths: string[];
  /** Writes each provider's metadata index (when `cacheDir` was given); failures are ignored (a cache is optional). */
  saveCaches: () => Promise<void>;
  /** Closes what was opened (database connections); call it when the command is done. */
  close(): Promise<void>;
}

export interface SkippedFolder {
  source: string;
  /** The folder's name in its root. */
  folder: string;
  code: string;
  message: string;
}

export interface LoadOptions {
  /** Follow the sources that can report changes (folders, SQL); default false: a CLI run is a snapshot. */
  watch?: boolean;
  /** Keep a persistent metadata index per root in this folder (docs/decisions/0036). */
  cacheDir?: string;
  /** Passed to the registry (search options and cache). */
  registry?: ConstructorParameters<typeof SkillRegistry>[0];
}

/**
 * Builds a registry from command-line roots in precedence order — folders of skills, single skill folders, or source
 * addresses (`sqlite:`, `postgres://`, `mysql://`; docs/sources.md, opened through source-uri.ts) — or, with no roots,
 * from the agent folders found around the working directory (`.agents/skills`, `.claude/skills`, at project and user
 * level). Nothing is watched: a CLI run is a snapshot. Call `close()` when done (or use `withSkills`).
 */
export async function loadSkills(
  roots: readonly string[],
  io: CliIO,
  home = os.homedir(),
  options: LoadOptions = {},
): Promise<LoadedSkills> {
  const registry = new SkillRegistry(options.registry);
  const singleFailures: RegistrationFailure[] = [];
  const providers: LocalFileSystemSkillProvider[] = [];
  const rootPaths: string[] = [];
  const indexFor = (root: string) =>
    options.cacheDir === undefined ? undefined : path.join(options.cacheDir, cacheFileName("metadata", [root]));
  const saveCaches = async () => {
    await Promise.all(providers.map((p) => p.saveMetadataIndex().catch(() => false)));
  };
  const opened: OpenedSource[] = [];
  const close = async () => {
    await Promise.all(opened.map((source) => source.close().catch(() => undefined)));
  };
  const skipped: SkippedFolder[] = [];
  const collectSkipped = (found: ReturnType<NonNullable<OpenedSource["skipped"]>>, source: string): void => {
    for (const s of found) {
      if (s.severity === "error") {
        const diagnostic = {
          code: s.code,
          severity: s.severity,
          message: s.message,
          file: `${s.folder}/${s.path ?? ""}`,
          line: 0,
          column: 0,
        };
        singleFailures.push({ source, id: s.folder, message: `skipped: ${s.message}`, diagnostics: [diagnostic] });
      } else {
        skipped.push({ source, folder: s.folder, code: s.code, message: s.message });
      }
    }
  };
  const loaded = (shown: string[]): LoadedSkills => ({
    registry,
    roots: shown,
    failures: [...registry.failures, ...singleFailures],
    skipped,
    rootPaths,
    saveCaches,
    close,
  });
  if (roots.length === 0) {
    const found = createRootProviders(await discoverSkillRoots({ cwd: io.cwd, home }));
    for (const { root, provider: named } of found) {
      // Re-created with a metadata index of its own when caching: one index file per root.
      const provider =
        options.cacheDir === undefined
          ? named
          : new LocalFileSystemSkillProvider(root.path, {
              name: named.name,
              metadataIndex: indexFor(named.root),
              warn: warnOn(io),
            });
      providers.push(provider);
      rootPaths.push(provider.root);
      await registry.addProvider(provider, { watch: options.watch ?? false });
      collectSkipped(skippedOf(provider), provider.name);
    }
    return loaded(found.map((f) => displayPath(f.root.path, io.cwd)));
  }
  const shown: string[] = [];
  try {
    for (const given of roots) shown.push(await addRoot(given));
  } catch (error) {
    await close();
    throw error;
  }
  return loaded(shown);

  /** One root, opened by the one opener (openSource): an address, a folder of skills or one skill folder. */
  async function addRoot(given: string): Promise<string> {
    const source = await openSource(given, {
      cwd: io.cwd,
      warn: warnOn(io),
      ...(options.cacheDir !== undefined && { metadataIndex: indexFor }),
    });
    opened.push(source);
    rootPaths.push(source.rootPath ?? source.label);
    if (source.only !== undefined) {
      // A single skill folder: served from its parent, only this skill registered.
      try {
        await registry.register(source.only, source.provider, { source: source.label });
      } catch (error) {
        // Reported like a failing skill in a folder of skills; the other roots still load.
        if (!(error instanceof SkillValidationError)) throw error;
        singleFailures.push({
          source: source.label,
          id: source.only,
          message: error.message,
          diagnostics: [...error.diagnostics],
        });
      }
    } else {
      if (source.provider instanceof LocalFileSystemSkillProvider) providers.push(source.provider);
      await registry.addProvider(source.provider, { source: source.label, watch: options.watch ?? false });
      collectSkipped(source.skipped?.() ?? [], source.label);
    }
    return source.rootPath === undefined ? source.label : displayPath(path.resolve(io.cwd, given), io.cwd);
  }
}

/** Loads the roots, runs `use`, and always closes what was opened (a database pool would keep the process alive). */
export async function withSkills<T>(
  roots: readonly string[],
  io: CliIO,
  use: (loaded: LoadedSkills) => Promise<T>,
  options: LoadOptions = {},
): Promise<T> {
  const loaded = await loadSkills(roots, io, undefined, options);
  try {
    return await use(loaded);
  } finally {
    await loaded.close();
  }
}

/** Problems found while loading, as warnings on stderr (data commands keep stdout clean). */
export function reportLoadProblems(
  io: CliIO,
  failures: readonly RegistrationFailure[],
  shadowed: readonly Shadowing[],
  skipped: readonly SkippedFolder[] = [],
): void {
  const c = colors(io);
  for (const f of failures) {
    const what = f.id === undefined ? `source ${f.source}` : `${f.source}:${f.id}`;
    io.stderr(`${c.yellow("warning")}  skipped ${what}: ${f.message}\n`);
  }
  for (const s of skipped) io.stderr(`note  ${s.source}:${s.folder} is not a skill: ${s.message}\n`);
  for (const s of shadowed) {
    io.stderr(
      `${c.yellow("warning")}  ${s.id}: ${s.shadowed} is shadowed by ${s.winner} (reach it as ${s.shadowed})\n`,
    );
  }
}
