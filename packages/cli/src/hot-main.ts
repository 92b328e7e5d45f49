// The entry of each hot command's bundle, dist/cli-<command>.js (scripts/bundle.mjs, decisions 0358, 0444): dist/cli.js
// has set the process up and hands a run of `skillport install …` or `skillport add …` here, so it loads one bundle of
// a few files instead of the dozens of shared chunks the whole CLI's code splitting gives its modules.
import { processIO } from "./io.js";
import { runCli } from "./program.js";

export function run(argv: readonly string[]): Promise<number> {
  return runCli(argv, processIO());
}
