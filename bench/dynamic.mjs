// Least-privilege runs (issue 26):
//  1. overhead: a bubblewrap run of `true` plain vs under a declared policy (egress proxy + in-sandbox forwarder), and
//     with the trace too — paired, interleaved rounds, medians of the per-round differences;
//  2. `audit --dynamic` (runtime's detonateSkill) on the examples and on real public skills (bench/skill-corpus.mjs).
// Standalone: imports the built packages (`npx tsc -b tsconfig.build.json` first).
//   node bench/dynamic.mjs [rounds=15] [skills=50] [--snapshots DIR] [--overhead-only]
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./lib.mjs";
import { readSet, SETS } from "./retrieval/make-corpus.mjs";
import { materialiser, readSkillFolder } from "./skill-corpus.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const snapshots = flag("--snapshots", process.env.SKILLPORT_SNAPSHOTS ?? "/work/.mirror");
const overheadOnly = args.includes("--overhead-only") && args.splice(args.indexOf("--overhead-only"), 1).length > 0;
const rounds = Math.max(5, Number(args[0] ?? 15));
const skillCount = Number(args[1] ?? 50);
const load = (pkg) => import(pathToFileURL(path.join(repo, `packages/${pkg}/dist/index.js`)).href);
const [{ createSandbox, findBubblewrap, runUnderPolicy }, { effectivePolicy, readDeclaration }, { detonateSkill }] =
  await Promise.all([load("sandbox"), load("core"), load("runtime")]);

if (!findBubblewrap()) {
  console.log("bubblewrap is not usable here: nothing measured");
  process.exit(0);
}

// --- 1. overhead ---
const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-bench-lp-")));
const sandbox = createSandbox({ kind: "bubblewrap", writableDir: dir });
const policy = effectivePolicy(
  { network: [{ host: "api.example.com", private: false }] },
  readDeclaration({ "skillport.network": "api.example.com" }).declaration,
);
const request = { command: ["/bin/true"], timeoutMs: 10_000 };
const time = async (fn) => {
  const t = process.hrtime.bigint();
  const r = await fn();
  if (r.exitCode !== 0) throw new Error(`run failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const cases = {
  plain: () => sandbox.run(request),
  proxy: () => runUnderPolicy(sandbox, request, policy),
  "proxy + trace": () => runUnderPolicy(sandbox, request, policy, { trace: true }),
};
for (const fn of Object.values(cases)) await time(fn); // warm-up
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < rounds; i++) {
  // Rotating order: no case always runs first after a pause.
  const names = Object.keys(cases);
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length];
    samples[name].push(await time(cases[name]));
  }
}
await sandbox.close();
await rm(dir, { recursive: true, force: true });
const diffs = (name) => samples[name].map((v, i) => v - samples.plain[i]);
console.log(`overhead, ${rounds} paired rounds (bubblewrap, /bin/true), load ${os.loadavg()[0].toFixed(1)}:`);
console.log(`  plain run                      median ${median(samples.plain).toFixed(1)} ms`);
for (const name of ["proxy", "proxy + trace"]) {
  console.log(
    `  ${name.padEnd(30)} median ${median(samples[name]).toFixed(1)} ms, paired difference median +${median(diffs(name)).toFixed(1)} ms (min ${Math.min(...diffs(name)).toFixed(1)}, max +${Math.max(...diffs(name)).toFixed(1)})`,
  );
}

// --- 2. detonation ---
if (overheadOnly) process.exit(0);
async function detonateAll(label, skills) {
  const rows = [];
  const started = Date.now();
  for (const s of skills) {
    const r = await detonateSkill(s.files);
    rows.push({
      id: s.id,
      runs: r.runs.length,
      skipped: r.skipped.length,
      ms: r.durationMs,
      findings: r.findings,
      timedOut: r.runs.filter((x) => x.record.exit.timedOut).length,
    });
  }
  const ms = rows.map((r) => r.ms);
  const flagged = rows.filter((r) => r.findings.some((f) => f.level !== "review"));
  console.log(
    `\naudit --dynamic, ${label}: ${rows.length} skills, ${rows.reduce((a, r) => a + r.runs, 0)} commands run, ${rows.reduce((a, r) => a + r.skipped, 0)} not run (budget/count), ${rows.reduce((a, r) => a + r.timedOut, 0)} timed out`,
  );
  console.log(
    `  per skill: median ${(median(ms) / 1000).toFixed(2)} s, max ${(Math.max(...ms) / 1000).toFixed(2)} s; total ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`  skills with warn/malicious dynamic findings: ${flagged.length}`);
  for (const f of flagged)
    console.log(
      `    ${f.id}: ${[...new Set(f.findings.filter((x) => x.level !== "review").map((x) => `${x.code} (${x.evidence})`))].join("; ")}`,
    );
  const codes = new Map();
  for (const r of rows) for (const f of r.findings) codes.set(f.code, (codes.get(f.code) ?? 0) + 1);
  console.log(`  findings by code: ${[...codes].map(([c, n]) => `${c} ${n}`).join(", ") || "none"}`);
}

const exampleSkills = readdirSync(path.join(repo, "examples/skills")).map((name) => ({
  id: `examples/${name}`,
  files: readSkillFolder(path.join(repo, "examples/skills", name)),
}));
await detonateAll("examples/skills", exampleSkills);

const materialise = materialiser(snapshots, path.join(repo, ".bench-tmp/audit-benign"));
const corpus = [];
for (const set of Object.keys(SETS)) {
  for (const source of readSet(set).corpus.sources) {
    if (!existsSync(path.join(snapshots, source.repo.replace("/", "+")))) continue;
    const got = materialise(set, source);
    if (!got.skipped) corpus.push(...got.skills);
  }
}
// Skills with something to run first (scripts or shell fences), then the rest, up to the count.
const runnable = (s) =>
  s.files.some((f) => f.path.startsWith("scripts/") || f.path === "entrypoint.sh") ||
  /```(?:bash|sh|shell|console)\b/.test(String(s.files.find((f) => f.path === "SKILL.md")?.bytes ?? ""));
const chosen = [...corpus.filter(runnable), ...corpus.filter((s) => !runnable(s))].slice(0, skillCount);
if (chosen.length === 0)
  console.log(`\nno public skills found under ${snapshots} (fetch the repositories bench/retrieval names)`);
else
  await detonateAll(`real public skills (${[...new Set(chosen.map((s) => s.id.split(":")[0]))].join(", ")})`, chosen);
