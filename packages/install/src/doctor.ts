import fs from "node:fs";
import path from "node:path";
import {
  agentSkillsDir,
  AGENTS,
  canonicalSkillsDir,
  findAgent,
  type AgentEnvironment,
  type AgentSpec,
} from "./agents.js";
import { diagnoseAgents } from "./doctor-agents.js";
import type { DoctorFinding } from "./doctor-finding.js";
import { computedHash, type SkillFileBytes } from "./digest.js";
import { entryNames, readFolder } from "./installer.js";
import { readLock, readSidecar, type LockFile, type SidecarEntry } from "./lock.js";
import { openTarget, removeEntry, writeFolder, writeLink } from "./place.js";

/** Which agents `diagnoseInstalls` checks what they see for (decision 0421). */
export interface DoctorOptions {
  /**
   * Agents named by the user (`doctor --agent`): each is checked, and an installed skill it has no entry for is
   * `not-visible`. Default: the agents the sidecar recorded (in `-g`, those holding an entry for an installed skill).
   */
  agents?: readonly AgentSpec[];
  /** Process-style settings an agent's limits read (`SLASH_COMMAND_TOOL_CHAR_BUDGET`). Default none. */
  settings?: Readonly<Record<string, string | undefined>>;
}

interface Scope {
  env: AgentEnvironment;
  global: boolean;
  base: string;
  canonical: string;
  lock: LockFile;
  sidecar: Record<string, SidecarEntry>;
}

async function scopeOf(env: AgentEnvironment, global: boolean): Promise<Scope> {
  const base = global ? env.home : env.cwd;
  const { lock } = global ? { lock: { version: 1, skills: {} } } : await readLock(base);
  const sidecar = global ? {} : await readSidecar(base, lock);
  return { env, global, base, canonical: canonicalSkillsDir(env, global), lock, sidecar };
}

/**
 * Compares what the lock says with what is on disk. For each locked skill: the canonical copy (missing, modified),
 * each recorded agent's entry (missing, a link that leads nowhere, something that is not ours, a modified copy), and
 * a same-named skill in that agent's global folder that the agent also loads. Then what is on disk and not locked:
 * canonical folders (extra) and links into the canonical folder that lead nowhere. Global scope has no lock: only the
 * links are checked.
 */
export async function diagnoseInstalls(
  env: AgentEnvironment,
  global: boolean,
  options: DoctorOptions = {},
): Promise<DoctorFinding[]> {
  const scope = await scopeOf(env, global);
  const findings = lockAgainstDisk(scope);
  // Then what each agent sees; a finding the lock check made already (shadowed) is said once.
  const said = new Set(findings.map((f) => `${f.code} ${f.skill} ${f.agent ?? ""}`));
  const agents = options.agents ?? placedFor(scope);
  const seen = diagnoseAgents(scope, agents, { asked: options.agents !== undefined, settings: options.settings ?? {} });
  for (const f of seen) if (!said.has(`${f.code} ${f.skill} ${f.agent ?? ""}`)) findings.push(f);
  return findings;
}

/** The agents skills were placed for: the sidecar's record (project), or those holding an installed name (`-g`). */
function placedFor(scope: Scope): AgentSpec[] {
  const ids = new Set(Object.values(scope.sidecar).flatMap((e) => Object.keys(e.agents)));
  if (scope.global) {
    const names = entryNames(scope.canonical);
    for (const agent of AGENTS) {
      const dir = agentSkillsDir(agent, scope.env, true);
      if (path.resolve(dir) === path.resolve(scope.canonical)) continue;
      if (names.some((n) => fs.lstatSync(path.join(dir, n), { throwIfNoEntry: false }) !== undefined))
        ids.add(agent.id);
    }
  }
  return AGENTS.filter((a) => ids.has(a.id));
}

