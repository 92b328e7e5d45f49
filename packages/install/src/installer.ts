import fs from "node:fs";
import path from "node:path";
import { AgentSkillsError, isSafeSkillId } from "@skillport/core";
import { errorCode, readDirectorySync, walkTree, type PinnedDir } from "@skillport/fs";
import { agentSkillsDir, AGENTS, canonicalSkillsDir, type AgentEnvironment, type AgentSpec } from "./agents.js";
import { computedHash, fileDigests, type SkillFileBytes } from "./digest.js";
import { InstallError } from "./errors.js";
import {
  readLock,
  readSidecar,
  writeLock,
  writeSidecar,
  type AuditRecord,
  type LockEntry,
  type LockFile,
  type SidecarEntry,
  type UpstreamName,
} from "./lock.js";
import { entryKind, openTarget, removeEntry, writeFolder, writeLink } from "./place.js";

/** Where a skill came from, as the lock records it. */
export type LockOrigin = Pick<LockEntry, "source" | "sourceType"> & Partial<Pick<LockEntry, "ref" | "skillPath">>;

/** A validated skill ready to be written. */
export interface SkillToInstall {
  /** Frontmatter name = folder name. */
  name: string;
  files: SkillFileBytes[];
  /** The lock entry's origin fields (its `computedHash` is computed here). */
  origin: LockOrigin;
  /** Commit or revision the files came from, for the sidecar. */
  commit?: string;
  /** Installed under another name than upstream's (`add --as`): the sidecar records it (decision 0420). */
  upstream?: UpstreamName;
}

/** Where and how to install. */
export interface InstallTarget {
  env: AgentEnvironment;
  /** Global scope: canonical copies under `$HOME/.agents/skills`, agents' global folders, no project lockfile. */
  global: boolean;
  agents: readonly AgentSpec[];
  /** Copy into each agent folder instead of linking to the canonical copy. */
  copy: boolean;
  /** Replace folders skillport did not install (a skill of the same name written by hand or another tool). */
  force: boolean;
  /** Write the lock and its sidecar (project scope). Default true; `install --frozen` passes false. */
  record?: boolean;
  /**
   * The audit seam (issue 23, "Safety at install"; `@skillport/audit` plugs in here): called once with every skill
   * after validation and before the first write. Throwing refuses the whole install; nothing is written. What it
   * returns per skill name is recorded in the sidecar (the verdict and the consent given; decision 0350).
   */
  auditGate?: (skills: readonly SkillToInstall[]) => Promise<Readonly<Record<string, AuditRecord>> | undefined>;
}

export interface InstalledSkill {
  name: string;
  computedHash: string;
  /** Project- or home-relative canonical folder. */
  path: string;
  agents: Record<string, "canonical" | "link" | "copy">;
}

/**
 * Installs every skill or none: all refusals (a folder it would shadow) are found before the first write. Per skill:
 * the canonical copy, then each agent's link or copy, then (project scope) the lock and its sidecar.
 */
