import type { Command } from "commander";
import { computedHash, readLock, type LockEntry } from "@skillport/install";
import { asCliErrors, fetchLocked } from "../install-source.js";
import { EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";

export function registerOutdated(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("outdated")
    .description("show the installed skills whose source changed since they were locked (exit 1 when any did)")
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      await asCliErrors(async () => {
        const { lock } = await readLock(io.cwd);
        const rows = [];
        for (const name of Object.keys(lock.skills).sort()) {
          const entry = lock.skills[name] as LockEntry;
          const latest = await fetchLocked(io, name, entry, undefined);
          const hash = computedHash(latest.files);
          rows.push({ name, source: entry.source, locked: entry.computedHash, latest: hash, commit: latest.revision ?? null, outdated: hash !== entry.computedHash });
        }
        if (rows.some((r) => r.outdated)) setExit(EXIT_PROBLEMS);
        if (options.json) return printJson(io, { skills: rows });
        const outdated = rows.filter((r) => r.outdated);
        if (outdated.length === 0) return io.stdout(`All ${rows.length} locked skill${rows.length === 1 ? " is" : "s are"} up to date.\n`);
        for (const r of outdated) io.stdout(`${r.name}  ${r.locked.slice(0, 12)} → ${r.latest.slice(0, 12)}  ${r.source}${r.commit ? ` @ ${r.commit.slice(0, 12)}` : ""}\n`);
      });
    });
}
