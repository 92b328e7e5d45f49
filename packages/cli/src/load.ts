import { stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SkillRegistry, SkillValidationError, type RegistrationFailure, type Shadowing } from "@skillport/core";
import { discoverSkillProviders, LocalFileSystemSkillProvider } from "@skillport/fs";
import { CliError, colors, type CliIO } from "./io.js";
import { displayPath } from "./targets.js";

export interface LoadedSkills {
  registry: SkillRegistry;
  /** The roots actually read, for messages. */
  roots: string[];
  /** Every skill that could not be loaded, from folders of skills and single skill folders alike. */
  failures: RegistrationFailure[];
}

/**
 * Builds a registry from command-line roots (folders of skills, or single skill folders) in precedence order, or,
 * with no roots, from the agent folders found around the working directory (`.agents/skills`, `.claude/skills`, at
 * project and user level). Nothing is watched: a CLI run is a snapshot.
 */
export async function loadSkills(roots: readonly string[], io: CliIO, home = os.homedir()): Promise<LoadedSkills> {
  const registry = new SkillRegistry();
  const singleFailures: RegistrationFailure[] = [];
  const loaded = (shown: string[]): LoadedSkills => ({ registry, roots: shown, failures: [...registry.failures, ...singleFailures] });
  if (roots.length === 0) {
    const found = await discoverSkillProviders({ cwd: io.cwd, home });
    for (const { provider } of found) await registry.addProvider(provider, { watch: false });
    return loaded(found.map((f) => displayPath(f.root.path, io.cwd)));
  }
  for (const given of roots) {
    const absolute = path.resolve(io.cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isDirectory()) throw new CliError(`not a directory: ${given}`);
    const source = `fs:${displayPath(absolute, io.cwd).replace(/\s/g, "_")}`;
    if (await isSkillDir(absolute)) {
      // A single skill folder: serve it from its parent, but register only this skill.
      const provider = new LocalFileSystemSkillProvider(path.dirname(absolute), { name: source });
      const id = path.basename(absolute);
      try {
        await registry.register(id, provider, { source });
      } catch (error) {
        // Reported like a failing skill in a folder of skills; the other roots still load.
        if (!(error instanceof SkillValidationError)) throw error;
        singleFailures.push({ source, id, message: error.message, diagnostics: [...error.diagnostics] });
      }
    } else {
      await registry.addProvider(new LocalFileSystemSkillProvider(absolute, { name: source }), { source, watch: false });
    }
  }
  return loaded(roots.map((r) => displayPath(path.resolve(io.cwd, r), io.cwd)));
}

async function isSkillDir(dir: string): Promise<boolean> {
  for (const name of ["SKILL.md", "skill.md"]) {
    if ((await stat(path.join(dir, name)).catch(() => undefined))?.isFile()) return true;
  }
  return false;
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
