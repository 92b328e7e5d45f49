import type { Command } from "commander";
import {
  agentEnvironment,
  installSkills,
  InstallError,
  readLock,
  readSidecar,
  verifyAgainstLock,
  type LockEntry,
  type SkillToInstall,
} from "@skillport/install";
import { fetchLocked, OpenedSources } from "../install-fetch.js";
import { asCliErrors, chooseAgents } from "../install-source.js";
import { installAuditGate, recordedAudits } from "../install-audit.js";
import { AuditVerdicts } from "../audit-verdicts.js";
import { defaultCacheDir } from "../cache-dir.js";
import { CliError, printJson, type CliOutput } from "../io.js";
import { mapLimit } from "@skillport/core/internal";

/** Locked skills fetched and verified at once. */
const FETCH_CONCURRENCY = 8;

export function registerInstall(program: Command, io: CliOutput): void {
  program
    .command("install")
    .description(
      "restore exactly the skills skills-lock.json names (at the commits skillport-lock.json recorded), verifying every digest",
    )
    .option("--frozen", "fail on any difference from the lockfiles and never rewrite them (for CI)")
    .option("-y, --yes", "accept skills the audit rates warn that skillport-lock.json records no consent for")
    .option("--force", "accept skills the audit rates malicious that skillport-lock.json records no consent for")
    .option("--json", "print one JSON object")
    .action(async (options: { frozen?: boolean; yes?: boolean; force?: boolean; json?: boolean }) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        // Read while the skills are fetched: a restore of bytes audited before reuses their reports (decision 0428).
        const verdicts = AuditVerdicts.open(defaultCacheDir());
        const { lock } = await readLock(io.cwd);
        const sidecar = await readSidecar(io.cwd, lock);
        const names = Object.keys(lock.skills).sort();
        if (names.length === 0) throw new CliError("skills-lock.json names no skills", 1);
        const agentIds = new Set<string>();
        const sources = new OpenedSources(io);
        let started = 0;
        let skills: SkillToInstall[];
        try {
          // Several skills in flight at once (one open per source address); nothing is written until all verify.
          skills = await mapLimit(names, FETCH_CONCURRENCY, async (name) => {
            io.status(`fetching and verifying ${name} (${++started}/${names.length})…`);
            const entry = lock.skills[name] as LockEntry;
            const side = sidecar[name];
            const fetched = await fetchLocked(io, name, entry, side?.commit, side?.upstream, sources);
            verifyAgainstLock(name, fetched.files, entry, side);
            if (options.frozen && side === undefined)
              throw new InstallError(
                `${name}: skillport-lock.json has no record of its files (run skillport install without --frozen once)`,
                "INSTALL_DRIFT",
              );
            const { computedHash: _hash, ...rest } = entry;
            const skill: SkillToInstall = { name, files: fetched.files, origin: rest as SkillToInstall["origin"] };
            if (side?.commit !== undefined) skill.commit = side.commit;
            if (fetched.upstream !== undefined) skill.upstream = fetched.upstream;
            for (const id of Object.keys(side?.agents ?? {})) agentIds.add(id);
            return skill;
          });
        } finally {
          await sources.close();
        }
        const agents = chooseAgents(env, { recorded: agentIds });
        const copy = names.some((n) => Object.values(sidecar[n]?.agents ?? {}).includes("copy"));
        // Consent recorded at add counts only for the bytes it was given for; --frozen never gives new consent (decision 0350).
        const consent = { yes: options.yes === true, force: options.force === true, frozen: options.frozen === true };
        const auditGate = installAuditGate(io, consent, {
          priors: recordedAudits(sidecar),
          quietReview: true,
          verdicts: await verdicts,
        });
        const installed = await installSkills(skills, {
          env,
          global: false,
          agents,
          copy,
          force: true,
          record: !options.frozen,
          auditGate,
        }).finally(() => io.status(""));
        if (options.json) return printJson(io, { installed });
        // One write for all the lines (a pipe takes each write as a system call of its own).
        io.stdout(installed.map((s) => `installed ${s.name} (${s.computedHash.slice(0, 12)})\n`).join(""));
      }).finally(() => io.status(""));
    });
}
