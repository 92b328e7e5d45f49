// Bundles the built CLI (dist/main.js and everything it reaches) into dist/cli.js plus lazily loaded chunks, which
// the `skillport` bin runs (decision 0220). Node 20 has no compile cache: every ES module the CLI loads costs a
// resolve, a file read and a compile, so one command loading 40–90 modules paid more for loading than for working.
// esbuild's code splitting keeps each command's dynamic import a separate chunk, so a command still loads only what
// it reaches. Run after `tsc -b` (the root `build` and `typecheck` scripts do).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { replaceFile } from "../../../scripts/replace-file.mjs";

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repo = path.resolve(cliDir, "../..");
const dist = path.join(cliDir, "dist");

// Left to Node's resolver, from the installed packages:
// - native or platform binaries (better-sqlite3, esbuild) and optional ones (js-tiktoken);
// - what plugins share with the host, which must be ONE copy for both (the plugin SDK and zod: decision 0185);
// - SQL drivers, loaded only by SQL sources and large;
// - @skillport/mcp, an optional peer (the MCP SDK is 16 MB): `skillport mcp` loads it when installed.
// - @skillport/registry and @skillport/runners, optional peers (servers: Hono, the NATS client): `registry serve`,
//   `registry token create`, `runner` and `exec --queue` load them when installed (decision 0295).
const EXTERNAL = [
  "better-sqlite3",
  "esbuild",
  "js-tiktoken",
  "js-tiktoken/*",
  "pg",
  "mysql2",
  "zod",
  "zod/*",
  "@skillport/plugin",
  "@skillport/mcp",
  "@skillport/registry",
  "@skillport/runners",
];

// `zod/mini` is bundled all the same (an external package name covers its subpaths, so a plugin resolves it first):
// the state and cache files' schemas (decision 0321) are never shared with plugins, and from node_modules its modules
// cost ~100 ms of CPU on every run that reads a cache or probes bubblewrap; bundled, a few.
const zodMiniUsed = path.join(cliDir, "scripts", "zod-mini-used.mjs");
const zodMiniBundled = {
  name: "zod-mini-bundled",
  setup(b) {
    b.onResolve({ filter: /^zod\/mini$/ }, (args) => ({
      path: args.importer === zodMiniUsed ? fileURLToPath(import.meta.resolve("zod/mini")) : zodMiniUsed,
    }));
  },
};
{
  // Every `z.<name>` a reader of zod/mini uses must be in zod-mini-used.mjs, or the bundle would fail at run time only.
  const exported = new Set(await import(zodMiniUsed).then((m) => Object.keys(m)));
  for (const pkg of readdirSync(path.join(repo, "packages"))) {
    const src = path.join(repo, "packages", pkg, "src");
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true })) {
      if (!String(file).endsWith(".ts") || String(file).endsWith(".test.ts")) continue;
      const text = readFileSync(path.join(src, String(file)), "utf8");
      if (!text.includes('"zod/mini"')) continue;
      for (const [, name] of text.matchAll(/\bz\.([A-Za-z]+)\(/g)) {
        if (!exported.has(name))
          throw new Error(`packages/${pkg}/src/${file} uses z.${name}: add it to ${path.relative(repo, zodMiniUsed)}`);
      }
    }
  }
}

/**
 * The bundle's files: the CLI's entry and chunks (with their source maps), each hot command's bundle entry and chunks,
 * each hot command's one-file script (`.cjs`, run from a code cache: decision 0446) and the loader that runs it.
 */
const BUNDLE_FILE = /^cli(-install|-add)?((-chunk-.*)?\.js(\.map)?|\.cjs)$|^cli-hot-loader\.js$/;

// `--clean` (npm run clean): tsc's --clean does not know the bundle's files.
if (process.argv.includes("--clean")) {
  if (existsSync(dist))
    for (const name of readdirSync(dist))
      if (BUNDLE_FILE.test(name) || name === "cli-meta.json") rmSync(path.join(dist, name));
  rmSync(path.join(dist, "worker"), { recursive: true, force: true });
  process.exit(0);
}

