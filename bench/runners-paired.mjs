// Queueing overhead of this build against another (a baseline), measured in the same run, job by job (issue 27).
// One NATS JetStream server; a one-runner pool per tree (its own prefix, its own runner process, its own client);
// each round runs `sleep 0.2` through each pool and through each tree's executor locally, in alternating order, so
// the host's load hits both trees alike. Reported per tree, medians over the rounds:
//  - overhead: queue wall time − the same round's local run (what bench/runners.mjs reports, paired);
//  - around the executor: queue wall time − the runner's own executor time (the sandbox's variance left out);
//  - submit → runner start (the result's queuedMs) and the runner's and nats-server's CPU per job (/proc).
// Standalone: both trees must be built (`npm run build`). A tree's client talks only to its own pool, so a pool's
// buckets are made the way that tree makes them.
// Usage: node bench/runners-paired.mjs --vs=<baseline tree> [rounds=60]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { localJob, median, processCpuMs, startNats } from "./lib.mjs";

const args = process.argv.slice(2);
const vs = args.find((a) => a.startsWith("--vs="))?.slice("--vs=".length);
if (vs === undefined) throw new Error("usage: node bench/runners-paired.mjs --vs=<baseline tree> [rounds=60]");
const rounds = Number(args.find((a) => !a.startsWith("--")) ?? 60);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const JOB = { kind: "command", command: "sleep 0.2" };
const tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-runners-paired-"));
const children = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { url, child: nats } = await startNats(tmp);
children.push(nats);

async function pool(name, tree) {
  const { QueueClient, JobExecutor, BlobDirPackageStore } = await import(
    pathToFileURL(path.join(tree, "packages/runners/dist/index.js")).href
  );
  const runner = spawn(
    process.execPath,
    [
      path.join(tree, "packages/cli/dist/cli.js"),
      "runner",
      "--queue",
      url,
      "--prefix",
      name,
      "--cache",
      path.join(tmp, `${name}-runner`),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(runner);
  await new Promise((resolve) => runner.stderr.on("data", (d) => String(d).includes("taking jobs") && resolve()));
  const client = await QueueClient.connect({ queue: url, prefix: name });
  const executor = new JobExecutor({
    cacheDir: path.join(tmp, `${name}-local`),
    packages: new BlobDirPackageStore(path.join(tmp, "blobs")),
  });
  let n = 0;
  const local = async () => {
    const job = localJob(`l${n++}`, JOB);
    const t = performance.now();
    await executor.run(job, { runner: "local", attempt: 1, deferRemoval: true });
    const ms = performance.now() - t;
    await executor.removeJob(job);
    return ms;
  };
  await client.run({ tenant: "w", run: JOB });
  await local();
  return { name, tree, runner, client, executor, local, queued: [], around: [], waited: [], paired: [] };
}

const pools = [await pool("base", path.resolve(vs)), await pool("this", here)];
const cpu0 = pools.map((p) => processCpuMs(p.runner.pid));
let natsCpu = 0;
for (let i = 0; i < rounds; i++) {
  for (const p of i % 2 === 0 ? pools : [...pools].reverse()) {
    const n0 = processCpuMs(nats.pid).self;
    const t = performance.now();
    const r = await p.client.run({ tenant: "w", run: JOB });
    const wall = performance.now() - t;
    if (p.name === "this") natsCpu += processCpuMs(nats.pid).self - n0;
    p.queued.push(wall);
    p.waited.push(r.timing.queuedMs);
    p.around.push(wall - (r.timing.totalMs - r.timing.queuedMs));
    p.paired.push(wall - (await p.local()));
  }
}
const cpu1 = pools.map((p) => processCpuMs(p.runner.pid));
for (const p of pools) {
  await p.client.close();
  await p.executor.close();
}
for (const c of children) c.kill("SIGTERM");
await sleep(500);
rmSync(tmp, { recursive: true, force: true });

console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${os.cpus().length} cores; ${rounds} rounds of \`sleep 0.2\`, trees alternated job by job`,
);
console.log(
  "| tree | overhead over the local run p50 ms | around the runner's executor p50 ms | submit → start p50 ms | runner CPU ms per job |",
);
console.log("|---|---|---|---|---|");
pools.forEach((p, i) =>
  console.log(
    `| ${p.name} (${p.tree}) | ${median(p.paired).toFixed(1)} | ${median(p.around).toFixed(1)} | ${median(p.waited).toFixed(1)} | ${((cpu1[i].self - cpu0[i].self) / rounds).toFixed(1)} |`,
  ),
);
console.log(`nats-server CPU per job of this tree's pool: ${(natsCpu / rounds).toFixed(1)} ms`);
const [base, mine] = pools;
const diff = mine.paired.map((v, i) => v - base.paired[i]);
console.log(`Per round, this tree's overhead − the baseline's, p50: ${median(diff).toFixed(1)} ms.`);