function lockAgainstDisk(scope: Scope): DoctorFinding[] {
  const global = scope.global;
  const findings: DoctorFinding[] = [];
  for (const name of Object.keys(scope.lock.skills).sort()) findings.push(...lockedSkill(scope, name));
  const locked = new Set(Object.keys(scope.lock.skills));
  if (!global) {
    for (const name of entryNames(scope.canonical).sort()) {
      if (locked.has(name)) continue;
      findings.push({
        code: "extra",
        skill: name,
        path: shown(scope, path.join(scope.canonical, name)),
        message: `${name} is in ${shown(scope, scope.canonical)} but not in skills-lock.json: a teammate restoring the lock will not get it`,
        fix: `record it with skillport add <its source>, or take it away with skillport remove ${name}`,
        fixable: false,
      });
    }
  }
  for (const agentDir of otherAgentDirs(scope)) {
    for (const name of entryNames(agentDir).sort()) {
      if (locked.has(name)) continue;
      const place = path.join(agentDir, name);
      const target = linkTarget(place);
      if (target === undefined || path.dirname(target) !== scope.canonical || fs.existsSync(target)) continue;
      findings.push({
        code: "broken-link",
        skill: name,
        path: shown(scope, place),
        message: `${shown(scope, place)} links to ${shown(scope, target)}, which does not exist: the agent sees a broken skill`,
        fix: "doctor --fix removes the link (it points into skillport's folder and leads nowhere)",
        fixable: true,
      });
    }
  }
  return findings;
}

function lockedSkill(scope: Scope, name: string): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const entry = scope.lock.skills[name];
  const folder = path.join(scope.canonical, name);
  const present = fs.lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  if (!present) {
    out.push({
      code: "missing",
      skill: name,
      path: shown(scope, folder),
      message: `${name} is in skills-lock.json but ${shown(scope, folder)} is missing`,
      fix: "doctor --fix (or skillport install) restores the locked bytes",
      fixable: true,
    });
  } else if (entry !== undefined && computedHash(readFolder(folder)) !== entry.computedHash) {
    out.push({
      code: "modified",
      skill: name,
      path: shown(scope, folder),
      message: `${shown(scope, folder)} differs from skills-lock.json (edited since install)`,
      fix: "keep the edits by making them upstream; skillport install puts the locked bytes back (the edits are lost)",
      fixable: false,
    });
  }
  const recorded = scope.sidecar[name]?.agents ?? {};
  for (const [id, how] of Object.entries(recorded)) {
    const agent = findAgent(id);
    if (agent === undefined) continue;
    const place = path.join(agentSkillsDir(agent, scope.env, scope.global), name);
    const where = shown(scope, place);
    const st = fs.lstatSync(place, { throwIfNoEntry: false });
    const target = linkTarget(place);
    if (st === undefined) {
      out.push({
        code: "missing-link",
        skill: name,
        agent: id,
        path: where,
        message: `${agent.displayName} will not see ${name}: ${where} is missing`,
        fix: `doctor --fix puts the ${how} back`,
        fixable: true,
      });
    } else if (target !== undefined && target === folder) {
      if (!present)
        out.push({
          code: "broken-link",
          skill: name,
          agent: id,
          path: where,
          message: `${where} links to the missing ${shown(scope, folder)}`,
          fix: "doctor --fix restores the canonical copy the link points at",
          fixable: true,
        });
    } else if (how === "copy" && target === undefined && st.isDirectory() && scope.lock.skills[name] !== undefined) {
      if (computedHash(readFolder(place)) !== scope.lock.skills[name]?.computedHash) {
        out.push({
          code: "modified-copy",
          skill: name,
          agent: id,
          path: where,
          message: `${agent.displayName}'s copy ${where} differs from skills-lock.json`,
          fix: "skillport install writes the locked copy back (the edits are lost)",
          fixable: false,
        });
      }
    } else {
      const what = target !== undefined ? `a link to ${shown(scope, target)}` : "a folder skillport did not write";
      out.push({
        code: "not-ours",
        skill: name,
        agent: id,
        path: where,
        message: `${agent.displayName} loads ${what} at ${where}, not the installed ${name}`,
        fix: `remove ${where}, then doctor --fix links it again`,
        fixable: false,
      });
    }
  }
  if (!scope.global) out.push(...shadowing(scope, name, Object.keys(recorded)));
  return out;
}

