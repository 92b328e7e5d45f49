#!/usr/bin/env node
import { runCli } from "./program.js";
import { processIO } from "./io.js";

// A closed pipe (`skillport list | head`) is a normal way for a reader to stop: exit quietly, no stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await runCli(process.argv.slice(2), processIO());