// core reaches `yaml` through "#yaml-library" (decision 0210). The bundle keeps `yaml` out and loads it on first use
// from core's own installation, so the version is the one core depends on, wherever npm placed it.
const yamlOnFirstUse = {
  name: "yaml-on-first-use",
  setup(b) {
    b.onResolve({ filter: /^#yaml-library$/ }, () => ({ path: "yaml-library", namespace: "skillport" }));
    b.onLoad({ filter: /.*/, namespace: "skillport" }, () => ({
      loader: "js",
      contents: [
        'import { createRequire } from "node:module";',
        "let loaded;",
        "export function yamlLibrary() {",
        '  loaded ??= createRequire(createRequire(import.meta.url).resolve("@skillport/core"))("yaml");',
        "  return loaded;",
        "}",
      ].join("\n"),
    }));
  },
};

// Each package has one door (decision 0310), and a door is a list of re-exports. esbuild's tree shaking drops the
// unused ones, but with code splitting a command's chunks still import every module a door names that some OTHER
// command uses: `exec` importing one error class from "@skillport/core" would statically load the chunk holding the
// parser, because `validate` uses it. So the bundle reads each door's `export { … } from "./m.js"` lists and turns
// an import of names from a workspace door into imports from the modules that define them (what a subpath import
// once did by hand): start-up speed bought once, here. Guarded by packages/cli/src/start-up-graph.e2e.test.ts (0311).
const EXPORT_FROM = /export\s*\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)";/g;
const IMPORT_FROM_DOOR = /import\s*\{([^}]*)\}\s*from\s*"(@skillport\/[\w-]+(?:\/internal)?)";/g;
const specifiers = (list) =>
  list
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [name, alias = name] = part.split(/\s+as\s+/);
      return { name, alias };
    });
const definitions = new Map(); // module file → Map(exported name → { file, name }), re-export chains followed
function defining(file, name, depth = 0) {
  if (depth > 20) return { file, name };
  let exported = definitions.get(file);
  if (!exported) {
    exported = new Map();
    definitions.set(file, exported);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    for (const [, list, from] of text.matchAll(EXPORT_FROM))
      for (const { name: source, alias } of specifiers(list))
        exported.set(alias, { file: path.resolve(path.dirname(file), from), name: source });
  }
  const next = exported.get(name);
  return next ? defining(next.file, next.name, depth + 1) : { file, name };
}
function doorFile(specifier) {
  const [, pkg, sub] = /^@skillport\/([\w-]+)(\/internal)?$/.exec(specifier);
  const manifest = JSON.parse(readFileSync(path.join(repo, "packages", pkg, "package.json"), "utf8"));
  const target = manifest.exports?.[sub ? "./internal" : "."]?.default;
  return target && path.join(repo, "packages", pkg, target);
}
const throughDoors = {
  name: "imports-through-doors",
  setup(b) {
    b.onLoad({ filter: /[\\/]packages[\\/][\w-]+[\\/]dist[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes('"@skillport/')) return undefined;
      const contents = text.replace(IMPORT_FROM_DOOR, (statement, list, specifier) => {
        if (specifier === "@skillport/plugin") return statement; // left to Node (EXTERNAL)
        const door = doorFile(specifier);
        if (!door) return statement;
        const byFile = new Map();
        for (const { name, alias } of specifiers(list)) {
          const found = defining(door, name);
          const parts = byFile.get(found.file) ?? [];
          parts.push(found.name === alias ? alias : `${found.name} as ${alias}`);
          byFile.set(found.file, parts);
        }
        return [...byFile]
          .map(([file, parts]) => `import { ${parts.join(", ")} } from ${JSON.stringify(file)};`)
          .join(" ");
      });
      return { contents, loader: "js", resolveDir: path.dirname(args.path) };
    });
  },
};

