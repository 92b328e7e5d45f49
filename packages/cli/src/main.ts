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

// Set by the bundle (scripts/bundle.mjs): each hot command and the file of its own bundle; undefined when run as
// separate modules (decisions 0358, 0444).
declare const SKILLPORT_HOT_BUNDLES: Readonly<Record<string, string>> | undefined;
const hotBundles = typeof SKILLPORT_HOT_BUNDLES === "object" ? SKILLPORT_HOT_BUNDLES : {};
// The same commands as one CommonJS script each, which runs from a V8 code cache (decision 0446).
declare const SKILLPORT_HOT_SCRIPTS: Readonly<Record<string, string>> | undefined;
const hotScripts = typeof SKILLPORT_HOT_SCRIPTS === "object" ? SKILLPORT_HOT_SCRIPTS : {};
declare const SKILLPORT_HOT_LOADER: string | undefined;
/** On unless `SKILLPORT_CODE_CACHE` is `off` (or `0`, `false`, `no`): then the hot commands run their ES-module bundles. */
const codeCacheEnabled = () => !/^(off|0|false|no)$/i.test(process.env.SKILLPORT_CODE_CACHE ?? "");

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // Scripts and shells ask for the version often: answer without loading the command parser.
  process.stdout.write(`${VERSION}\n`);
} else if (
  argv[0] !== undefined &&
  Object.hasOwn(hotScripts, argv[0]) &&
  typeof SKILLPORT_HOT_LOADER === "string" &&
  codeCacheEnabled()
) {
  // A cached script starts working sooner than any number of ES modules compiled afresh (decision 0446).
  const { runHotScript } = (await import(SKILLPORT_HOT_LOADER as string)) as typeof import("./hot-script.js");
  process.exitCode = await runHotScript(new URL(hotScripts[argv[0]] as string, import.meta.url), argv);
} else if (argv[0] !== undefined && Object.hasOwn(hotBundles, argv[0])) {
  // A restore (CI, a fresh clone) and an `add` are the hot paths: a bundle each, a few files to load.
  const { run } = (await import(hotBundles[argv[0]] as string)) as {
    run: (argv: readonly string[]) => Promise<number>;
  };
  process.exitCode = await run(argv);
} else {
  const [{ runCli }, { processIO }] = await Promise.all([import("./program.js"), import("./io.js")]);
  process.exitCode = await runCli(argv, processIO());
}
