import type { Command } from "commander";
import type { SkillProvider } from "@skillport/core";
import { agentEnvironment, type CollectedSkill, type SkillToInstall } from "@skillport/install";
import { asCliErrors, chooseAgents, resolveInstallSource, revisionOf } from "../install-source.js";
import { CliError, EXIT_ERROR, printJson, warnOn, type CliOutput } from "../io.js";
import { normaliseRegistryUrl } from "../registry-client.js";
import { openInstallSource } from "../install-archive.js";
import { mapLimit } from "@skillport/core/internal";

type AfterFetch = typeof import("./add-after-fetch.js");

/** Skills read and validated at once. */
const READ_CONCURRENCY = 8;

interface AddOptions {
  skill?: string[];
  agent?: string[];
  global?: boolean;
  copy?: boolean;
  yes?: boolean;
  force?: boolean;
  json?: boolean;
  list?: boolean;
  registry?: string;
  as?: string;
}

export function registerAdd(program: Command, io: CliOutput): void {
  program
    .command("add")
    .description(
      "install skills from a source into the folders your agents read (one copy under .agents/skills, links from each agent's folder)",
    )
    .argument(
      "<source>",
      "owner/repo[/path][#ref] (GitHub, see SKILLPORT_GITHUB_BASE_URL), a GitHub tree URL, a path, or any source address (git+https://…#ref:path, https://…, npm:<package>)",
    )
    .option("-s, --skill <names...>", "skills to install by name ('*' for all)")
    .option("-a, --agent <ids...>", "agents to install for ('*' for all; default: the agents detected here)")
    .option("-g, --global", "install for the user (under $HOME) instead of this project")
    .option("--copy", "copy into each agent's folder instead of linking")
    .option("-y, --yes", "install every skill of the source without asking; accept skills the audit rates warn")
    .option("--force", "replace a same-named skill skillport did not install; accept skills the audit rates malicious")
    .option("--json", "print one JSON object")
    .option("-l, --list", "list the source's skills, install nothing")
    .option(
      "--registry <url>",
      "install from a Skillport registry: <source> is a skill's name there (name, @team/name, name@version)",
    )
    .option(
      "--as <name>",
      "install the one chosen skill under this name (its SKILL.md's name is rewritten to match; for two sources offering one name)",
    )
    .action(async (input: string, options: AddOptions) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        const agents = options.list ? [] : chooseAgents(env, { asked: options.agent ?? [] });
        if (options.registry !== undefined) {
          const named = registrySkillAddress(input, options.registry);
          input = named.address;
          if (!options.list) options.skill ??= [named.name];
        }
        const source = resolveInstallSource(input, io.cwd, process.env);
        // What is needed once the source is there loads while it is fetched (decision 0427): from the moment the clone
        // or download is on its way, so the loading does not hold its start back (0444); a local source, once open. A
        // failure to load surfaces where it is awaited.
        let later: Promise<AfterFetch> | undefined;
        const loadLater = (): Promise<AfterFetch> => {
          if (later === undefined) {
            later = import("./add-after-fetch.js");
            later.catch(() => undefined);
          }
          return later;
        };
        // A status line on a terminal for the slow parts (clone or download, read, audit, write); nothing when piped.
        io.status(`fetching ${source.origin.source}…`);
        const opened = await openInstallSource(source.address, io, options.list ? {} : { onFetch: loadLater });
        try {
          const ids = opened.only !== undefined ? [opened.only] : await opened.provider.discover();
          if (ids.length === 0) throw new CliError(`${opened.label}: no skills found`, 1);
          if (options.list) return listSource(io, opened.provider, ids, options.json === true);
          const {
            collectSkill,
            computedHash,
            installAuditGate,
            installSkills,
            readLock,
            readSidecar,
            recordedAudits,
            renameSkill,
          } = await loadLater();
          const chosen = chooseIds(ids, options);
          if (options.as !== undefined && chosen.length !== 1)
            throw new CliError(`--as names one skill; ${chosen.length} are chosen (pick one with --skill)`);
          const collected = await collectAll(io, opened.provider, chosen, collectSkill);
          const revision = revisionOf(opened.provider);
          // A git source without a path serves `skills/` when the repository has one: the lock's skillPath is from the repository root.
          const served = (opened.provider as { servedPath?: string }).servedPath ?? source.repoPath;
          const skills: SkillToInstall[] = collected.map((c) => {
            const origin = { ...source.origin };
            if (origin.sourceType === "github" || origin.sourceType === "git")
              origin.skillPath = skillPathOf(opened.provider, c.id, served);
            // --as: the installed SKILL.md names the new name; the sidecar keeps upstream's name and digest (decision 0420).
            const as = options.as !== undefined ? renameSkill(c, options.as) : c;
            const skill: SkillToInstall = { name: as.name, files: as.files, origin };
            if (as !== c) skill.upstream = { name: c.name, computedHash: computedHash(c.files) };
            if (revision !== undefined) skill.commit = revision;
            return skill;
          });
          // What the spec's strict validator would refuse but agents load: said, not refused (decision 0357).
          for (const c of collected)
            for (const d of c.notes)
              warnOn(io)(
                `${d.file ?? c.id}${d.line > 0 ? `:${d.line}` : ""}: ${d.message} (${d.code}; agents load it)`,
              );
          // Re-adding bytes whose consent is on record asks nothing again (decision 0350).
          const priors = options.global ? {} : recordedAudits(await readSidecar(io.cwd, (await readLock(io.cwd)).lock));
          const auditGate = installAuditGate(
            io,
            { yes: options.yes === true, force: options.force === true },
            { priors },
          );
          const installed = await installSkills(skills, {
            env,
            global: options.global === true,
            agents,
            copy: options.copy === true,
            force: options.force === true,
            auditGate,
          });
          io.status("");
          // An agent reported not to list linked skill folders will not see what was just linked for it (decision 0421).
          for (const agent of agents)
            if (agent.links?.followed === false && installed.some((s) => s.agents[agent.id] === "link"))
              warnOn(io)(
                `${agent.displayName} is reported not to list skill folders that are links (${agent.links.source}); add them for it with --copy`,
              );
          if (options.json) return printJson(io, { installed });
          // One write for all the lines (a pipe takes each write as a system call of its own).
          const lines = installed.map((s) => {
            const where = Object.entries(s.agents)
              .map(([id, how]) => `${id} (${how})`)
              .join(", ");
            return `installed ${s.name} → ${s.path}${where ? ` for ${where}` : ""}\n`;
          });
          if (lines.length > 0) io.stdout(lines.join(""));
        } finally {
          io.status("");
          await opened.close();
        }
      }).finally(() => io.status(""));
    });
}

