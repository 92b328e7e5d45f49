import type { Command } from "commander";
import { skillFields } from "@skillport/core";
import { colors, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { reportLoadProblems, withSkills } from "../load.js";
import { displayWidth, padEndColumns, truncateColumns } from "../text-width.js";

export function registerList(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("list")
    .description(
      "list the skills in folders of skills or databases (default: .agents/skills and .claude/skills around here)",
    )
    .argument(
      "[roots...]",
      "folders of skills, skill folders or source addresses (sqlite:./x.db, postgres://…, mysql://…, git+https://…#ref:path, https://…, npm:<package>), highest precedence first",
    )
    .option("--json", "print JSON")
    .option("--all", "include skills shadowed by a higher-precedence source")
    .option(
      "--installed",
      "list the skills installed here (skills-lock.json and .agents/skills): source, ref, commit, digest, agents",
    )
    .option("-g, --global", "with --installed: the user's scope (under $HOME)")
    .action(
      async (roots: string[], options: { json?: boolean; all?: boolean; installed?: boolean; global?: boolean }) => {
        if (options.installed)
          return (await import("./list-installed.js")).listInstalledSkills(
            io,
            options.global === true,
            options.json === true,
            setExit,
          );
        await withSkills(roots, io, async ({ registry, failures, skipped }) => {
          if (failures.length > 0) setExit(EXIT_PROBLEMS);
          const entries = registry.list({ includeShadowed: options.all });
          const winners = new Set(registry.list().map((e) => e.qualifiedId));
          const rows = await Promise.all(
            entries.map(async (e) => {
              const fields = skillFields(e.getMetadata());
              return {
                id: e.id,
                qualifiedId: e.qualifiedId,
                name: fields.name || e.id,
                description: fields.description ?? "",
                source: e.source,
                location: (await e.getLocation()) ?? null,
                shadowed: !winners.has(e.qualifiedId),
                warnings: e.diagnostics.map((d) => ({ code: d.code, message: d.message })),
              };
            }),
          );
          if (options.json) {
            printJson(io, {
              skills: rows,
              shadowed: registry.shadowed,
              failures: failures.map((f) => ({ source: f.source, id: f.id ?? null, message: f.message })),
              skipped,
            });
            return;
          }
          reportLoadProblems(io, failures, registry.shadowed, skipped);
          const c = colors(io);
          if (rows.length === 0) {
            io.stdout("No skills found.\n");
            return;
          }
          const width = Math.min(32, Math.max(...rows.map((r) => displayWidth(r.id))));
          for (const row of rows) {
            const short = truncateColumns(row.description.replace(/\s+/g, " ").trim(), 90);
            io.stdout(
              `${c.bold(padEndColumns(row.id, width))}  ${short}${row.shadowed ? c.dim(`  (shadowed: ${row.qualifiedId})`) : ""}\n`,
            );
          }
          io.stdout(
            c.dim(
              `\n${rows.length} skill${rows.length === 1 ? "" : "s"} from ${registry.sources.length} source${registry.sources.length === 1 ? "" : "s"}\n`,
            ),
          );
        });
      },
    );
}