export async function installSkills(
  skills: readonly SkillToInstall[],
  target: InstallTarget,
): Promise<InstalledSkill[]> {
  const base = scopeRoot(target);
  const canonical = canonicalSkillsDir(target.env, target.global);
  const { lock } = target.global ? { lock: emptyLock() } : await readLock(base);
  const sidecar = target.global ? {} : await readSidecar(base, lock);
  for (const skill of skills) checkNotShadowing(skill, canonical, target, lock);
  const audits = (await target.auditGate?.(skills)) ?? {};
  const results: InstalledSkill[] = [];
  // Each folder is opened (pinned, links below the trusted root refused) once for the whole install, not per skill.
  const opened = new Map<string, PinnedDir>();
  const pinned = (dir: string): PinnedDir => {
    let found = opened.get(dir);
    if (found === undefined) {
      found = openTarget(base, dir);
      opened.set(dir, found);
    }
    return found;
  };
  try {
    for (const skill of skills) {
      const shown = path.relative(base, path.join(canonical, skill.name)) || skill.name;
      writeOrExplain(shown, () => writeFolder(pinned(canonical), skill.name, skill.files));
      const agents: InstalledSkill["agents"] = {};
      for (const agent of target.agents) {
        const agentDir = agentSkillsDir(agent, target.env, target.global);
        if (path.resolve(agentDir) === path.resolve(canonical)) {
          agents[agent.id] = "canonical";
          continue;
        }
        writeOrExplain(path.relative(base, path.join(agentDir, skill.name)) || skill.name, () => {
          if (target.copy) writeFolder(pinned(agentDir), skill.name, skill.files);
          else writeLink(pinned(agentDir), skill.name, path.relative(agentDir, path.join(canonical, skill.name)));
        });
        agents[agent.id] = target.copy ? "copy" : "link";
      }
      const hash = computedHash(skill.files);
      lock.skills[skill.name] = { ...skill.origin, computedHash: hash };
      const entry: SidecarEntry = { computedHash: hash, files: fileDigests(skill.files), agents: placedAgents(agents) };
      if (skill.commit !== undefined) entry.commit = skill.commit;
      if (skill.upstream !== undefined) entry.upstream = skill.upstream;
      const audit = audits[skill.name];
      if (audit !== undefined) entry.audit = audit;
      sidecar[skill.name] = entry;
      results.push({
        name: skill.name,
        computedHash: hash,
        path: path.relative(base, path.join(canonical, skill.name)),
        agents,
      });
    }
  } finally {
    for (const dir of opened.values()) dir.close();
  }
  if (!target.global && target.record !== false)
    await writeLock(base, lock).then((bytes) => writeSidecar(base, bytes, sidecar));
  return results;
}

/**
 * Removes installed skills: every agent folder entry that is a link to the canonical copy (or a copy the sidecar
 * recorded), the canonical copy, and the lock entries. A name not installed is a usage error; nothing is removed then.
 */
export async function removeSkills(
  names: readonly string[],
  target: Omit<InstallTarget, "agents" | "copy" | "force">,
): Promise<string[]> {
  const base = scopeRoot(target);
  const canonical = canonicalSkillsDir(target.env, target.global);
  const { lock } = target.global ? { lock: emptyLock() } : await readLock(base);
  const sidecar = target.global ? {} : await readSidecar(base, lock);
  for (const name of names) {
    if (!isSafeSkillId(name) || name.includes("/"))
      throw new InstallError(`${JSON.stringify(name)} is not a skill name`, "INSTALL_USAGE");
    if (!(name in lock.skills) && !fs.existsSync(path.join(canonical, name)))
      throw new InstallError(`${name}: not installed here`, "INSTALL_USAGE");
  }
  for (const name of names) {
    const copies = sidecar[name]?.agents ?? {};
    for (const agent of AGENTS) {
      const agentDir = agentSkillsDir(agent, target.env, target.global);
      if (path.resolve(agentDir) === path.resolve(canonical) || !fs.existsSync(agentDir)) continue;
      const pinned = openTarget(base, agentDir);
      try {
        const found = entryKind(pinned, name);
        const ours =
          (found.kind === "link" && path.resolve(agentDir, found.target) === path.join(canonical, name)) ||
          (found.kind === "other" && copies[agent.id] === "copy");
        if (ours) removeEntry(pinned, name);
      } finally {
        pinned.close();
      }
    }
    if (fs.existsSync(canonical)) {
      const dir = openTarget(base, canonical);
      try {
        removeEntry(dir, name);
      } finally {
        dir.close();
      }
    }
    delete lock.skills[name];
    delete sidecar[name];
  }
  if (!target.global) await writeLock(base, lock).then((bytes) => writeSidecar(base, bytes, sidecar));
  return [...names];
}

/** One installed skill as `list --installed` shows it. */
export interface InstalledRow {
  name: string;
  source: string | null;
  ref: string | null;
  commit: string | null;
  computedHash: string | null;
  /** The folder on disk matches the lock's `computedHash` (null: not in the lock, or missing). */
  intact: boolean | null;
  agents: string[];
}

