import { stat } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { Option, type Command } from "commander";
import {
  buildPlugin,
  checkPlugin,
  createPlugin,
  formatLocation,
  packPlugin,
  PluginBuildError,
  PLUGIN_TEMPLATES,
  type PluginDiagnostic,
  type PluginTemplate,
} from "@skillport/plugin-host";
import { CliError, colors, EXIT_ERROR, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { addPluginRunCommand } from "./plugin-run.js";

/** `skillport plugin create|build|check|pack|run`: author, verify and package system-tool plugins. */
export function registerPlugin(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  const plugin = program.command("plugin").description("create, build, check, pack and run system-tool plugins");
  const at = (path: string) => resolve(io.cwd, path);
  // --entry names the plugin's folder; a file there (often its index.ts) is a usage error that says which folder.
  const entryDir = async (given: string) => {
    const absolute = at(given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw new CliError(`--entry ${given}: no such directory`);
    if (!info.isDirectory())
      throw new CliError(
        `--entry ${given}: is a file; give the plugin's folder (the one holding index.ts)${/\/?index\.[cm]?[jt]s$/.test(given) ? `: --entry ${dirname(given) || "."}` : ""}`,
      );
    return absolute;
  };
  const shown = (path: string) => relative(io.cwd, path) || ".";

  plugin
    .command("create <name>")
    .description("write a new plugin from a template into <cwd>/<name>")
    .addOption(new Option("--type <type>", "template").choices([...PLUGIN_TEMPLATES]).default("tool"))
    .option("-d, --description <text>", "description for package.json and README.md")
    .option("--cwd <dir>", "parent directory of the new plugin", ".")
    .option("--json", "print the result as JSON")
    .action(async (name: string, opts: { type: PluginTemplate; cwd: string; description?: string; json?: boolean }) => {
      const description = opts.description === undefined ? {} : { description: opts.description };
      const result = await run(io, setExit, opts.json, () =>
        createPlugin({ name, type: opts.type, cwd: at(opts.cwd), ...description }),
      );
      if (result === undefined) return;
      if (opts.json) return printJson(io, { ok: true, dir: shown(result.dir), files: result.files });
      io.stdout(`created ${opts.type} plugin ${name} in ${shown(result.dir)}\n`);
      for (const file of result.files) io.stdout(`  ${file}\n`);
      io.stdout(`next: skillport plugin build --entry ${shown(result.dir)} --output ${shown(result.dir)}/dist\n`);
    });

  plugin
    .command("build")
    .description("bundle index.ts into dist/index.js and write dist/manifest.json, logos, README.md and assets/")
    .option("--entry <dir>", "plugin directory", ".")
    .option("--output <dir>", "output directory (default: <entry>/dist)")
    .option("--minify", "minify the bundle")
    .option("--allow-outside-imports", "bundle imports that resolve outside the plugin folder and its node_modules")
    .addOption(
      new Option("-f, --format <format>", "bundle format (FastGPT's flag; the host runs esm)")
        .choices(["esm", "cjs"])
        .default("esm"),
    )
    .option("--json", "print the result as JSON")
    .action(
      async (opts: {
        entry: string;
        output?: string;
        minify?: boolean;
        allowOutsideImports?: boolean;
        format: string;
        json?: boolean;
      }) => {
        if (opts.format !== "esm") {
          throw new CliError(
            "--format cjs is not supported: Skillport hosts load plugin bundles as ES modules; build with --format esm (the default)",
            EXIT_ERROR,
          );
        }
        const entry = await entryDir(opts.entry);
        const output = opts.output === undefined ? resolve(entry, "dist") : at(opts.output);
        const result = await run(io, setExit, opts.json, () =>
          buildPlugin({
            entry,
            output,
            minify: opts.minify === true,
            allowOutsideImports: opts.allowOutsideImports === true,
          }),
        );
        if (result === undefined) return;
        if (opts.json) {
          return printJson(io, {
            ok: true,
            pluginId: result.manifest.pluginId,
            version: result.manifest.version,
            output: shown(output),
            files: result.files,
            diagnostics: result.diagnostics,
          });
        }
        printDiagnostics(io, result.diagnostics);
        io.stdout(
          `built ${result.manifest.pluginId}@${result.manifest.version} into ${shown(output)} (${result.files.join(", ")})\n`,
        );
      },
    );

  plugin
    .command("check")
    .description("verify a plugin and its build against the publishing checklist (errors exit 1)")
    .option("--entry <dir>", "plugin directory", ".")
    .option("--output <dir>", "build directory (default: <entry>/dist)")
    .option("--allow-outside-imports", "bundle imports that resolve outside the plugin folder and its node_modules")
    .option("--json", "print the diagnostics as JSON")
    .action(async (opts: { entry: string; output?: string; allowOutsideImports?: boolean; json?: boolean }) => {
      const entry = await entryDir(opts.entry);
      const output = opts.output === undefined ? resolve(entry, "dist") : at(opts.output);
      const result = await run(io, setExit, opts.json, () =>
        checkPlugin({ entry, output, allowOutsideImports: opts.allowOutsideImports === true }),
      );
      if (result === undefined) return;
      if (!result.ok) setExit(EXIT_PROBLEMS);
      if (opts.json) return printJson(io, { ok: result.ok, diagnostics: result.diagnostics });
      printDiagnostics(io, result.diagnostics);
      const errors = result.diagnostics.filter((d) => d.severity === "error").length;
      const warnings = result.diagnostics.filter((d) => d.severity === "warning").length;
      const c = colors(io);
      io.stdout(
        result.ok
          ? c.green(`check passed (${warnings} warning${warnings === 1 ? "" : "s"})\n`)
          : c.red(
              `check failed: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`,
            ),
      );
    });

  plugin
    .command("pack")
    .description("rebuild, check, then write a deterministic <pluginId>-<version>.pkg and print its sha256")
    .option("--entry <dir>", "plugin directory", ".")
    .option("--dist <dir>", "build directory (default: <entry>/dist)")
    .option("--output <dir>", "directory for the .pkg (default: <entry>/out; the path is printed)")
    .option("-n, --name <name>", "file name of the .pkg without extension (default: <pluginId>-<version>)")
    .option("--minify", "minify the bundle")
    .option("--allow-outside-imports", "bundle imports that resolve outside the plugin folder and its node_modules")
    .option("--json", "print the result as JSON")
    .action(
      async (opts: {
        entry: string;
        dist?: string;
        output?: string;
        name?: string;
        minify?: boolean;
        allowOutsideImports?: boolean;
        json?: boolean;
      }) => {
        const entry = await entryDir(opts.entry);
        const dist = opts.dist === undefined ? resolve(entry, "dist") : at(opts.dist);
        const output = opts.output === undefined ? resolve(entry, "out") : at(opts.output);
        const name = opts.name === undefined ? {} : { name: opts.name };
        const result = await run(io, setExit, opts.json, () =>
          packPlugin({
            entry,
            dist,
            output,
            minify: opts.minify === true,
            allowOutsideImports: opts.allowOutsideImports === true,
            ...name,
          }),
        );
        if (result === undefined) return;
        if (opts.json) {
          return printJson(io, {
            ok: true,
            file: shown(result.file),
            sha256: result.sha256,
            size: result.size,
            entries: result.entries,
            diagnostics: result.diagnostics,
          });
        }
        printDiagnostics(io, result.diagnostics);
        io.stdout(
          `packed ${shown(result.file)} (${result.size} bytes, ${result.entries.length} files)\nsha256 ${result.sha256}\n`,
        );
      },
    );

  addPluginRunCommand(plugin, io, setExit);
}

/**
 * Runs a toolchain step. Plugin problems (errors with diagnostics) print the diagnostics and exit 1;
 * other PluginBuildErrors are one-line usage/runtime errors (exit 2).
 */
async function run<T>(
  io: CliOutput,
  setExit: (code: number) => void,
  json: boolean | undefined,
  step: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof PluginBuildError)) throw error;
    if (error.diagnostics.length === 0) throw new CliError(error.message, EXIT_ERROR);
    if (json) {
      printJson(io, { ok: false, error: error.message, diagnostics: error.diagnostics });
    } else {
      printDiagnostics(io, error.diagnostics, io.stderr);
      io.stderr(`skillport: ${error.message}\n`);
    }
    setExit(EXIT_PROBLEMS);
    return undefined;
  }
}

function printDiagnostics(
  io: CliOutput,
  diagnostics: readonly PluginDiagnostic[],
  write: (text: string) => void = io.stdout,
): void {
  const c = colors(io);
  for (const d of diagnostics) {
    const label =
      d.severity === "error" ? c.red("error  ") : d.severity === "warning" ? c.yellow("warning") : c.blue("info   ");
    const where = formatLocation(d);
    write(`${label} ${c.dim(d.code)} ${where === "" ? "" : `${where} `}${d.message}\n`);
  }
}
