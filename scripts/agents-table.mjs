// Writes the agents table of @skillport/install (AGENTS) into README.md and docs/install.md, between the markers
// <!-- agents-table --> and <!-- /agents-table -->. Run after a build: `npm run docs:agents`. docs-tables.test.ts
// fails when a file's table differs from the code's.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentsMarkdownTable } from "@skillport/install";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START = "<!-- agents-table -->\n";
const END = "<!-- /agents-table -->";

for (const file of ["README.md", "docs/install.md"]) {
  const full = path.join(root, file);
  const text = readFileSync(full, "utf8");
  const from = text.indexOf(START);
  const to = text.indexOf(END, from);
  if (from < 0 || to < 0) throw new Error(`${file}: no ${START.trim()} … ${END} markers`);
  const next = `${text.slice(0, from + START.length)}${agentsMarkdownTable()}${text.slice(to)}`;
  if (next !== text) writeFileSync(full, next);
  console.log(`${file}: ${next === text ? "up to date" : "table written"}`);
}
