// The CLI bundle's metafile (written by packages/cli/scripts/bundle.mjs, decision 0220): which source modules each
// output chunk holds, so tests that record what a run of the built CLI loads can speak of modules, not chunks. A
// module counts only where it has bytes in the output: esbuild lists every module it reached, tree-shaken or not.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const metafile = path.join(repo, "packages/cli/dist/cli-meta.json");

export interface Metafile {
  outputs: Record<
    string,
    { inputs: Record<string, { bytesInOutput: number }>; imports?: { path: string; kind: string }[] }
  >;
}

let meta: Metafile | undefined;

/** The bundle's metafile (empty before the first bundle). */
export function bundleMeta(): Metafile {
  meta ??= existsSync(metafile) ? (JSON.parse(readFileSync(metafile, "utf8")) as Metafile) : { outputs: {} };
  return meta;
}

/** The modules with bytes in one output of `metafile`. */
export function modulesIn(metafile: Metafile, output: string): string[] | undefined {
  const found = metafile.outputs[output];
  return found && Object.entries(found.inputs).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : []));
}

/**
 * A loaded file (repository-relative), or for a chunk of the bundle, the repository-relative modules with bytes in it:
 * all of them are compiled when the chunk loads.
 */
export function modulesOf(file: string): string[] {
  return modulesIn(bundleMeta(), file) ?? [file];
}

/** `output` and every output it imports statically, transitively: what loading it compiles. */
export function staticClosure(metafile: Metafile, output: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || metafile.outputs[file] === undefined) return;
    seen.add(file);
    for (const next of metafile.outputs[file]?.imports ?? []) if (next.kind === "import-statement") visit(next.path);
  };
  visit(output);
  return [...seen];
}
