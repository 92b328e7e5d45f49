#!/usr/bin/env node
import { VERSION } from "./version.js";

// A closed pipe (`skillport list | head`) is a normal way for a reader to stop: exit quietly, no stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// When the event loop is empty nothing is left to do: exit there rather than let Node free the heap and run its
// teardown first (~5 ms of `--version`, ~10 ms after `exec` on the 2-core CI machine); the kernel reclaims it all.
// 'exit' listeners (cgroup removal) still run, and pending work is not cut: the loop is already empty.
process.once("beforeExit", () => process.exit());

// Set by the bundle (scripts/bundle.mjs) to the file of the `install` bundle; undefined when run as separate modules.
declare const SKILLPORT_INSTALL_BUNDLE: string | undefined;
const installBundle = typeof SKILLPORT_INSTALL_BUNDLE === "string" ? SKILLPORT_INSTALL_BUNDLE : undefined;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // Scripts and shells ask for the version often: answer without loading the command parser.
  process.stdout.write(`${VERSION}\n`);
} else if (argv[0] === "install" && installBundle !== undefined) {
  // A restore (CI, a fresh clone) is the hot path: one bundle of its own, a few files to load (decision 0358).
  const { run } = (await import(installBundle)) as { run: (argv: readonly string[]) => Promise<number> };
  process.exitCode = await run(argv);
} else {
  const [{ runCli }, { processIO }] = await Promise.all([import("./program.js"), import("./io.js")]);
  process.exitCode = await runCli(argv, processIO());
}
