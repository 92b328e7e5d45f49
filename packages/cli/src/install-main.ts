// The entry of the `install` bundle, dist/cli-install.js (scripts/bundle.mjs, decision 0358): dist/cli.js has set the
// process up and hands a run of `skillport install …` here, so a restore loads one bundle of a few files instead of
// the ~45 shared chunks the whole CLI's code splitting gives its modules.
import { processIO } from "./io.js";
import { runCli } from "./program.js";

export function run(argv: readonly string[]): Promise<number> {
  return runCli(argv, processIO());
}
