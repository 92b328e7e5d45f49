// The CLI bundle's metafile (written by packages/cli/scripts/bundle.mjs, decision 0220): which source modules each
// output chunk holds, so tests that record what a run of the built CLI loads can speak of modules, not chunks.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const metafile = path.join(repo, "packages/cli/dist/cli-meta.json");

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

let meta: Metafile | undefined;

/**
 * A loaded file (repository-relative), or for a chunk of the bundle, the repository-relative modules it holds: all of
 * them are compiled when the chunk loads.
 */
export function modulesOf(file: string): string[] {
  meta ??= existsSync(metafile) ? (JSON.parse(readFileSync(metafile, "utf8")) as Metafile) : { outputs: {} };
  const output = meta.outputs[file];
  return output ? Object.keys(output.inputs) : [file];
}
