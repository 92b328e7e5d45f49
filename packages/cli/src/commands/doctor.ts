import type { Command } from "commander";
import {
  agentEnvironment,
  diagnoseInstalls,
  readLock,
  readSidecar,
  repairInstalls,
  verifyAgainstLock,
  type DoctorFinding,
  type LockEntry,
} from "@skillport/install";
import { fetchLocked } from "../install-fetch.js";
import { asCliErrors, chooseAgents } from "../install-source.js";
import { colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";

interface DoctorOptions {
  agent?: string[];
  global?: boolean;
  fix?: boolean;
  json?: boolean;
}

export function registerDoctor(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("doctor")
    .description(
      "check the installed skills against the lockfile, and per agent what it will see and offer the model: links it does not follow, name collisions, hidden skills, its listing budget (exit 1 on problems)",
    )
    .option(
      "-a, --agent <ids...>",
      "check these agents ('*' for all; default: the agents the skills were installed for)",
    )
    .option("-g, --global", "check the user's installs (under $HOME) instead of this project's")
    .option(
      "--fix",
      "repair what is safe: restore a missing copy from its verified source, put back missing or broken links, remove dangling links of ours",
    )
    .option("--json", "print one JSON object")
    .action(async (options: DoctorOptions) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        const global = options.global === true;
        const agents = options.agent !== undefined ? chooseAgents(env, { asked: options.agent }) : undefined;
        const diagnose = () =>
          diagnoseInstalls(env, global, { ...(agents !== undefined && { agents }), settings: process.env });
        let findings = await diagnose();
        let fixed: DoctorFinding[] = [];
        if (options.fix && findings.some((f) => f.fixable)) {
          const { lock } = await readLock(io.cwd);
          const sidecar = await readSidecar(io.cwd, lock);
          // Only the locked bytes are ever restored: fetched at the recorded commit and checked against both lockfiles.
          fixed = await repairInstalls(env, global, findings, async (name) => {
            io.status(`restoring ${name}…`);
            const entry = lock.skills[name] as LockEntry;
            const fetched = await fetchLocked(io, name, entry, sidecar[name]?.commit, sidecar[name]?.upstream);
            verifyAgainstLock(name, fetched.files, entry, sidecar[name]);
            return fetched.files;
          });
          findings = await diagnose();
        }
        const problems = findings.filter((f) => f.note !== true);
        if (problems.length > 0) setExit(EXIT_PROBLEMS);
        if (options.json) return printJson(io, { findings, fixed });
        const c = colors(io);
        for (const f of fixed) io.stdout(`${c.green("fixed")}  ${f.path}  ${f.code}\n`);
        for (const f of findings)
          io.stdout(`${f.path}  ${f.note ? c.yellow(f.code) : c.red(f.code)}  ${f.message}\n  fix: ${f.fix}\n`);
        if (problems.length === 0 && findings.length === 0)
          io.stdout(
            fixed.length > 0
              ? "Everything else is as the lockfile says.\n"
              : "Every installed skill is where the lockfile says, and every agent's link leads to it.\n",
          );
        else if (!options.fix && findings.some((f) => f.fixable))
          io.stdout(
            `${findings.filter((f) => f.fixable).length} of these can be repaired with skillport doctor --fix.\n`,
          );
      }).finally(() => io.status(""));
    });
}
