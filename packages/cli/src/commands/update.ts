import type { Command } from "commander";
import {
  agentEnvironment,
  changedFiles,
  computedHash,
  installSkills,
  InstallError,
  readLock,
  readSidecar,
  type LockEntry,
  type SkillToInstall,
} from "@skillport/install";
import { auditSkill } from "@skillport/audit";
import { fetchLocked, OpenedSources } from "../install-fetch.js";
import { asCliErrors, chooseAgents } from "../install-source.js";
import { installAuditGate, installedReport, riskOf, type PriorAudit } from "../install-audit.js";
import { colors, printJson, type CliOutput } from "../io.js";
import { normaliseRegistryUrl } from "../registry-client.js";

interface UpdateOptions {
  yes?: boolean;
  force?: boolean;
  json?: boolean;
  registry?: string;
}

export function registerUpdate(program: Command, io: CliOutput): void {
  program
    .command("update")
    .description(
      "re-install the locked skills whose source changed, for the same agents; print what changed and how the risk surface grew",
    )
    .argument("[names...]", "installed skill names (default: all in skills-lock.json)")
    .option("-y, --yes", "accept updates whose risk surface grew to a warn verdict")
    .option("--force", "accept updates whose risk surface grew to a malicious verdict")
    .option("--json", "print one JSON object")
    .option("--registry <url>", "only the skills installed from this Skillport registry (add NAME --registry URL)")
    .action(async (names: string[], options: UpdateOptions) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        const { lock } = await readLock(io.cwd);
        const sidecar = await readSidecar(io.cwd, lock);
        const registry = options.registry === undefined ? undefined : normaliseRegistryUrl(options.registry);
        // A registry's sources are its well-known addresses: the registry itself, `/@team`, `/api/v1/skills/…`.
        const fromRegistry = (name: string) =>
          registry === undefined ||
          lock.skills[name]?.source === registry ||
          (lock.skills[name]?.source ?? "").startsWith(`${registry}/`);
        const wanted = (names.length > 0 ? names : Object.keys(lock.skills).sort()).filter(
          (name) => !(name in lock.skills) || fromRegistry(name),
        );
        for (const name of wanted)
          if (!(name in lock.skills)) throw new InstallError(`${name}: not in skills-lock.json`, "INSTALL_USAGE");
        // Everything is fetched, audited and diffed before anything is written: a refusal updates nothing.
        const pending = [];
        const priors: Record<string, PriorAudit> = {};
        // One open per address: a repository holding many locked skills is fetched once.
        const sources = new OpenedSources(io);
        try {
          for (const [i, name] of wanted.entries()) {
            io.status(`fetching ${name} (${i + 1}/${wanted.length})…`);
            const entry = lock.skills[name] as LockEntry;
            const latest = await fetchLocked(io, name, entry, undefined, sidecar[name]?.upstream, sources);
            const hash = computedHash(latest.files);
            if (hash === entry.computedHash) continue;
            const side = sidecar[name];
            const risk = riskOf(await installedReport(io, env, name, entry, side), auditSkill(latest.files));
            priors[name] = { ...(side?.audit ? { audit: side.audit } : {}), ...(risk.diff ? { diff: risk.diff } : {}) };
            const { computedHash: previous, ...origin } = entry;
            const skill: SkillToInstall = { name, files: latest.files, origin: origin as SkillToInstall["origin"] };
            if (latest.revision !== undefined) skill.commit = latest.revision;
            if (latest.upstream !== undefined) skill.upstream = latest.upstream;
            pending.push({ skill, side, previous, hash, risk, revision: latest.revision ?? null });
          }
        } finally {
          await sources.close();
        }
        io.status("");
        if (!options.json) for (const p of pending) if (p.risk.grew) showGrowth(io, p.skill.name, p.risk);
        const records = await installAuditGate(
          io,
          { yes: options.yes === true, force: options.force === true },
          { priors, verb: "updated" },
        )(pending.map((p) => p.skill));
        const updated = [];
        for (const { skill, side, previous, hash, risk, revision } of pending) {
          const agents = chooseAgents(env, { recorded: Object.keys(side?.agents ?? {}) });
          const copy = Object.values(side?.agents ?? {}).includes("copy");
          const record = records[skill.name];
          await installSkills([skill], {
            env,
            global: false,
            agents,
            copy,
            force: false,
            auditGate: () => Promise.resolve(record ? { [skill.name]: record } : {}),
          }).finally(() => io.status(""));
          const changes = side ? changedFiles(side.files, skill.files) : null;
          updated.push({
            name: skill.name,
            from: previous,
            to: hash,
            commit: revision,
            changes,
            risk: { verdict: risk.verdict, grew: risk.grew, changes: risk.changes },
          });
        }
        if (options.json) return printJson(io, { updated });
        if (updated.length === 0) return io.stdout("Everything is up to date.\n");
        for (const u of updated) {
          const what = u.changes
            ? [
                ...u.changes.added.map((p) => `+${p}`),
                ...u.changes.removed.map((p) => `-${p}`),
                ...u.changes.modified.map((p) => `~${p}`),
              ].join(" ")
            : "files not recorded before";
          const risk = u.risk.grew
            ? `  risk grew (${u.risk.verdict.before ?? "unknown"} → ${u.risk.verdict.after}${u.risk.changes.length > 0 ? `, ${u.risk.changes.length} new` : ""})`
            : "";
          io.stdout(`updated ${u.name}  ${u.from.slice(0, 12)} → ${u.to.slice(0, 12)}  ${what}${risk}\n`);
        }
      }).finally(() => io.status(""));
    });
}

/** What an update adds to a skill's risk surface, on stderr before any consent is asked for. */
function showGrowth(io: CliOutput, name: string, risk: ReturnType<typeof riskOf>): void {
  const c = colors(io);
  const before = risk.verdict.before ?? "no installed copy to compare";
  io.stderr(
    `${c.yellow("risk")}  ${name}: the update adds to what it fetches, runs or may do (verdict ${before} → ${risk.verdict.after})\n`,
  );
  for (const change of risk.changes) {
    const where = change.where ? ` (${change.where.file}:${change.where.line}:${change.where.column})` : "";
    io.stderr(`  + ${change.statement}${where}\n`);
  }
}
