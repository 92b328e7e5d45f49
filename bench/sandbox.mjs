// Sandbox overhead, two ways:
//  1. in-process: `true` through each Skillport sandbox vs a plain spawn and a bare bwrap (interleaved runs, medians);
//  2. whole processes, as users run them: `skillport exec --sandbox bubblewrap -- true` vs `skillport --version` and a
//     bare `bwrap … true` (paired runs, medians).
// Standalone: imports the built packages (run `npm run build` first).
// Usage: node bench/sandbox.mjs [runs=50] [wholeRuns=7] [--repo <checkout>]   (--repo: measure another build, e.g. main)
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./lib.mjs";

const argv = process.argv.slice(2);
const repoFlag = argv.indexOf("--repo");
const repo =
  repoFlag >= 0
    ? path.resolve(argv.splice(repoFlag, 2)[1])
    : path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const runs = Number(argv[0] ?? 50);
const wholeRuns = Math.max(5, Number(argv[1] ?? 7));
const { createSandbox, findBubblewrap } = await import(
  pathToFileURL(path.join(repo, "packages/sandbox/dist/index.js")).href
);
const cli = path.join(repo, "packages/cli/dist/cli.js");
const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-bench-")));

// A policy may name a descriptor for bwrap's --seccomp, which the sandbox's launcher opens on the filter: the reference
// rows that start bwrap with that policy directly hand it the same filter on that descriptor.
let filterFile;
try {
  const filter = (
    await import(pathToFileURL(path.join(repo, "packages/sandbox/dist/seccomp.js")).href)
  ).seccompFilter();
  if (filter) writeFileSync((filterFile = path.join(dir, "seccomp.bpf")), filter);
} catch {
  // A build without the filter.
}
/** stdio for spawning bwrap with `args`: the filter at the descriptor `--seccomp` names (the caller closes it). */
function stdioFor(args, out = "pipe") {
  const i = args.indexOf("--seccomp");
  if (i < 0 || filterFile === undefined) return [["ignore", out, out], undefined];
  const fd = openSync(filterFile, "r");
  const stdio = Array.from({ length: Number(args[i + 1]) + 1 }, (_, k) => (k === 1 || k === 2 ? out : "ignore"));
  stdio[stdio.length - 1] = fd;
  return [stdio, fd];
}

function timedSpawn(file, args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [stdio, fd] = stdioFor(args);
    const child = spawn(file, args, { stdio, env });
    if (fd !== undefined) closeSync(fd);
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

// The smallest useful bwrap: the host's root read-only, new namespaces, `true`.
const BARE = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "true"];

const timedRun = (sandbox) => async () => {
  const started = performance.now();
  const r = await sandbox.run({ command: ["true"] });
  if (r.exitCode !== 0) throw new Error(`sandbox ${sandbox.kind} failed: ${r.stderr}`);
  return performance.now() - started;
};

const bwrap = findBubblewrap();
const cases = [["plain spawn('true')", () => timedSpawn("true", [], process.env)]];
const processSandbox = createSandbox({ kind: "process", writableDir: dir });
cases.push(["sandbox 'process'", timedRun(processSandbox)]);
let bubblewrapSandbox;
if (bwrap) {
  bubblewrapSandbox = createSandbox({ kind: "bubblewrap", writableDir: dir });
  const flags = bubblewrapSandbox.bwrapArgs(
    ["true"],
    dir,
    { PATH: "/usr/bin:/bin", HOME: dir, TMPDIR: "/tmp" },
    undefined,
  );
  cases.push(["bare bwrap --ro-bind / / true (reference)", () => timedSpawn(bwrap, BARE)]);
  cases.push(["bwrap with the sandbox's mounts and flags (reference)", () => timedSpawn(bwrap, flags)]);
  cases.push(["sandbox 'bubblewrap'", timedRun(bubblewrapSandbox)]);
} else {
  console.log("bwrap not installed: bubblewrap rows skipped");
}

const samples = cases.map(() => []);
for (const [, fn] of cases) await fn(); // warm-up
for (let i = 0; i < runs; i++) {
  // Interleaved so drift on a shared machine hits every case alike.
  for (const [index, [, fn]] of cases.entries()) samples[index].push(await fn());
}
const probe = await processSandbox.run({ command: ["true"] });
await bubblewrapSandbox?.close();

