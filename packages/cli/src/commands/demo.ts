import type { Command } from "commander";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { packDirectoryToFile } from "@skillport/pack";
import { Workspace } from "@skillport/runtime";
import { displayPath, CliError, colors, EXIT_PROBLEMS, type CliOutput } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";
import { formatText } from "../report.js";
import { truncateColumns } from "../text-width.js";
import { positiveInteger } from "../options.js";
import { validatePaths } from "./validate.js";
import { serveDemoRegistry } from "./demo-registry.js";

/**
 * `npm start`: the main job on the bundled examples, end to end — validate, list, catalog, then pack a package,
 * deploy it into a temporary workspace, run its entrypoint and one skill script in the sandbox.
 */
export function registerDemo(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("demo")
    .description("run the main job on the bundled examples (what `npm start` does)")
    .option("--examples <dir>", "the examples folder", "examples")
    .option("--keep", "keep the temporary workspace and print where it is")
    .option(
      "--serve",
      "then serve a registry (SQLite in a temporary folder) with the examples published, until Ctrl-C (npm start)",
    )
    .option("--port <n>", "the registry's port with --serve (0: any free one)", positiveInteger, 0)
    .action(async (options: { examples: string; keep?: boolean; serve?: boolean; port: number }) => {
      const c = colors(io);
      const examples = path.resolve(io.cwd, options.examples);
      const skillsDir = path.join(examples, "skills");
      const packageDir = path.join(examples, "package");
      for (const dir of [skillsDir, packageDir]) {
        if (!(await stat(dir).catch(() => undefined))?.isDirectory())
          throw new CliError(`missing ${displayPath(dir, io.cwd)} (run from the repository root or pass --examples)`);
      }
      const step = (n: number, title: string) => io.stdout(`\n${c.bold(`${n}. ${title}`)}\n`);

      step(1, `Validate every example skill (profile: lenient) — ${displayPath(skillsDir, io.cwd)}`);
      const reports = await validatePaths(
        [skillsDir],
        { profile: "lenient", lint: true, maxFileBytes: 10 * 1024 * 1024 },
        io.cwd,
      );
      io.stdout(formatText(reports, io));
      if (reports.some((r) => !r.valid)) setExit(EXIT_PROBLEMS);

      step(2, "List them");
      const loaded = await loadSkills([path.relative(io.cwd, skillsDir) || "."], io);
      const { registry } = loaded;
      reportLoadProblems(io, loaded.failures, registry.shadowed, loaded.skipped);
      for (const entry of registry.list()) {
        const description = String(entry.getMetadata().description ?? "")
          .replace(/\s+/g, " ")
          .trim();
        io.stdout(`  ${c.bold(entry.id)} — ${truncateColumns(description, 80)}\n`);
      }

      step(3, "The catalog a model sees (xml, indented layout)");
      io.stdout(`${await registry.catalog({ format: "xml", layout: "indented" })}\n`);

      const temp = await mkdtemp(path.join(os.tmpdir(), "skillport-demo-"));
      try {
        step(4, `Pack ${displayPath(packageDir, io.cwd)}`);
        const archive = path.join(temp, "package.zip");
        const packed = await packDirectoryToFile(packageDir, archive);
        io.stdout(
          `  versionId ${c.cyan(packed.versionId)}  ${packed.manifest.files.length} files, ${packed.archive.byteLength} bytes zipped\n` +
            `  skills: ${packed.manifest.skills.map((s) => s.name).join(", ")}\n` +
            packed.manifest.excluded.map((e) => `  excluded ${e.path} (${e.reason})\n`).join(""),
        );

        step(5, "Deploy into a temporary workspace and run its entrypoint.sh in the sandbox");
        const workspace = new Workspace(path.join(temp, "workspace"));
        try {
          const sandbox = await workspace.sandbox();
          io.stdout(
            `  sandbox: ${sandbox.kind}${sandbox.isolates ? "" : c.yellow(" (does NOT isolate: install bubblewrap)")}\n`,
          );
          const deployed = await workspace.deploy([archive]);
          for (const v of deployed.versions) io.stdout(`  ${v.status} projects/${v.versionId}/\n`);
          const init = await deployed.initialization;
          for (const o of init.outcomes) {
            const output = (o.stdoutTail ?? "").trim();
            io.stdout(
              `  entrypoint ${o.target}: ${o.status}${o.reason ? ` (${o.reason})` : ""}${output ? ` — ${output}` : ""}\n`,
            );
          }
          if (init.failed) setExit(EXIT_PROBLEMS);

          step(6, "Skills deployed in the workspace");
          const scan = await workspace.scanSkills();
          for (const skill of scan.skills)
            io.stdout(`  ${c.bold(skill.name)}  projects/${skill.versionId}/${skill.relativeDir}/SKILL.md\n`);

          const versionId = deployed.versions[0]?.versionId;
          const command = "bash skills/word-stats/scripts/stats.sh README.md";
          step(7, `Run a skill script in the sandbox: ${command}`);
          const result = await workspace.exec(command, { cwd: `projects/${versionId}` });
          io.stdout(result.observation.trimEnd().replace(/^/gm, "  ") + "\n");
          if (result.exitCode !== 0) setExit(EXIT_PROBLEMS);
        } finally {
          await workspace.close();
        }
      } finally {
        if (options.keep) io.stdout(`\nworkspace kept at ${temp}\n`);
        else await rm(temp, { recursive: true, force: true });
      }
      if (options.serve) {
        step(8, "Serve a registry with the examples published (SQLite in a temporary folder)");
        await serveDemoRegistry(io, examples, options.port);
      }
    });
}
