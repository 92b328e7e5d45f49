// Search benchmark. (1) Warm search in-process over 10,000 generated skills (metadata + 4 KB body heads): per-query
// latency p50/p99. (2) Whole processes: `skillport search` over a skills folder with a warm on-disk index, against
// `skillport --version` (the CLI's start-up), medians of interleaved runs.
//   node bench/search.mjs [--skills 10000] [--cli-skills 1000] [--runs 7]
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./corpus.mjs";
import { measureInterleaved, printTable, prng, timeNode } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "packages", "cli", "dist", "cli.js");
const { SkillSearchIndex } = await import(path.join(here, "..", "packages", "core", "dist", "index.js"));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const skills = arg("skills", 10_000);
const cliSkills = arg("cli-skills", 1000);
const runs = arg("runs", 7);

// A Zipf-distributed vocabulary of 5,000 pseudo-words (s = 1), like word frequencies in real skill text: a few words
// are everywhere, most are rare.
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => {
  const letters = "bcdfghjklmnprstvz";
  const vowels = "aeiou";
  let w = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / 17)) w += letters[n % 17] + vowels[n % 5];
  return `${w}x`;
});
const CUMULATIVE = (() => {
  let sum = 0;
  const out = VOCABULARY.map((_, i) => (sum += 1 / (i + 1)));
  return out.map((v) => v / sum);
})();
function word(random) {
  const r = random();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo];
}
function words(random, n) {
  return Array.from({ length: n }, () => word(random)).join(" ");
}
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// ---- (1) warm in-process search ----
if (only === undefined || only === "warm") {
  const random = prng(7);
  const started = performance.now();
  const docs = Array.from({ length: skills }, (_, i) => ({
    id: `skill-${String(i).padStart(5, "0")}`,
    description: `${words(random, 14)}. Use when the user asks to ${words(random, 8)}.`,
    metadata: { tags: words(random, 3).split(" ") },
    body: Array.from({ length: 12 }, (_, s) => `## Step ${s} ${words(random, 3)}\n\n${words(random, 40)}\n`).join("\n"),
  }));
  const index = new SkillSearchIndex(docs);
  index.search("warm up the inverted index");
  const built = performance.now() - started;
  const times = [];
  // CPU time of the thread too: on a shared, loaded machine wall time also counts waiting to be scheduled.
  const cpu = [];
  for (let q = 0; q < 2000; q++) {
    const query = words(random, 2 + (q % 5));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    index.search(query, { limit: 5, minConfidence: 0.3 });
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  printTable(
    `Warm search, ${skills} skills (generated, Zipf vocabulary of 5,000 words, 4 KB body heads), 2000 queries of 2–6 words, limit 5`,
    ["measure", "value", "goal"],
    [
      ["index build (analyse + postings)", `${Math.round(built)} ms`, "–"],
      ["p50 per query", `${percentile(times, 50).toFixed(3)} ms`, "< 2 ms"],
      ["p99 per query", `${percentile(times, 99).toFixed(3)} ms`, "< 10 ms"],
      ["p50 / p99 CPU time per query", `${percentile(cpu, 50).toFixed(3)} / ${percentile(cpu, 99).toFixed(3)} ms`, "–"],
      ["max per query", `${times[times.length - 1].toFixed(3)} ms`, "–"],
    ],
  );
}

// ---- (2) whole CLI processes ----
if (only === undefined || only === "cli") {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-search-bench-"));
  try {
    const root = path.join(dir, "skills");
    const cache = path.join(dir, "cache");
    await generateCorpus(root, cliSkills);
    // Old enough to be stored (indexes skip files changed in the last 2 s).
    await new Promise((r) => setTimeout(r, 2100));
    const search = ["search", "review the incident changelog", root, "--cache-dir", cache, "--json"];
    const cold = timeNode([cli, ...search]);
    const rows = measureInterleaved(
      [
        { name: "skillport --version", run: () => timeNode([cli, "--version"]) },
        { name: "skillport search (warm on-disk index)", run: () => timeNode([cli, ...search]) },
        {
          name: "skillport search --no-cache",
          run: () => timeNode([cli, ...search.filter((a) => a !== "--cache-dir" && a !== cache), "--no-cache"]),
        },
      ],
      runs,
    );
    const base = rows[0].ms;
    printTable(
      `CLI, ${cliSkills} skills, medians of ${runs} interleaved runs (whole processes)`,
      ["step", "median ms", "× --version", "goal"],
      [
        ["first search (builds the indexes)", Math.round(cold.ms), (cold.ms / base).toFixed(2), "–"],
        ...rows.map((r, i) => [r.name, Math.round(r.ms), (r.ms / base).toFixed(2), i === 1 ? "< 2×" : "–"]),
      ],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
