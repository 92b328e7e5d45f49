// Least-privilege runs (issue 26):
//  1. overhead: a bubblewrap run of `true` plain vs under a declared policy (egress proxy + in-sandbox forwarder), and
//     with the trace too — paired, interleaved rounds, medians of the per-round differences;
//  2. `audit --dynamic` (runtime's detonateSkill) on the examples and on real public skills (bench/skill-corpus.mjs).
// Standalone: imports the built packages (`npx tsc -b tsconfig.build.json` first).
//   node bench/dynamic.mjs [rounds=15] [skills=50] [--snapshots DIR] [--overhead-only] [--gap MS]
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
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
const gapMs = Number(flag("--gap", "60"));
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
// Each case has its own sandbox (a sandbox prepares its next launcher for the kind of its last run, as a host that
// runs a skill's scripts does), runs in a rotating order, and waits `gapMs` before each run so the launcher prepared
// after the previous run (25 ms after it starts) has been started — the steady state of a long-lived host. The cold
// cases prepare nothing ahead (`prewarm: false`): the launcher, and for the proxy its forwarder, start on the run's path.
// CPU: where cgroup v1's cpuacct is writable, the bench moves itself into a group of its own and reads its usage
// (every descendant counts, also the forwarder's processes, which are reparented when killed); the window of a run is
// from its start to the next run's start, so it includes the launcher it prepares for the next run.
const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-bench-lp-")));
const policy = effectivePolicy(
  { network: [{ host: "api.example.com", private: false }] },
  readDeclaration({ "skillport.network": "api.example.com" }).declaration,
);
const request = { command: ["/bin/true"], timeoutMs: 10_000 };
const cpu = cpuClock();
const make = (options) => createSandbox({ kind: "bubblewrap", writableDir: dir, ...options });
const boxes = {
  plain: make({}),
  proxy: make({ prewarmEgress: true }),
  "proxy + trace": make({ prewarmEgress: true }),
  "plain, cold": make({ prewarm: false }),
  "proxy, cold": make({ prewarm: false }),
};
const cases = {
  plain: () => boxes.plain.run(request),
  proxy: () => runUnderPolicy(boxes.proxy, request, policy),
  "proxy + trace": () => runUnderPolicy(boxes["proxy + trace"], request, policy, { trace: true }),
  "plain, cold": () => boxes["plain, cold"].run(request),
  "proxy, cold": () => runUnderPolicy(boxes["proxy, cold"], request, policy),
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const check = (r) => {
  if (r.exitCode !== 0) throw new Error(`run failed: ${r.stderr}`);
};
for (const fn of Object.values(cases)) check(await fn()); // warm-up (each sandbox's launcher kind settles)
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const cpuSamples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const nodeCpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const loads = [os.loadavg()[0]];
let open; // [case, cpu at its start]
const names = Object.keys(cases);
for (let i = 0; i < rounds; i++) {
  // Rotating order: no case always runs first after a pause.
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length];
    await sleep(gapMs);
    const c = cpu?.();
    if (open !== undefined && c !== undefined) cpuSamples[open[0]].push(c - open[1]);
    if (c !== undefined) open = [name, c];
    const t = process.hrtime.bigint();
    const own = process.cpuUsage();
    check(await cases[name]());
    samples[name].push(Number(process.hrtime.bigint() - t) / 1e6);
    const used = process.cpuUsage(own);
    nodeCpu[name].push((used.user + used.system) / 1000);
  }
  loads.push(os.loadavg()[0]);
}
await sleep(gapMs);
if (open !== undefined && cpu !== undefined) cpuSamples[open[0]].push(cpu() - open[1]);
for (const box of Object.values(boxes)) await box.close();
await rm(dir, { recursive: true, force: true });
const diffs = (name, base) => samples[name].map((v, i) => v - samples[base][i]);
const cpuText = (name) =>
  `; this process's CPU during the run median ${median(nodeCpu[name]).toFixed(2)} ms` +
  (cpuSamples[name].length === 0 ? "" : `; CPU of everything median ${median(cpuSamples[name]).toFixed(1)} ms`);
console.log(
  `overhead, ${rounds} rounds (bubblewrap, /bin/true, rotating order, ${gapMs} ms idle before each run), load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}${cpu === undefined ? " (CPU not measured: no writable cgroup v1 cpuacct)" : ""}:`,
);
for (const [name, base] of [
  ["plain", undefined],
  ["proxy", "plain"],
  ["proxy + trace", "plain"],
  ["plain, cold", undefined],
  ["proxy, cold", "plain, cold"],
]) {
  const d = base === undefined ? undefined : diffs(name, base);
  console.log(
    `  ${name.padEnd(16)} median ${median(samples[name]).toFixed(1)} ms${d === undefined ? "" : `, paired difference vs ${base} median ${signed(median(d))} ms (min ${signed(Math.min(...d))}, max ${signed(Math.max(...d))})`}${cpuText(name)}`,
  );
}

function signed(v) {
  return `${v >= 0 ? "+" : ""}${v.toFixed(1)}`;
}

/** ms of CPU used by this process and every descendant so far (cgroup v1 cpuacct), or undefined where not writable. */
function cpuClock() {
  try {
    const own = /^\d+:[^:]*\bcpuacct\b[^:]*:(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
    const root = ["/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct"].find((p) => existsSync(`${p}/cpuacct.usage`));
    if (own === undefined || root === undefined) return undefined;
    const group = path.join(root, own, `skillport-bench-${process.pid}`);
    mkdirSync(group);
    writeFileSync(path.join(group, "cgroup.procs"), String(process.pid));
    process.once("exit", () => {
      try {
        writeFileSync(path.join(root, own, "cgroup.procs"), String(process.pid));
        rmdirSync(group);
      } catch {
        // Left for the host to remove.
      }
    });
    return () => Number(readFileSync(path.join(group, "cpuacct.usage"), "utf8")) / 1e6;
  } catch {
    return undefined;
  }
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

if (skillCount === 0) process.exit(0);
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