// The hot commands get a bundle each: `install` (a restore: CI, a fresh clone; decision 0358) and `add` (decision
// 0444), dist/cli-<command>.js, which dist/cli.js hands `skillport <command> …` to. Split with the whole CLI, a
// command's modules land in dozens of chunks shared with other commands, and Node 20 pays per module loaded; built
// alone, a command's static graph is one file and only its own lazy imports (the git source, the audit scanner, …) are
// chunks. One bundle per command rather than one for both: each loads only its own static graph before it starts
// working (`add` must reach its clone early). No module of one bundle is ever loaded with another's, so each class and
// module state exists once per process. The other commands are unreachable from a command's bundle.
const HOT_COMMANDS = ["install", "add"];
// main.ts imports the file named in SKILLPORT_HOT_BUNDLES at run time (not a literal esbuild could follow).
const hotBundleFile = (command) => `./cli-${command}.js`;
// Each hot command is also built as ONE CommonJS script, dist/cli-<command>.cjs, which main.ts compiles with a V8
// code cache kept in the user's cache folder (decision 0446): Node 20 caches no compiled ES module, and a cached script
// starts its work ~50 ms sooner. esbuild turns each lazy import into a module initialised on first use, so the script
// evaluates at load only what the chunked bundle's entry loads statically (checked by start-up-graph.e2e.test.ts).
const hotScriptFile = (command) => `./cli-${command}.cjs`;
// What compiles a script with its cache (src/hot-script.ts) is one file too, built apart: in the CLI's bundle its few
// modules would be six shared chunks to load before the script (main.ts imports the file named here).
const HOT_LOADER_FILE = "./cli-hot-loader.js";
const onlyCommand = (command) => ({
  name: "only-command",
  setup(b) {
    const commandsIndex = path.join(dist, "commands", "index.js");
    const own = `./${command}.js`;
    const lazy = `import("${own}")`;
    b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
      args.kind === "dynamic-import" && args.importer === commandsIndex && args.path !== own
        ? { path: "other-command", namespace: "skillport" }
        : undefined,
    );
    // The command itself is a static import here: with the entry, one file.
    b.onLoad({ filter: /[\\/]cli[\\/]dist[\\/]commands[\\/]index\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (args.path !== commandsIndex || !text.includes(lazy))
        throw new Error(`${args.path}: the ${command} bundle expects ${lazy} here`);
      return {
        loader: "js",
        resolveDir: path.dirname(args.path),
        contents: `import * as hotCommand from "${own}";\n${text.replace(lazy, "Promise.resolve(hotCommand)")}`,
      };
    });
    b.onLoad({ filter: /^other-command$/, namespace: "skillport" }, () => ({
      loader: "js",
      contents: `throw new Error("dist/cli-${command}.js runs only \`skillport ${command}\`");`,
    }));
  },
});

const common = {
  absWorkingDir: repo,
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  plugins: [yamlOnFirstUse, zodMiniBundled, throughDoors],
  // CommonJS dependencies (commander) call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __skillportRequire } from "node:module"; const require = __skillportRequire(import.meta.url);',
  },
  metafile: true,
  legalComments: "none",
  // Less source to read and pre-parse on every start (~5 ms of `exec --help` here); names stay, and the source maps
  // (used with --enable-source-maps) lead back to the code.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: "linked",
  logLevel: "warning",
  write: false,
};
const result = await build({
  ...common,
  entryPoints: { cli: path.join(dist, "main.js") },
  chunkNames: "cli-chunk-[hash]",
  external: [...EXTERNAL, HOT_LOADER_FILE],
  define: {
    SKILLPORT_HOT_BUNDLES: JSON.stringify(Object.fromEntries(HOT_COMMANDS.map((c) => [c, hotBundleFile(c)]))),
    SKILLPORT_HOT_SCRIPTS: JSON.stringify(Object.fromEntries(HOT_COMMANDS.map((c) => [c, hotScriptFile(c)]))),
    SKILLPORT_HOT_LOADER: JSON.stringify(HOT_LOADER_FILE),
  },
});
const hotResults = [];
for (const command of HOT_COMMANDS)
  hotResults.push(
    await build({
      ...common,
      entryPoints: { [`cli-${command}`]: path.join(dist, "hot-main.js") },
      chunkNames: `cli-${command}-chunk-[hash]`,
      // No source maps here: the same modules are mapped in the main bundle's maps (and tsc's, for dist/main.js), and
      // a second and third set (3 MB each) would push the installed CLI over its size budget (decision 0444).
      sourcemap: false,
      plugins: [onlyCommand(command), ...common.plugins],
    }),
  );
