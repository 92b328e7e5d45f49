#!/usr/bin/env node
// Check HTTP endpoints listed as JSON lines; print one JSON result per line; exit 1 if any failed.
import { readFileSync } from "node:fs";

const [file, flag, value] = process.argv.slice(2);
if (!file) {
  console.error("usage: check.mjs ENDPOINTS.jsonl [--timeout MS]");
  process.exit(2);
}
const timeout = flag === "--timeout" ? Number(value) : 5000;
const endpoints = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
let failed = 0;
for (const { url, expect = 200 } of endpoints) {
  const started = performance.now();
  let status = 0;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeout) });
    status = response.status;
  } catch {
    status = 0;
  }
  const ok = status === expect;
  if (!ok) failed++;
  console.log(JSON.stringify({ url, ok, status, ms: Math.round(performance.now() - started) }));
}
process.exit(failed ? 1 : 0);