/**
 * `--registry URL` sugar: a skill's name on the registry becomes the address of the registry's well-known index that
 * lists it — `name` the root index, `@team/name` the namespace's, `name@1.2.0` (or `@team/name@beta`) that one
 * version's (docs/registry.md).
 */
function registrySkillAddress(input: string, registry: string): { address: string; name: string } {
  const url = normaliseRegistryUrl(registry);
  const match = /^(?:@([a-z0-9][a-z0-9-]*)\/)?([a-z0-9][a-z0-9-]*)(?:@([0-9A-Za-z.+-]+))?$/.exec(input);
  if (match === null)
    throw new CliError(
      `with --registry, the source is a skill's name (name, @team/name or name@version), not ${JSON.stringify(input)}`,
      EXIT_ERROR,
    );
  const [, namespace, name = "", version] = match;
  const skill = namespace === undefined ? name : `@${namespace}/${name}`;
  if (version !== undefined)
    return { address: `${url}/api/v1/skills/${skill}/versions/${encodeURIComponent(version)}`, name };
  return { address: namespace === undefined ? url : `${url}/@${namespace}`, name };
}

/** Where a skill's SKILL.md is in its repository: a plugin layout knows (decision 0422); else the served folder and id. */
function skillPathOf(provider: object, id: string, served: string): string {
  const known = (provider as { repoPathOf?: (id: string) => string | undefined }).repoPathOf?.(id);
  return known ?? [served, id, "SKILL.md"].filter((s) => s !== "").join("/");
}

/** The ids `--skill` names (by id or its last folder), all with `*` or `--yes`, or the only one. */
function chooseIds(ids: readonly string[], options: AddOptions): string[] {
  const wanted = (options.skill ?? [])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (wanted.includes("*") || (wanted.length === 0 && (options.yes || ids.length === 1))) return [...ids];
  if (wanted.length === 0)
    throw new CliError(
      `the source has ${ids.length} skills (${ids.join(", ")}); pass --skill NAME, --skill '*' or --yes`,
    );
  return wanted.map((w) => {
    const id = ids.find((i) => i === w || i.split("/").pop() === w);
    if (id === undefined) throw new CliError(`no skill ${JSON.stringify(w)} in the source (it has ${ids.join(", ")})`);
    return id;
  });
}

/**
 * Reads and validates every chosen skill before anything is written, several at once; the first refusal in the
 * source's order is the one reported. Two skills of one name are refused.
 */
async function collectAll(
  io: CliOutput,
  provider: SkillProvider,
  ids: readonly string[],
  collectSkill: (provider: SkillProvider, id: string) => Promise<CollectedSkill>,
): Promise<CollectedSkill[]> {
  let started = 0;
  const read = await mapLimit(ids, READ_CONCURRENCY, (id) => {
    io.status(`reading and validating ${id} (${++started}/${ids.length})…`);
    return collectSkill(provider, id).then(
      (skill) => ({ skill }),
      (error: unknown) => ({ error }),
    );
  });
  const out: CollectedSkill[] = [];
  for (const [i, result] of read.entries()) {
    if ("error" in result) throw result.error;
    const skill = result.skill;
    const clash = out.find((o) => o.name === skill.name);
    if (clash)
      throw new CliError(
        `${clash.id} and ${ids[i] ?? skill.id} are both named ${JSON.stringify(skill.name)}; install one with --skill`,
        1,
      );
    out.push(skill);
  }
  return out;
}

async function listSource(
  io: CliOutput,
  provider: SkillProvider,
  ids: readonly string[],
  json: boolean,
): Promise<void> {
  const rows = await Promise.all(
    ids.map(async (id) => ({ id, description: String((await provider.getMetadata(id)).description ?? "") })),
  );
  if (json) return printJson(io, { skills: rows });
  for (const r of rows) io.stdout(`${r.id}  ${r.description.replace(/\s+/g, " ").trim()}\n`);
}