// Large libraries a hot command reaches only through a rarely taken path (a SQL source: kysely; an npm package: tar)
// stay out of its script and are required from the installation of the package that declares them, when first used,
// as `yaml` is (decision 0210): a script of half the size to compile when no code cache is there yet (decision 0446).
const FROM_DECLARING_PACKAGE = { kysely: "@skillport/sql", tar: "@skillport/pack" };
const requiredWhereDeclared = {
  name: "required-where-declared",
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${Object.keys(FROM_DECLARING_PACKAGE).join("|")})$`) }, (args) => ({
      path: args.path,
      namespace: "skillport-declared",
    }));
    b.onLoad({ filter: /.*/, namespace: "skillport-declared" }, (args) => ({
      loader: "js",
      contents: [
        'const { createRequire } = require("node:module");',
        `const declaring = createRequire(__filename).resolve(${JSON.stringify(FROM_DECLARING_PACKAGE[args.path])});`,
        `module.exports = createRequire(declaring)(${JSON.stringify(args.path)});`,
      ].join("\n"),
    }));
  },
};
// The one-file builds (each hot command's script, the loader): no chunks, no source maps (see above).
const oneFile = (file) => ({
  ...common,
  outdir: undefined,
  outfile: path.join(dist, file),
  splitting: false,
  sourcemap: false,
});
for (const command of HOT_COMMANDS)
  hotResults.push(
    await build({
      ...oneFile(hotScriptFile(command)),
      entryPoints: [path.join(dist, "hot-main.js")],
      format: "cjs",
      // The script runs in a CommonJS wrapper (its own `require`); `import.meta.url` is its file's URL.
      banner: { js: '"use strict";var __skillportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
      define: { "import.meta.url": "__skillportMetaUrl" },
      plugins: [onlyCommand(command), requiredWhereDeclared, ...common.plugins],
    }),
  );
hotResults.push(await build({ ...oneFile(HOT_LOADER_FILE), entryPoints: [path.join(dist, "hot-script.js")] }));
const outputFiles = [...result.outputFiles, ...hotResults.flatMap((r) => r.outputFiles)];
const metafile = {
  inputs: Object.assign({}, ...hotResults.map((r) => r.metafile.inputs), result.metafile.inputs),
  outputs: Object.assign({}, result.metafile.outputs, ...hotResults.map((r) => r.metafile.outputs)),
};

// A CLI may be running from these files: stale chunks are removed only after every new one is in place.
for (const output of outputFiles) replaceFile(output.path, Buffer.from(output.contents));
// Which source modules each output holds: the start-up graph test reads it to check a command's chunks.
replaceFile(path.join(dist, "cli-meta.json"), Buffer.from(JSON.stringify(metafile)));
const written = new Set(outputFiles.map((output) => path.basename(output.path)));
for (const name of readdirSync(dist)) if (BUNDLE_FILE.test(name) && !written.has(name)) rmSync(path.join(dist, name));

// The plugin host copies its worker's files from "./worker/" beside the module that installs them, which is now a
// chunk in dist/ (plugin-host/src/host/worker-script.ts).
const workerFrom = path.join(repo, "packages/plugin-host/dist/host/worker");
const workerTo = path.join(dist, "worker");
mkdirSync(workerTo, { recursive: true });
for (const name of readdirSync(workerFrom))
  if (name.endsWith(".js")) replaceFile(path.join(workerTo, name), readFileSync(path.join(workerFrom, name)));
