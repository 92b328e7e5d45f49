// Runs after `tsc -b` (npm run build): a package entry listed here ships as ONE module holding its package's own
// modules, with every other package (core's leaves, yaml) left to `import` — decision 0215. Node 20's ES-module loader
// costs about a millisecond per module (resolve, read, compile, link), and every process that lists skills imports
// `@skillport/fs`'s main entry: its 21 modules were a fixed cost of every such process.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { replaceFile } from "./replace-file.mjs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

// package → the tsc output bundled, and where the bundle goes (the package's "exports" points "." there).
const ENTRIES = [{ pkg: "fs", from: "dist/index.js", to: "dist/index.bundle.js" }];

// `--clean` (npm run clean): tsc's --clean does not know these files.
const clean = process.argv.includes("--clean");

for (const { pkg, from, to } of ENTRIES) {
  const dir = path.join(root, "packages", pkg);
  if (clean) {
    for (const file of [to, `${to}.map`]) rmSync(path.join(dir, file), { force: true });
    continue;
  }
  const result = await build({
    entryPoints: [path.join(dir, from)],
    outfile: path.join(dir, to),
    bundle: true,
    // Other packages stay separate modules: one instance of core's error classes, whoever imports them.
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    // Maps back through tsc's maps to the TypeScript sources.
    sourcemap: true,
    logLevel: "warning",
    write: false,
  });
  for (const output of result.outputFiles) replaceFile(output.path, Buffer.from(output.contents));
}
