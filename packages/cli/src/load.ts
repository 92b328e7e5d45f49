import { lstat, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SkillRegistry, type RegistrationFailure, type Shadowing } from "@skillport/core";
import { discoverSkillProviders, LocalFileSystemSkillProvider, SKILL_FILE_NAMES } from "@skillport/fs";
import { CliError, colors, type CliIO } from "./io.js";
import { displayPath } from "./targets.js";

export interface LoadedSkills {
  registry: SkillRegistry;
  /** The roots actually read, for messages. */
  roots: string[];
  /**
   * Folders the roots hold that are not skills under fs's policy, with reasons (a folder without SKILL.md, a SKILL.md
   * link leaving the skill, …): nothing is dropped silently (docs/decisions/0125). Errors are skills that could not be
   * loaded; the rest are folders that are simply not skills.
   */
  skipped: SkippedFolder[];
}

export interface SkippedFolder {
  source: string;
  /** The folder's name in its root. */
  folder: string;
  code: string;
  severity: "error" | "warning" | "info";
  message: string;
}

/** Registration failures plus the skipped folders that are errors: every skill that could not be loaded. */
export function allFailures(loaded: LoadedSkills): Array<{ source: string; id: string | null; message: string }> {
  return [
    ...loaded.registry.failures.map((f) => ({ source: f.source, id: f.id ?? null, message: f.message })),
    ...loaded.skipped.filter((s) => s.severity === "error").map((s) => ({ source: s.source, id: s.folder, message: `skipped: ${s.message}` })),
  ];
}

/**
 * Builds a registry from command-line roots (folders of skills, or single skill folders) in precedence order, or,
 * with no roots, from the agent folders found around the working directory (`.agents/skills`, `.claude/skills`, at
 * project and user level). Nothing is watched: a CLI run is a snapshot.
 */
export async function loadSkills(roots: readonly string[], io: CliIO, home = os.homedir()): Promise<LoadedSkills> {
  const registry = new SkillRegistry();
  const skipped: SkippedFolder[] = [];
  const collect = (provider: LocalFileSystemSkillProvider, source: string) => {
    for (const s of provider.skipped()) skipped.push({ source, folder: s.where, code: s.code, severity: s.severity, message: s.message });
  };
  if (roots.length === 0) {
    const found = await discoverSkillProviders({ cwd: io.cwd, home });
    for (const { provider } of found) {
      await registry.addProvider(provider, { watch: false });
      collect(provider, provider.name);
    }
    return { registry, roots: found.map((f) => displayPath(f.root.path, io.cwd)), skipped };
  }
  for (const given of roots) {
    const absolute = path.resolve(io.cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isDirectory()) throw new CliError(`not a directory: ${given}`);
    const source = `fs:${displayPath(absolute, io.cwd).replace(/\s/g, "_")}`;
    if (await isSkillDir(absolute)) {
      // A single skill folder: serve it from its parent, but register only this skill.
      const provider = new LocalFileSystemSkillProvider(path.dirname(absolute), { name: source });
      await registry.register(path.basename(absolute), provider, { source });
    } else {
      const provider = new LocalFileSystemSkillProvider(absolute, { name: source });
      await registry.addProvider(provider, { source, watch: false });
      collect(provider, source);
    }
  }
  return { registry, roots: roots.map((r) => displayPath(path.resolve(io.cwd, r), io.cwd)), skipped };
}

/** The folder has an entry named like a skill file (of any type: the provider's probe judges it). */
async function isSkillDir(dir: string): Promise<boolean> {
  for (const name of SKILL_FILE_NAMES) {
    if ((await lstat(path.join(dir, name)).catch(() => undefined)) !== undefined) return true;
  }
  return false;
}

/** Problems found while loading, as warnings on stderr (data commands keep stdout clean). */
export function reportLoadProblems(io: CliIO, failures: readonly RegistrationFailure[], shadowed: readonly Shadowing[], skipped: readonly SkippedFolder[] = []): void {
  const c = colors(io);
  for (const s of skipped) {
    const label = s.severity === "error" ? c.yellow("warning") : "note";
    io.stderr(`${label}  skipped ${s.source}:${s.folder}: ${s.message}\n`);
  }
  for (const f of failures) {
    const what = f.id === undefined ? `source ${f.source}` : `${f.source}:${f.id}`;
    io.stderr(`${c.yellow("warning")}  skipped ${what}: ${f.message}\n`);
  }
  for (const s of shadowed) {
    io.stderr(`${c.yellow("warning")}  ${s.id}: ${s.shadowed} is shadowed by ${s.winner} (reach it as ${s.shadowed})\n`);
  }
}
