// Sandbox overhead: `true` run through each Skillport sandbox vs a plain spawn of `true`.
// Standalone: imports the built package (run `npx tsc -b packages/runtime` first).
// Usage: node bench/sandbox.mjs [runs=50]
import { spawn } from "node:child_process";
import { mkdtemp, rm, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSandbox, findBubblewrap } from "../packages/sandbox/dist/index.js";

const runs = Number(process.argv[2] ?? 50);
const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-bench-")));

function plainSpawn() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("true", [], { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

const BARE = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "true"];

function bwrapWith(bwrap, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(bwrap, args, { stdio: ["ignore", "pipe", "pipe"], env: {} });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

const timed = (sandbox) => async () => {
  const started = performance.now();
  const r = await sandbox.run({ command: ["true"] });
  if (r.exitCode !== 0) throw new Error(`sandbox ${sandbox.kind} failed: ${r.stderr}`);
  return performance.now() - started;
};

const cases = [["plain spawn('true')", plainSpawn]];
cases.push(["sandbox 'process'", timed(createSandbox({ kind: "process", writableDir: dir }))]);
const bwrap = findBubblewrap();
if (bwrap) {
  const sandbox = createSandbox({ kind: "bubblewrap", writableDir: dir });
  const flags = sandbox.bwrapArgs(["true"], dir, { PATH: "/usr/bin:/bin", HOME: dir, TMPDIR: "/tmp" }, undefined);
  cases.push(["bare bwrap --ro-bind / / (reference)", () => bwrapWith(bwrap, BARE)]);
  cases.push(["bwrap with the sandbox's mounts and flags (reference)", () => bwrapWith(bwrap, flags)]);
  cases.push(["sandbox 'bubblewrap'", timed(sandbox)]);
} else {
  console.log("bwrap not installed: bubblewrap rows skipped");
}

const samples = cases.map(() => []);
for (const [, fn] of cases) await fn(); // warm-up
for (let i = 0; i < runs; i++) {
  // Interleaved so drift on a shared machine hits every case alike.
  for (const [index, [, fn]] of cases.entries()) samples[index].push(await fn());
}
await rm(dir, { recursive: true, force: true });
const loadAverage = os.loadavg()[0];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const base = median(samples[0]);
const pidLimit = (await createSandbox({ kind: "process", writableDir: os.tmpdir() }).run({ command: ["true"] })).pidLimit;
console.log(`Sandbox overhead, ${runs} interleaved runs each, medians (process-count limit: ${pidLimit}; load average ${loadAverage.toFixed(1)} on ${os.cpus().length} cores)`);
console.log("| case | median ms | added vs plain spawn |");
console.log("|---|---|---|");
for (const [index, [name]] of cases.entries()) {
  const m = median(samples[index]);
  console.log(`| ${name} | ${m.toFixed(2)} | ${index === 0 ? "—" : `+${(m - base).toFixed(2)} ms`} |`);
}
const bw = cases.findIndex(([name]) => name === "sandbox 'bubblewrap'");
if (bw >= 0) {
  const added = median(samples[bw]) - base;
  console.log(`\ngoal: sandbox 'bubblewrap' adds < 15 ms (median): ${added < 15 ? "met" : "NOT met"} (+${added.toFixed(2)} ms)`);
}
