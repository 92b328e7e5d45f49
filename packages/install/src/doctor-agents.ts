import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter, renderCatalogWithCounts, type CatalogEntry, type Frontmatter } from "@skillport/core";
import { isHiddenFromModel } from "@skillport/core/internal";
import { agentSkillsDir, canonicalSkillsDir, type AgentEnvironment, type AgentSpec } from "./agents.js";
import type { DoctorFinding } from "./doctor-finding.js";
import { entryNames } from "./installer.js";
import type { LockFile, SidecarEntry } from "./lock.js";

/** Largest SKILL.md read to learn what an agent lists (its frontmatter is all that is used). */
const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** What the agent checks are run for. */
export interface AgentScope {
  env: AgentEnvironment;
  global: boolean;
  lock: LockFile;
  sidecar: Readonly<Record<string, SidecarEntry>>;
}

/** One skill folder an agent scans, as the agent would list it. */
interface Seen {
  /** The folder's name in the agent's skills folder. */
  folder: string;
  /** Absolute path of the entry. */
  place: string;
  scope: "project" | "global";
  link: boolean;
  /** The frontmatter name (else the folder name). */
  name: string;
  frontmatter: Frontmatter;
}

/**
 * What each agent will see and offer the model (decision 0421): per agent, the skill folders it scans in this scope
 * (project: its project folder, then its global one; `-g`: the global one), read as the agent lists them.
 * - `link-ignored`: a skill folder that is a link, in an agent known not to list links (the agents table says where
 *   that was reported); the fix is `--copy`.
 * - `not-visible` (only for agents asked for by name): an installed skill the agent has no entry for.
 * - `collision`: two folders the agent scans carry one frontmatter name; `shadowed`: one name in its project and its
 *   global folder (the lock-based check says the same for locked skills; the caller merges them).
 * - `hidden` (a note): a skill the agent sees marked `disable-model-invocation: true` — it will not offer it.
 * - `over-budget`: the agent's skill listing has a known size (the table's `catalog`) and the skills it sees do not
 *   fit: the catalog rendering of core decides which are left out, one finding per skill left out.
 */
export function diagnoseAgents(
  scope: AgentScope,
  agents: readonly AgentSpec[],
  options: { asked: boolean; settings: Readonly<Record<string, string | undefined>> },
): DoctorFinding[] {
  const canonical = canonicalSkillsDir(scope.env, scope.global);
  const base = scope.global ? scope.env.home : scope.env.cwd;
  const shown = (place: string) => path.relative(base, place) || place;
  const installed = [...new Set([...Object.keys(scope.lock.skills), ...entryNames(canonical)])].sort();
  const out: DoctorFinding[] = [];
  for (const agent of agents) {
    const dir = agentSkillsDir(agent, scope.env, scope.global);
    const readsCanonical = path.resolve(dir) === path.resolve(canonical);
    const seen = scanAgent(agent, scope);
    const again = (name: string) =>
      `skillport add ${scope.lock.skills[name]?.source ?? "<its source>"} --skill ${name} --agent ${agent.id}` +
      `${agent.links?.followed === false ? " --copy" : ""}${scope.global ? " -g" : ""}`;
    for (const s of seen) {
      if (!s.link || agent.links?.followed !== false) continue;
      out.push({
        code: "link-ignored",
        skill: s.name,
        agent: agent.id,
        path: shown(s.place),
        message: `${agent.displayName} does not list a skill folder that is a link (${agent.links.source}); ${shown(s.place)} is one, so it will not see ${s.name}`,
        fix: `install a copy for it: ${again(s.folder)}`,
        fixable: false,
      });
    }
    if (options.asked && !readsCanonical) {
      for (const name of installed) {
        if (scope.sidecar[name]?.agents[agent.id] !== undefined) continue; // the lock check reports it (missing-link)
        const place = path.join(dir, name);
        if (fs.lstatSync(place, { throwIfNoEntry: false }) !== undefined) continue;
        out.push({
          code: "not-visible",
          skill: name,
          agent: agent.id,
          path: shown(place),
          message: `${agent.displayName} will not see ${name}: it reads ${shown(dir)}, which has no ${name}`,
          fix: again(name),
          fixable: false,
        });
      }
    }
    const byName = new Map<string, Seen[]>();
    for (const s of seen) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    for (const [name, group] of [...byName].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (group.length < 2) continue;
      const [first, second] = group as [Seen, Seen];
      const folders = new Set(group.map((g) => g.folder));
      const where = group.map((g) => shown(g.place)).join(", ");
      if (folders.size === 1 && first.scope !== second.scope) {
        out.push({
          code: "shadowed",
          skill: name,
          agent: agent.id,
          path: second.place,
          message: `${agent.displayName} also loads a global ${name} (${second.place}): two skills of one name, and which one it uses is the agent's choice`,
          fix: `remove one of them (skillport remove -g ${name}, or skillport remove ${name})`,
          fixable: false,
        });
      } else {
        out.push({
          code: "collision",
          skill: name,
          agent: agent.id,
          path: shown(second.place),
          message: `${agent.displayName} sees ${group.length} skills named ${name} (${where}): it loads one of them, and which is its choice`,
          fix: `remove one, or rename it (its folder and the name in its SKILL.md; skillport add … --as NEW installs under another name)`,
          fixable: false,
        });
      }
    }
    for (const s of seen) {
      if (!isHiddenFromModel(s.frontmatter)) continue;
      out.push({
        code: "hidden",
        skill: s.name,
        agent: agent.id,
        path: shown(s.place),
        message: `${s.name} says disable-model-invocation: true, so ${agent.displayName} will not offer it to the model (a user can still call it by name)`,
        fix: "nothing, if that is meant; else remove disable-model-invocation from its SKILL.md",
        fixable: false,
        note: true,
      });
    }
    if (agent.catalog !== undefined) out.push(...overBudget(agent, seen, options.settings, shown));
  }
  return out;
}

