import type { Command } from "commander";
import { skillFields } from "@skillport/core";
import { colors, EXIT_PROBLEMS, printJson, type CliIO } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";
import { positiveInteger } from "../options.js";
import { truncateColumns } from "../text-width.js";

export function registerSearch(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("search")
    .description("find skills by name, description and tags (BM25)")
    .argument("<query>", "what you are looking for")
    .argument("[roots...]", "folders of skills or skill folders, highest precedence first")
    .option("-n, --limit <n>", "most results", positiveInteger, 5)
    .option("--json", "print JSON")
    .action(async (query: string, roots: string[], options: { limit: number; json?: boolean }) => {
      const { registry, failures } = await loadSkills(roots, io);
      if (failures.length > 0) setExit(EXIT_PROBLEMS);
      const hits = registry.search(query, { limit: options.limit });
      const results = hits.map((hit) => {
        const metadata = registry.get(hit.id).getMetadata();
        return { id: hit.id, score: Number(hit.score.toFixed(4)), description: skillFields(metadata).description ?? "" };
      });
      if (options.json) {
        printJson(io, { query, results });
        return;
      }
      reportLoadProblems(io, failures, registry.shadowed);
      const c = colors(io);
      if (results.length === 0) {
        io.stdout(`No skill matches ${JSON.stringify(query)}.\n`);
        return;
      }
      for (const r of results) {
        io.stdout(`${c.bold(r.id)}  ${c.dim(r.score.toFixed(2))}\n  ${truncateColumns(r.description.replace(/\s+/g, " ").trim(), 110)}\n`);
      }
    });
}