const base = median(samples[0]);
const bareIndex = cases.findIndex(([name]) => name.startsWith("bare bwrap"));
const bare = bareIndex >= 0 ? median(samples[bareIndex]) : undefined;
console.log(`Build measured: ${repo}`);
console.log(
  `\n1. In-process, ${runs} interleaved runs each, medians (limits: pids ${probe.pidLimit}, memory ${probe.memoryLimit ?? "none"}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
);
console.log("| case | median ms | added vs plain spawn | × bare bwrap |");
console.log("|---|---|---|---|");
for (const [index, [name]] of cases.entries()) {
  const m = median(samples[index]);
  console.log(
    `| ${name} | ${m.toFixed(2)} | ${index === 0 ? "—" : `+${(m - base).toFixed(2)} ms`} | ${bare ? (m / bare).toFixed(2) : "—"} |`,
  );
}
const bw = cases.findIndex(([name]) => name === "sandbox 'bubblewrap'");
if (bw >= 0) {
  const added = median(samples[bw]) - base;
  console.log(
    `\ngoal: sandbox 'bubblewrap' adds < 15 ms over a plain spawn (median): ${added < 15 ? "met" : "NOT met"} (+${added.toFixed(2)} ms)`,
  );
}

// 2. Whole processes, paired: each round runs every command once, in the same order. Two floors show what the goal is
// up against: the sandbox's own process chain (bwrap with the policy, the identity drop, bash) started directly, and a
// bare `node` process starting that same chain (what any Node CLI using this policy pays, before loading anything).
const chain = bubblewrapSandbox?.bwrapArgs(["/bin/bash", "-c", "true"], dir, {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: dir,
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
});
const chainStdio = chain && stdioFor(chain, "ignore")[0].map((s) => (typeof s === "number" ? "FILTER" : s));
const nodeChain =
  chain &&
  `const fs = require("fs"); const stdio = ${JSON.stringify(chainStdio)}.map((s) => (s === "FILTER" ? fs.openSync(${JSON.stringify(filterFile ?? "")}, "r") : s));` +
    `require("child_process").spawnSync(${JSON.stringify(bwrap)}, ${JSON.stringify(chain)}, { stdio, env: {} })`;
const chainSync = () => {
  const [stdio, fd] = stdioFor(chain);
  const result = spawnSync(bwrap, chain, { env: {}, stdio });
  if (fd !== undefined) closeSync(fd);
  return result;
};
const whole = [
  ["node -e 0", () => spawnSync(process.execPath, ["-e", "0"])],
  ["skillport --version", () => spawnSync(process.execPath, [cli, "--version"])],
  ...(bwrap
    ? [
        ["bare bwrap --ro-bind / / true", () => spawnSync(bwrap, BARE)],
        ["floor: the sandbox's chain (bwrap policy, setpriv, bash -c true), no node", chainSync],
        ["floor: node -e starting that chain", () => spawnSync(process.execPath, ["-e", nodeChain])],
        [
          "skillport exec --sandbox bubblewrap -- true",
          () => spawnSync(process.execPath, [cli, "exec", "-w", dir, "--sandbox", "bubblewrap", "--", "true"]),
        ],
      ]
    : []),
  [
    "skillport exec --sandbox process -- true",
    () => spawnSync(process.execPath, [cli, "exec", "-w", dir, "--sandbox", "process", "--", "true"]),
  ],
];
const wall = whole.map(() => []);
for (const [, fn] of whole) fn(); // warm-up (probe cache, page cache)
for (let i = 0; i < wholeRuns; i++) {
  for (const [index, [name, fn]] of whole.entries()) {
    const started = performance.now();
    const result = fn();
    wall[index].push(performance.now() - started);
    if (result.status !== 0)
      throw new Error(`${name} failed (${result.status}): ${String(result.stderr).slice(0, 500)}`);
  }
}
await rm(dir, { recursive: true, force: true });
const m = (name) => median(wall[whole.findIndex(([n]) => n === name)]);
const version = m("skillport --version");
const bareWhole = bwrap ? m("bare bwrap --ro-bind / / true") : undefined;
console.log(`\n2. Whole processes, ${wholeRuns} paired rounds, medians (load average ${os.loadavg()[0].toFixed(1)})`);
console.log("| command | median ms | − skillport --version | × bare bwrap |");
console.log("|---|---|---|---|");
for (const [index, [name]] of whole.entries()) {
  const v = median(wall[index]);
  console.log(
    `| ${name} | ${v.toFixed(1)} | ${(v - version >= 0 ? "+" : "") + (v - version).toFixed(1)} ms | ${bareWhole ? (v / bareWhole).toFixed(1) : "—"} |`,
  );
}
if (bwrap) {
  const gap = m("skillport exec --sandbox bubblewrap -- true") - version;
  console.log(
    `\ngoal: skillport exec --sandbox bubblewrap -- true <= skillport --version + 20 ms: ${gap <= 20 ? "met" : "NOT met"} (+${gap.toFixed(1)} ms)`,
  );
  const floor = m("floor: node -e starting that chain") - m("node -e 0");
  console.log(
    `the floor itself: node -e starting the chain = node -e 0 + ${floor.toFixed(1)} ms; skillport exec = that floor + ${(m("skillport exec --sandbox bubblewrap -- true") - m("floor: node -e starting that chain")).toFixed(1)} ms`,
  );
}
