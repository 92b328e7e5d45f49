// Discover + getMetadata for N generated skills, against the raw floor (readdir + readFile of every SKILL.md).
// Usage: npx tsc -b packages/fs && node packages/fs/bench/metadata.mjs [count=10000]
// Each measurement runs in a fresh child process so caches inside Node do not carry over; the page cache is warm.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const count = Number(process.argv[2] ?? 10_000);
const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "dist", "index.js");

function generate(root) {
  const filler = "Step by step, the skill explains what to do and why it matters for the task at hand.\n";
  for (let i = 0; i < count; i++) {
    const id = `skill-${String(i).padStart(5, "0")}`;
    mkdirSync(path.join(root, id, "references"), { recursive: true });
    const frontmatter = [
      "---",
      `name: ${id}`,
      `description: Use when the user asks about topic ${i}; handles conversion, checks and reports for case ${i}.`,
      "license: Apache-2.0",
      "compatibility: Requires Node.js 20 or later",
      "allowed-tools: Bash(git:*) Read",
      "metadata:",
      "  author: bench",
      `  version: "1.${i % 10}"`,
      "  category: tools",
      "---",
      "",
    ].join("\n");
    const bodyLines = 20 + (i % 200);
    writeFileSync(path.join(root, id, "SKILL.md"), frontmatter + `# ${id}\n\n` + filler.repeat(bodyLines));
    writeFileSync(path.join(root, id, "references", "notes.md"), "# Notes\n");
  }
}

const raw = `
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
const root = process.argv[1];
const t = performance.now();
const ids = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
const texts = await Promise.all(ids.map((id) => readFile(path.join(root, id, "SKILL.md"), "utf8")));
console.log(JSON.stringify({ ms: performance.now() - t, n: texts.length }));
`;

// argv[2]: a metadata index file, or "" for none. The index is saved after timing (a CLI would do the same).
const provider = `
import { LocalFileSystemSkillProvider } from ${JSON.stringify(dist)};
const root = process.argv[1];
const index = process.argv[2] || undefined;
const t = performance.now();
const p = new LocalFileSystemSkillProvider(root, { metadataIndex: index });
const ids = await p.discover();
const metas = await Promise.all(ids.map((id) => p.getMetadata(id)));
const ms = performance.now() - t;
if (metas.some((m, i) => m.name !== ids[i])) throw new Error("wrong metadata");
await p.saveMetadataIndex();
console.log(JSON.stringify({ ms, n: metas.length }));
`;

function run(code, root, ...args) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code, root, ...args], { encoding: "utf8" });
  return JSON.parse(out.trim());
}

const root = mkdtempSync(path.join(os.tmpdir(), "skillport-fs-bench-"));
try {
  generate(root);
  const rounds = 5;
  const index = path.join(root, ".bench-index.json");
  const rawMs = [];
  const providerMs = [];
  const indexedMs = [];
  run(raw, root); // warm the page cache
  await new Promise((resolve) => setTimeout(resolve, 2500)); // past the index's "changed moments ago" window
  run(provider, root, index); // builds the index
  for (let i = 0; i < rounds; i++) {
    rawMs.push(run(raw, root).ms);
    providerMs.push(run(provider, root, "").ms);
    indexedMs.push(run(provider, root, index).ms);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const r = median(rawMs);
  const p = median(providerMs);
  const x = median(indexedMs);
  console.log(`${count} skills: raw floor ${r.toFixed(0)} ms`);
  console.log(`  provider discover+getMetadata: ${p.toFixed(0)} ms (ratio ${(p / r).toFixed(2)})`);
  console.log(`  with a warm metadata index:    ${x.toFixed(0)} ms (ratio ${(x / r).toFixed(2)})`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
