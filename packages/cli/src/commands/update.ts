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
import { asCliErrors, chooseAgents, fetchLocked } from "../install-source.js";
import { printJson, type CliOutput } from "../io.js";

export function registerUpdate(program: Command, io: CliOutput): void {
  program
    .command("update")
    .description("re-install the locked skills whose source changed, for the same agents, and print what changed")
    .argument("[names...]", "installed skill names (default: all in skills-lock.json)")
    .option("--json", "print one JSON object")
    .action(async (names: string[], options: { json?: boolean }) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        const { lock } = await readLock(io.cwd);
        const sidecar = await readSidecar(io.cwd, lock);
        const wanted = names.length > 0 ? names : Object.keys(lock.skills).sort();
        for (const name of wanted) if (!(name in lock.skills)) throw new InstallError(`${name}: not in skills-lock.json`, "INSTALL_USAGE");
        const updated = [];
        for (const name of wanted) {
          const entry = lock.skills[name] as LockEntry;
          const latest = await fetchLocked(io, name, entry, undefined);
          const hash = computedHash(latest.files);
          if (hash === entry.computedHash) continue;
          const side = sidecar[name];
          const { computedHash: previous, ...origin } = entry;
          const skill: SkillToInstall = { name, files: latest.files, origin: origin as SkillToInstall["origin"] };
          if (latest.revision !== undefined) skill.commit = latest.revision;
          const agents = chooseAgents(env, { recorded: Object.keys(side?.agents ?? {}) });
          const copy = Object.values(side?.agents ?? {}).includes("copy");
          await installSkills([skill], { env, global: false, agents, copy, force: false });
          const changes = side ? changedFiles(side.files, latest.files) : undefined;
          updated.push({ name, from: previous, to: hash, commit: latest.revision ?? null, changes: changes ?? null });
        }
        if (options.json) return printJson(io, { updated });
        if (updated.length === 0) return io.stdout("Everything is up to date.\n");
        for (const u of updated) {
          const what = u.changes
            ? [...u.changes.added.map((p) => `+${p}`), ...u.changes.removed.map((p) => `-${p}`), ...u.changes.modified.map((p) => `~${p}`)].join(" ")
            : "files not recorded before";
          io.stdout(`updated ${u.name}  ${u.from.slice(0, 12)} → ${u.to.slice(0, 12)}  ${what}\n`);
        }
      });
    });
}
