import os from "node:os";
import { SkillRegistry, SkillValidationError, type RegistrationFailure, type Shadowing } from "@skillport/core";
import { discoverSkillProviders } from "@skillport/fs";
import { colors, type CliIO } from "./io.js";
import { openSource, type OpenedSource } from "./source-uri.js";
import { displayPath } from "./targets.js";

export interface LoadedSkills {
  registry: SkillRegistry;
  /** The roots actually read, for messages (addresses without passwords). */
  roots: string[];
  /** Every skill that could not be loaded, from folders of skills and single skill folders alike. */
  failures: RegistrationFailure[];
  /** Closes what was opened (database connections); call it when the command is done. */
  close(): Promise<void>;
}

/**
 * Builds a registry from command-line roots in precedence order — folders of skills, single skill folders, or source
 * addresses (`sqlite:`, `postgres://`, `mysql://`; docs/sources.md) — or, with no roots, from the agent folders found
 * around the working directory (`.agents/skills`, `.claude/skills`, at project and user level). Nothing is watched:
 * a CLI run is a snapshot.
 */
export async function loadSkills(roots: readonly string[], io: CliIO, home = os.homedir()): Promise<LoadedSkills> {
  const registry = new SkillRegistry();
  const singleFailures: RegistrationFailure[] = [];
  const opened: OpenedSource[] = [];
  const close = async () => {
    await Promise.all(opened.map((source) => source.close().catch(() => undefined)));
  };
  const loaded = (shown: string[]): LoadedSkills => ({ registry, roots: shown, failures: [...registry.failures, ...singleFailures], close });
  if (roots.length === 0) {
    const found = await discoverSkillProviders({ cwd: io.cwd, home });
    for (const { provider } of found) await registry.addProvider(provider, { watch: false });
    return loaded(found.map((f) => displayPath(f.root.path, io.cwd)));
  }
  try {
    for (const given of roots) {
      const source = await openSource(given, { cwd: io.cwd });
      opened.push(source);
      if (source.only === undefined) {
        await registry.addProvider(source.provider, { source: source.label, watch: false });
        continue;
      }
      // A single skill folder: served from its parent, only this skill registered.
      try {
        await registry.register(source.only, source.provider, { source: source.label });
      } catch (error) {
        // Reported like a failing skill in a folder of skills; the other roots still load.
        if (!(error instanceof SkillValidationError)) throw error;
        singleFailures.push({ source: source.label, id: source.only, message: error.message, diagnostics: [...error.diagnostics] });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return loaded(opened.map((s) => s.label.replace(/^fs:/, "")));
}

/** Loads the roots, runs `use`, and always closes what was opened (a database pool would keep the process alive). */
export async function withSkills<T>(roots: readonly string[], io: CliIO, use: (loaded: LoadedSkills) => Promise<T>): Promise<T> {
  const loaded = await loadSkills(roots, io);
  try {
    return await use(loaded);
  } finally {
    await loaded.close();
  }
}

/** Problems found while loading, as warnings on stderr (data commands keep stdout clean). */
export function reportLoadProblems(io: CliIO, failures: readonly RegistrationFailure[], shadowed: readonly Shadowing[]): void {
  const c = colors(io);
  for (const f of failures) {
    const what = f.id === undefined ? `source ${f.source}` : `${f.source}:${f.id}`;
    io.stderr(`${c.yellow("warning")}  skipped ${what}: ${f.message}\n`);
  }
  for (const s of shadowed) {
    io.stderr(`${c.yellow("warning")}  ${s.id}: ${s.shadowed} is shadowed by ${s.winner} (reach it as ${s.shadowed})\n`);
  }
}