/** A same-named skill in an agent's global folder: the agent lists two skills of one name and which one wins is its choice. */
function shadowing(scope: Scope, name: string, agentIds: readonly string[]): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  // The recorded agents, and those reading the canonical folder directly (they need no link, so none is recorded).
  const readers = AGENTS.filter(
    (a) => path.resolve(agentSkillsDir(a, scope.env, false)) === path.resolve(scope.canonical),
  ).map((a) => a.id);
  for (const id of [...new Set([...agentIds, ...readers])].sort()) {
    const agent = findAgent(id);
    if (agent === undefined) continue;
    const globalPlace = path.join(agent.globalDir(scope.env), name);
    if (fs.lstatSync(globalPlace, { throwIfNoEntry: false }) === undefined) continue;
    out.push({
      code: "shadowed",
      skill: name,
      agent: id,
      path: globalPlace,
      message: `${agent.displayName} also loads a global ${name} (${globalPlace}): two skills of one name, and which one it uses is the agent's choice`,
      fix: `remove one of them (skillport remove -g ${name}, or skillport remove ${name})`,
      fixable: false,
    });
  }
  return out;
}

/**
 * Repairs what is fixable: a missing canonical copy from `fetchVerified` (which must return the locked bytes, checked
 * against the lock), then missing and broken links or copies of locked skills, then dangling links of ours to skills
 * no longer locked. Returns the findings it repaired.
 */
export async function repairInstalls(
  env: AgentEnvironment,
  global: boolean,
  findings: readonly DoctorFinding[],
  fetchVerified: (name: string) => Promise<SkillFileBytes[]>,
): Promise<DoctorFinding[]> {
  const scope = await scopeOf(env, global);
  const fixed: DoctorFinding[] = [];
  for (const f of findings) {
    if (!f.fixable) continue;
    const folder = path.join(scope.canonical, f.skill);
    if (f.code === "missing") {
      const files = await fetchVerified(f.skill);
      withDir(scope, scope.canonical, (dir) => writeFolder(dir, f.skill, files));
    } else if (f.agent !== undefined && (f.code === "missing-link" || f.code === "broken-link")) {
      const agent = findAgent(f.agent);
      if (agent === undefined || !fs.existsSync(folder)) continue;
      const agentDir = agentSkillsDir(agent, scope.env, scope.global);
      if (scope.sidecar[f.skill]?.agents[f.agent] === "copy")
        withDir(scope, agentDir, (dir) => writeFolder(dir, f.skill, readFolder(folder)));
      else withDir(scope, agentDir, (dir) => writeLink(dir, f.skill, path.relative(agentDir, folder)));
    } else if (f.code === "broken-link") {
      const place = path.resolve(scope.base, f.path);
      withDir(scope, path.dirname(place), (dir) => removeEntry(dir, f.skill));
    } else continue;
    fixed.push(f);
  }
  return fixed;
}

function withDir(scope: Scope, dir: string, act: (pinned: ReturnType<typeof openTarget>) => void): void {
  const pinned = openTarget(scope.base, dir);
  try {
    act(pinned);
  } finally {
    pinned.close();
  }
}

/** Agent folders other than the canonical one, each once. */
function otherAgentDirs(scope: Scope): string[] {
  const dirs = new Set(AGENTS.map((a) => path.resolve(agentSkillsDir(a, scope.env, scope.global))));
  dirs.delete(path.resolve(scope.canonical));
  return [...dirs].sort();
}

/** The absolute target of a link, undefined when `place` is not a link. */
function linkTarget(place: string): string | undefined {
  const st = fs.lstatSync(place, { throwIfNoEntry: false });
  return st?.isSymbolicLink() ? path.resolve(path.dirname(place), fs.readlinkSync(place)) : undefined;
}

function shown(scope: Scope, place: string): string {
  return path.relative(scope.base, place) || place;
}