/** The installed skills of a scope: the lock's entries and any canonical folder not in it. */
export async function listInstalled(env: AgentEnvironment, global: boolean): Promise<InstalledRow[]> {
  const base = global ? env.home : env.cwd;
  const canonical = canonicalSkillsDir(env, global);
  const { lock } = global ? { lock: emptyLock() } : await readLock(base);
  const sidecar = global ? {} : await readSidecar(base, lock);
  const onDisk = entryNames(canonical);
  const names = [...new Set([...Object.keys(lock.skills), ...onDisk])].sort();
  return names.map((name) => {
    const entry = lock.skills[name];
    const folder = path.join(canonical, name);
    const present = fs.existsSync(folder);
    const agents = AGENTS.filter((a) => {
      const dir = agentSkillsDir(a, env, global);
      return path.resolve(dir) === path.resolve(canonical) ? present : fs.existsSync(path.join(dir, name, "SKILL.md"));
    }).map((a) => a.id);
    return {
      name,
      source: entry?.source ?? null,
      ref: entry?.ref ?? null,
      commit: sidecar[name]?.commit ?? null,
      computedHash: entry?.computedHash ?? null,
      intact: entry && present ? computedHash(readFolder(folder)) === entry.computedHash : null,
      agents,
    };
  });
}

/** The entry names of one skills folder (one level; `.tmp-` and other dot entries are never skills); none when absent. */
export function entryNames(dir: string): string[] {
  // Names that are not UTF-8 are left out: they cannot be a skill's name, nor be opened by a string path.
  return fs.existsSync(dir)
    ? readDirectorySync(dir)
        .entries.map((e) => e.name)
        .filter((n) => !n.startsWith("."))
    : [];
}

/** Every file of an installed folder (links refused: an installed skill holds none). */
export function readFolder(folder: string): SkillFileBytes[] {
  return walkTree(folder, { checkNames: false }).entries.map((e) => ({
    path: e.path,
    bytes: fs.readFileSync(e.realPath),
  }));
}

function checkNotShadowing(skill: SkillToInstall, canonical: string, target: InstallTarget, lock: LockFile): void {
  const name = skill.name;
  const locked = lock.skills[name];
  if (target.force) return;
  if (locked !== undefined) {
    // One name, two sources: the installed skill is never replaced silently by another source's skill of that name.
    const same = locked.source === skill.origin.source && (locked.skillPath ?? "") === (skill.origin.skillPath ?? "");
    if (same) return;
    const from = (e: { source: string; skillPath?: string | undefined }) =>
      `${e.source}${e.skillPath ? ` (${e.skillPath})` : ""}`;
    throw new InstallError(
      `${name} is already installed from ${from(locked)}; install the one from ${from(skill.origin)} under another name with --as NAME, or --force replaces it`,
      "INSTALL_REFUSED",
    );
  }
  const places = [
    path.join(canonical, name),
    ...target.agents.map((a) => path.join(agentSkillsDir(a, target.env, target.global), name)),
  ];
  for (const place of places) {
    const st = fs.lstatSync(place, { throwIfNoEntry: false });
    if (st === undefined) continue;
    if (st.isSymbolicLink() && path.resolve(path.dirname(place), fs.readlinkSync(place)) === path.join(canonical, name))
      continue;
    const shown = path.relative(scopeRoot(target), place) || place;
    throw new InstallError(
      `${shown} already exists and was not installed by skillport; remove it or pass --force`,
      "INSTALL_REFUSED",
    );
  }
}

/** Runs one write; an errno failure becomes one line naming the entry (never a temp name) and saying the old one stays. */
function writeOrExplain(shown: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined || error instanceof AgentSkillsError) throw error;
    throw new InstallError(`could not write ${shown} (${code}); what was there before is unchanged`, "INSTALL_IO");
  }
}

function placedAgents(agents: InstalledSkill["agents"]): SidecarEntry["agents"] {
  const out: SidecarEntry["agents"] = {};
  for (const [id, how] of Object.entries(agents)) if (how !== "canonical") out[id] = how;
  return out;
}

function scopeRoot(target: Pick<InstallTarget, "env" | "global">): string {
  return target.global ? target.env.home : target.env.cwd;
}

function emptyLock(): LockFile {
  return { version: 1, skills: {} };
}
