// Runner pool scale and queueing overhead (issue 27): 1 → 2 → 4 runner processes of the built CLI, each with
// concurrency 1, on a private NATS JetStream server on 127.0.0.1; a sleep-bound job (`sleep 0.2` in the sandbox).
//  - throughput: `jobs` jobs submitted at once, time from the first submit to the last result, per pool size;
//  - queueing overhead: one job at a time on an idle one-runner pool (submit → result), against the same job run
//    locally through the same executor (no queue) and through Workspace.exec; medians.
//  - CPU time per job of the runner processes (their own and their sandboxes', from /proc) and of nats-server: what
//    a loaded host distorts least.
// Standalone: imports the built packages (run `npm run build` first). `--tree=<dir>` measures another checkout's
// build instead (a baseline; run the two alternately and compare).
// Usage: node bench/runners.mjs [jobs=40] [latencyRuns=30] [--tree=<dir>]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { localJob, median, processCpuMs, startNats } from "./lib.mjs";

const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const tree = flags.find((f) => f.startsWith("--tree="))?.slice("--tree=".length);
const repo = path.resolve(tree ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const jobs = Number(positional[0] ?? 40);
const latencyRuns = Number(positional[1] ?? 30);
const { QueueClient, JobExecutor, BlobDirPackageStore, quantile } = await import(
  pathToFileURL(path.join(repo, "packages/runners/dist/index.js")).href
);
const { Workspace } = await import(pathToFileURL(path.join(repo, "packages/runtime/dist/index.js")).href);
const cli = path.join(repo, "packages/cli/dist/cli.js");
const tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-bench-runners-"));
const children = [];
const JOB = { kind: "command", command: "sleep 0.2" };

const { url, child: nats } = await startNats(tmp);
children.push(nats);

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function startRunners(n, prefix) {
  const started = [];
  for (let i = 0; i < n; i++) {
    const child = spawn(
      process.execPath,
      [cli, "runner", "--queue", url, "--prefix", prefix, "--cache", path.join(tmp, `${prefix}-${i}`)],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    children.push(child);
    started.push(
      new Promise((resolve) => child.stderr.on("data", (d) => String(d).includes("taking jobs") && resolve(child))),
    );
  }
  return Promise.all(started);
}

async function stopAll(list) {
  for (const c of list) c.kill("SIGTERM");
  await Promise.all(list.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.once("exit", r)))));
}

const rows = [];
for (const n of [1, 2, 4]) {
  const prefix = `bench${n}`;
  const runners = await startRunners(n, prefix);
  const client = await QueueClient.connect({ queue: url, prefix });
  // Warm-up: each runner prepares its scratch workspace (sandbox probe, launcher).
  await Promise.all(Array.from({ length: n * 2 }, () => client.run({ tenant: "w", run: JOB })));
  const cpu0 = runners.map((r) => processCpuMs(r.pid));
  const nats0 = processCpuMs(nats.pid).self;
  const t0 = performance.now();
  const submitted = [];
  for (let i = 0; i < jobs; i++) submitted.push(await client.submit({ tenant: `t${i % 4}`, run: JOB }));
  const results = await Promise.all(submitted.map((j) => client.result(j.id)));
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = runners.map((r) => processCpuMs(r.pid));
  const runnerSelf = cpu1.reduce((a, c, i) => a + c.self - cpu0[i].self, 0) / jobs;
  const sandboxes = cpu1.reduce((a, c, i) => a + c.children - cpu0[i].children, 0) / jobs;
  const natsCpu = (processCpuMs(nats.pid).self - nats0) / jobs;
  const failed = results.filter((r) => r.status !== "completed" || r.exitCode !== 0).length;
  rows.push({
    n,
    seconds,
    perSecond: jobs / seconds,
    failed,
    runnerSelf,
    sandboxes,
    natsCpu,
    p50: quantile(
      results.map((r) => r.timing.totalMs),
      0.5,
    ),
    p99: quantile(
      results.map((r) => r.timing.totalMs),
      0.99,
    ),
  });
  await client.close();
  await stopAll(runners);
}

// Queueing overhead: sequential jobs on an idle one-runner pool vs the same job run locally.
const runners = await startRunners(1, "lat");
const client = await QueueClient.connect({ queue: url, prefix: "lat" });
await client.run({ tenant: "w", run: JOB });
const executor = new JobExecutor({
  cacheDir: path.join(tmp, "local"),
  packages: new BlobDirPackageStore(path.join(tmp, "blobs")),
});
const ws = new Workspace(path.join(tmp, "ws"));
await executor.run(localJob("warm", JOB), { runner: "local", attempt: 1 });
await ws.exec("sleep 0.2");
const queued = [];
const waited = [];
const local = [];
const plain = [];
const inPool = [];
const paired = [];
for (let i = 0; i < latencyRuns; i++) {
  let t = performance.now();
  const r = await client.run({ tenant: "w", run: JOB });
  const wall = performance.now() - t;
  queued.push(wall);
  waited.push(r.timing.queuedMs);
  // What the pool adds around the executor's own run of this job: submit → executor start, and executor done →
  // result in the caller's hands (the sandbox's variance under load stays out of it).
  inPool.push(wall - (r.timing.totalMs - r.timing.queuedMs));
  t = performance.now();
  // Like a runner: the result first, the job folder's removal after it (both trees' executors take this context).
  const job = localJob(`l${i}`, JOB);
  await executor.run(job, { runner: "local", attempt: 1, deferRemoval: true });
  local.push(performance.now() - t);
  paired.push(queued.at(-1) - local.at(-1));
  await executor.removeJob?.(job);
  t = performance.now();
  await ws.exec("sleep 0.2");
  plain.push(performance.now() - t);
}
await client.close();
await executor.close();
await ws.close();
await stopAll(runners);
for (const c of children) c.kill("SIGTERM");
await sleep(300);
rmSync(tmp, { recursive: true, force: true });

const base = rows[0].perSecond;
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${os.cpus().length} cores; ${jobs} jobs of \`sleep 0.2\` per pool size`,
);
console.log(`tree: ${repo}`);
console.log(
  "| runners | seconds | jobs/s | vs 1 runner | job latency p50 / p99 ms | CPU ms per job: runner / its sandboxes / nats-server | failed |",
);
console.log("|---|---|---|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.n} | ${r.seconds.toFixed(2)} | ${r.perSecond.toFixed(2)} | ${(r.perSecond / base).toFixed(2)}× | ${r.p50} / ${r.p99} | ${r.runnerSelf.toFixed(1)} / ${r.sandboxes.toFixed(1)} / ${r.natsCpu.toFixed(1)} | ${r.failed} |`,
  );
const mq = median(queued);
const ml = median(local);
const mp = median(plain);
console.log(
  `\nOne job at a time, ${latencyRuns} runs, medians: through the queue ${mq.toFixed(1)} ms; the executor locally ${ml.toFixed(1)} ms; Workspace.exec ${mp.toFixed(1)} ms.`,
);
console.log(`Submit → runner start (queuedMs) p50: ${median(waited).toFixed(1)} ms.`);
console.log(
  `Around the runner's executor (client wall − executor time) p50: ${median(inPool).toFixed(1)} ms; paired per-round difference queue − local p50: ${median(paired).toFixed(1)} ms.`,
);
console.log(
  `Queueing overhead p50: ${(mq - ml).toFixed(1)} ms over the executor's local run, ${(mq - mp).toFixed(1)} ms over Workspace.exec.`,
);
