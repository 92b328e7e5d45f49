// `npm run bench`: every benchmark, one after another. Each prints its own table with ratios to its baseline.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = [
  "discovery",
  "pack",
  "sandbox",
  "plugin",
  "search",
  "retrieval",
  "sql",
  "remote",
  "agent",
  "audit",
  "dynamic",
  "mcp",
  "install",
  "registry",
].filter((b) => only.length === 0 || only.includes(b));
let failed = 0;
for (const bench of benches) {
  const file = path.join(here, `${bench}.mjs`);
  if (!existsSync(file)) continue;
  console.log(`\n=== ${bench} ===`);
  const result = spawnSync(process.execPath, [file], { stdio: "inherit" });
  if (result.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
