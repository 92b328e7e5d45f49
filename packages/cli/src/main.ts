#!/usr/bin/env node
import { runCli } from "./program.js";
import { processIO } from "./io.js";

process.exitCode = await runCli(process.argv.slice(2), processIO());
