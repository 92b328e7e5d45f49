import type { Command } from "commander";
import { colors, printJson, type CliIO } from "../io.js";
import { allFailures, loadSkills, reportLoadProblems } from "../load.js";
import { displayWidth, padEndColumns, truncateColumns } from "../text-width.js";

export function registerList(program: Command, io: CliIO): void {
  program
    .command("list")
    .description("list the skills in folders of skills (default: .agents/skills and .claude/skills around here)")
    .argument("[roots...]", "folders of skills or skill folders, highest precedence first")
    .option("--json", "print JSON")
    .option("--all", "include skills shadowed by a higher-precedence source")
    .action(async (roots: string[], options: { json?: boolean; all?: boolean }) => {
      const loaded = await loadSkills(roots, io);
      const { registry } = loaded;
      const entries = registry.list({ includeShadowed: options.all });
      const winners = new Set(registry.list().map((e) => e.qualifiedId));
      const rows = await Promise.all(
        entries.map(async (e) => {
          const metadata = e.getMetadata();
          return {
            id: e.id,
            qualifiedId: e.qualifiedId,
            name: typeof metadata.name === "string" ? metadata.name : e.id,
            description: typeof metadata.description === "string" ? metadata.description : "",
            source: e.source,
            location: (await e.getLocation()) ?? null,
            shadowed: !winners.has(e.qualifiedId),
            warnings: e.diagnostics.map((d) => ({ code: d.code, message: d.message })),
          };
        }),
      );
      if (options.json) {
        const skipped = loaded.skipped.filter((s) => s.severity !== "error").map((s) => ({ source: s.source, folder: s.folder, code: s.code, message: s.message }));
        printJson(io, { skills: rows, shadowed: registry.shadowed, failures: allFailures(loaded), skipped });
        return;
      }
      reportLoadProblems(io, registry.failures, registry.shadowed, loaded.skipped);
      const c = colors(io);
      if (rows.length === 0) {
        io.stdout("No skills found.\n");
        return;
      }
      const width = Math.min(32, Math.max(...rows.map((r) => displayWidth(r.id))));
      for (const row of rows) {
        const short = truncateColumns(row.description.replace(/\s+/g, " ").trim(), 90);
        io.stdout(`${c.bold(padEndColumns(row.id, width))}  ${short}${row.shadowed ? c.dim(`  (shadowed: ${row.qualifiedId})`) : ""}\n`);
      }
      io.stdout(c.dim(`\n${rows.length} skill${rows.length === 1 ? "" : "s"} from ${registry.sources.length} source${registry.sources.length === 1 ? "" : "s"}\n`));
    });
}