/** The skills the agent's listing leaves out at its known size, as core's catalog rendering decides (an estimate). */
function overBudget(
  agent: AgentSpec,
  seen: readonly Seen[],
  settings: Readonly<Record<string, string | undefined>>,
  shown: (place: string) => string,
): DoctorFinding[] {
  const catalog = agent.catalog;
  if (catalog === undefined) return [];
  const entries: CatalogEntry[] = [];
  const places = new Map<string, string>();
  for (const s of seen) {
    if (places.has(s.name)) continue; // the first of one name (the project's) is the one listed
    places.set(s.name, s.place);
    const description = [s.frontmatter.description, s.frontmatter.when_to_use]
      .filter((v): v is string => typeof v === "string")
      .join(" ");
    entries.push({ id: s.name, name: s.name, description, metadata: s.frontmatter, source: s.scope });
  }
  const options = {
    format: "agentscope" as const,
    layout: "compact" as const,
    instruction: "Skills",
    searchTool: false as const,
    ...(catalog.maxEntryChars !== undefined && { maxEntryChars: catalog.maxEntryChars }),
  };
  const maxChars = catalog.maxChars(settings);
  const budgeted = renderCatalogWithCounts(entries, { ...options, maxChars });
  if (budgeted.shown >= budgeted.total) return [];
  const needed = renderCatalogWithCounts(entries, options).text.length;
  const listed = new Set(
    budgeted.text
      .split("\n")
      .filter((l) => l.startsWith("- "))
      .map((l) => l.slice(2, l.indexOf(": "))),
  );
  const longest = [...entries].sort((a, b) => b.description.length - a.description.length)[0];
  const left = entries.filter((e) => !listed.has(e.id) && !isHiddenFromModel(e.metadata));
  return left.map((e) => ({
    code: "over-budget" as const,
    skill: e.id,
    agent: agent.id,
    path: shown(places.get(e.id) ?? e.id),
    message: `${agent.displayName} lists skills in ${maxChars.toLocaleString("en")} characters (${catalog.source}); the ${budgeted.total} it sees need about ${needed.toLocaleString("en")}, so ${left.length} are left out of what the model is offered, ${e.id} among them`,
    fix: `shorten the longest descriptions (${longest?.id ?? ""}: ${longest?.description.length ?? 0} chars) or remove skills not used here`,
    fixable: false,
  }));
}

/** The skill folders an agent scans in this scope, project first, each read for its frontmatter. */
function scanAgent(agent: AgentSpec, scope: AgentScope): Seen[] {
  const dirs: { dir: string; scope: Seen["scope"] }[] = scope.global
    ? [{ dir: agent.globalDir(scope.env), scope: "global" }]
    : [
        { dir: agentSkillsDir(agent, scope.env, false), scope: "project" },
        { dir: agent.globalDir(scope.env), scope: "global" },
      ];
  const out: Seen[] = [];
  const done = new Set<string>();
  for (const { dir, scope: where } of dirs) {
    if (done.has(path.resolve(dir))) continue;
    done.add(path.resolve(dir));
    for (const folder of entryNames(dir).sort()) {
      const place = path.join(dir, folder);
      const frontmatter = readFrontmatter(path.join(place, "SKILL.md"));
      if (frontmatter === undefined) continue;
      const name = typeof frontmatter.name === "string" && frontmatter.name !== "" ? frontmatter.name : folder;
      const link = fs.lstatSync(place, { throwIfNoEntry: false })?.isSymbolicLink() === true;
      out.push({ folder, place, scope: where, link, name, frontmatter });
    }
  }
  return out;
}

/** A SKILL.md's frontmatter, undefined when it is missing, not a file, too large or has none. */
function readFrontmatter(file: string): Frontmatter | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (st === undefined || !st.isFile() || st.size > MAX_SKILL_MD_BYTES) return undefined;
  try {
    return parseFrontmatter(fs.readFileSync(file)).frontmatter;
  } catch {
    return undefined;
  }
}
