// CPU time of a registry search that no cache has seen (issue 25, decision 0413): `RegistryStore.listSkills` in
// process, no HTTP, on the databases `bench/registry.mjs --seeded DIR` seeded (1,000 and 10,000 corpus skills plus
// one). Each round starts one child per tree (this checkout, and `--tree=<dir>`, e.g. a build of main) on a copy of
// the same database, in alternating order; a child builds its snapshot and search index, warms up on queries not
// measured, then asks `--queries` two-word queries it has not asked before (limit 20), each once as is and once with
// a filter (`verdict=pass`), timing each call's CPU (process.cpuUsage: user + system, GC included). Medians of the
// rounds' per-query means and p99s. The page of hits of the unfiltered queries must be the same in both trees.
//   node bench/registry-search.mjs --seeded DIR [--tree=<dir>] [--sizes 1000,10000] [--rounds 5] [--queries 200]
// (after `npm run build` in each tree; without --tree only this checkout is measured).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freshQueries } from "./corpus.mjs";
import { median, printTable } from "./lib.mjs";

const self = fileURLToPath(import.meta.url);
const here = path.resolve(path.dirname(self), "..");
const argOf = (name, fallback) => {
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  if (eq) return eq.slice(name.length + 3);
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const QUERIES = freshQueries();
const WARM_UP = 300;

/** One tree's store on `database`: the CPU of each new query, as is and filtered, and a digest of the pages. */
async function child(tree, database, blobs, start, count) {
  const { RegistryStore } = await import(path.join(tree, "packages", "registry", "dist", "index.js"));
  const store = await RegistryStore.open({ database, blobs });
  await store.listSkills({ q: QUERIES[QUERIES.length - 1], limit: 20 }); // snapshot and search index, not measured
  for (const q of QUERIES.slice(QUERIES.length - WARM_UP)) {
    await store.listSkills({ q, limit: 20 });
    await store.listSkills({ q, limit: 20, verdict: "pass" });
  }
  const plain = [];
  const filtered = [];
  const pages = createHash("sha256");
  for (const q of QUERIES.slice(start, start + count)) {
    let before = process.cpuUsage();
    const answer = await store.listSkills({ q, limit: 20 });
    let used = process.cpuUsage(before);
    plain.push(used.user + used.system);
    pages.update(JSON.stringify(answer.skills.map((s) => [s.skill, s.confidence])));
    before = process.cpuUsage();
    await store.listSkills({ q, limit: 20, verdict: "pass" });
    used = process.cpuUsage(before);
    filtered.push(used.user + used.system);
  }
  await store.close();
  console.log(JSON.stringify({ plain, filtered, pages: pages.digest("hex") }));
}

function run(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [self, "--child", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    proc.stdout.on("data", (chunk) => (out += chunk));
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`child exited ${code}`)),
    );
  });
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

async function main() {
  const seeded = argOf("seeded", undefined);
  if (!seeded) throw new Error("--seeded DIR is required (seed it with bench/registry.mjs --seeded DIR)");
  const sizes = String(argOf("sizes", "1000,10000")).split(",").map(Number);
  const rounds = Number(argOf("rounds", 5));
  const count = Number(argOf("queries", 200));
  if (rounds * count > QUERIES.length - WARM_UP) throw new Error(`at most ${QUERIES.length - WARM_UP} queries in all`);
  const baseline = argOf("tree", undefined);
  const trees = [{ name: "this", dir: here }, ...(baseline ? [{ name: "tree", dir: path.resolve(baseline) }] : [])];
  const work = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-registry-search-"));
  const rows = [];
  const loads = [os.loadavg()[0]];
  try {
    for (const size of sizes) {
      const runs = Object.fromEntries(trees.map((t) => [t.name, []]));
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? trees : [...trees].reverse();
        for (const t of order) {
          // A copy per run: opening a store may migrate or checkpoint, and each run starts from the same bytes.
          const db = path.join(work, `${t.name}.db`);
          copyFileSync(path.join(seeded, `sqlite-${size}`, "registry.db"), db);
          const r = await run([
            t.dir,
            `sqlite:${db}`,
            path.join(seeded, `sqlite-${size}`, "blobs"),
            round * count,
            count,
          ]);
          runs[t.name].push(r);
          rmSync(db, { force: true });
        }
      }
      const same = trees.length < 2 || runs.this.every((r, i) => r.pages === runs.tree[i].pages);
      for (const t of trees) {
        const rs = runs[t.name];
        rows.push([
          size + 1,
          t.name === "this" ? "this checkout" : baseline,
          Math.round(median(rs.map((r) => mean(r.plain)))),
          Math.round(median(rs.map((r) => p99(r.plain)))),
          Math.round(median(rs.map((r) => mean(r.filtered)))),
          Math.round(median(rs.map((r) => p99(r.filtered)))),
          trees.length < 2 ? "—" : same ? "yes" : "NO",
        ]);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  loads.push(os.loadavg()[0]);
  printTable(
    `Registry search, a new query each call, in process (${rounds} rounds × ${count} queries, limit 20; ` +
      `medians of the rounds; load ${loads.map((l) => l.toFixed(1)).join("→")})`,
    ["skills", "tree", "CPU µs mean", "p99", "filtered: CPU µs mean", "p99", "same pages"],
    rows,
  );
}

if (process.argv[2] === "--child") {
  const [tree, database, blobs, start, count] = process.argv.slice(3);
  await child(tree, database, blobs, Number(start), Number(count));
} else await main();
