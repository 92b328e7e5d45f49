import type { Command } from "commander";
import { auditSkill } from "@skillport/audit";
import { agentEnvironment, computedHash, readLock, readSidecar, type LockEntry } from "@skillport/install";
import { fetchLocked, OpenedSources } from "../install-fetch.js";
import { asCliErrors } from "../install-source.js";
import { installedReport, riskOf } from "../install-audit.js";
import { EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";

interface OutdatedRow {
  name: string;
  source: string;
  locked: string;
  latest: string;
  commit: string | null;
  outdated: boolean;
  /** Outdated rows only: the audit verdict installed (null: no intact copy to compare) and now served. */
  verdict?: { before: string | null; after: string };
  riskGrew?: boolean;
  riskChanges?: string[];
}

export function registerOutdated(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("outdated")
    .description(
      "show the installed skills whose source changed since they were locked, with the audit verdict change (exit 1 when any did)",
    )
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      await asCliErrors(async () => {
        const env = agentEnvironment(process.env, io.cwd);
        const { lock } = await readLock(io.cwd);
        const sidecar = await readSidecar(io.cwd, lock);
        const rows: OutdatedRow[] = [];
        const names = Object.keys(lock.skills).sort();
        // One open per address: a repository holding many locked skills is fetched once.
        const sources = new OpenedSources(io);
        try {
          for (const [i, name] of names.entries()) {
            io.status(`fetching ${name} (${i + 1}/${names.length})…`);
            const entry = lock.skills[name] as LockEntry;
            const latest = await fetchLocked(io, name, entry, undefined, sidecar[name]?.upstream, sources);
            const hash = computedHash(latest.files);
            const row: OutdatedRow = {
              name,
              source: entry.source,
              locked: entry.computedHash,
              latest: hash,
              commit: latest.revision ?? null,
              outdated: hash !== entry.computedHash,
            };
            if (!row.outdated) {
              rows.push(row);
              continue;
            }
            // What `update` would ask about: the verdict now served against the installed one, and whether the surface grows.
            const risk = riskOf(await installedReport(io, env, name, entry, sidecar[name]), auditSkill(latest.files));
            rows.push({
              ...row,
              verdict: risk.verdict,
              riskGrew: risk.grew,
              riskChanges: risk.changes.map((c) => c.statement),
            });
          }
        } finally {
          await sources.close();
        }
        io.status("");
        if (rows.some((r) => r.outdated)) setExit(EXIT_PROBLEMS);
        if (options.json) return printJson(io, { skills: rows });
        const outdated = rows.filter((r) => r.outdated);
        if (outdated.length === 0)
          return io.stdout(`All ${rows.length} locked skill${rows.length === 1 ? " is" : "s are"} up to date.\n`);
        for (const r of outdated) {
          const v = r.verdict;
          const verdict = v && v.before !== v.after ? `  verdict ${v.before ?? "unknown"} → ${v.after}` : "";
          const grew = r.riskGrew ? `  risk grew (${r.riskChanges?.length ?? 0} new)` : "";
          io.stdout(
            `${r.name}  ${r.locked.slice(0, 12)} → ${r.latest.slice(0, 12)}  ${r.source}${r.commit ? ` @ ${r.commit.slice(0, 12)}` : ""}${verdict}${grew}\n`,
          );
        }
      }).finally(() => io.status(""));
    });
}
