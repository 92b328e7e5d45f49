// Submit → runner start and submit → result of this build against another, job by job (issue 27, decision 0443).
// One runner process per tree (its own prefix) on the NATS server at $SKILLPORT_TEST_NATS (default 127.0.0.1:4222);
// rounds alternate the trees' order; the start time is the runner's `started` event (same host clock, sub-ms).
// The two pools are not alike in position (the second pool measured slower by up to ~1 ms in both orders), so run it
// twice with the trees swapped and take half the difference of the two "paired" lines as the change.
// Usage: node bench/runners-start-paired.mjs main <baseline tree> <this tree> [rounds=60]   (both trees built)
import path from "node:path";
import os from "node:os";
import { mkdtempSync } from "node:fs";
import { spawn } from "node:child_process";
const now = () => performance.timeOrigin + performance.now();
const [mode, a, b, c] = process.argv.slice(2);
const Q = process.env.SKILLPORT_TEST_NATS ?? "nats://127.0.0.1:4222";
if (mode === "runner") {
  const { Runner, JobExecutor, BlobDirPackageStore } = await import(path.join(a, "packages/runners/dist/index.js"));
  const tmp = mkdtempSync(path.join(os.tmpdir(), "r2p-"));
  const r = new Runner({
    queue: Q,
    prefix: b,
    executor: new JobExecutor({
      cacheDir: path.join(tmp, "c"),
      packages: new BlobDirPackageStore(path.join(tmp, "b")),
    }),
    onEvent: (e) => {
      if (e.type === "started") process.stdout.write(`S ${e.id} ${now()} ${e.early ?? ""}\n`);
    },
  });
  await r.start();
  process.stdout.write("READY\n");
  process.on("SIGTERM", async () => {
    await r.stop(1000);
    process.exit(0);
  });
} else {
  const trees = [a, b];
  const rounds = Number(c ?? 60);
  const pools = [];
  for (const [i, tree] of trees.entries()) {
    const prefix = `p${i}x${Date.now().toString(36)}`;
    const child = spawn(process.execPath, [process.argv[1], "runner", tree, prefix], {
      stdio: ["ignore", "pipe", process.env.R2_TRACE ? "inherit" : "ignore"],
    });
    const started = new Map();
    let ready;
    const readyP = new Promise((r) => (ready = r));
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      let k;
      while ((k = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, k);
        buf = buf.slice(k + 1);
        if (line === "READY") ready();
        else {
          const [, id, t, e] = line.split(" ");
          started.set(id, { t: Number(t), e });
        }
      }
    });
    await readyP;
    const { QueueClient } = await import(path.join(tree, "packages/runners/dist/index.js"));
    const client = await QueueClient.connect({ queue: Q, prefix });
    pools.push({ tree, child, client, started, toStart: [], total: [], wall: [], early: 0 });
  }
  const med = (v) => {
    const s = [...v].sort((x, y) => x - y);
    return s[Math.floor(s.length / 2)];
  };
  for (let i = 0; i < rounds; i++)
    for (const p of i % 2 ? [...pools].reverse() : pools) {
      const id = `j${i}${Math.random().toString(36).slice(2, 8)}`;
      const t0 = now();
      const r = await p.client.run({ id, tenant: "w", run: { kind: "command", command: "sleep 0.05" } });
      const t1 = now();
      await new Promise((r) => setTimeout(r, 5));
      const s = p.started.get(id);
      p.toStart.push(s.t - t0);
      p.wall.push(t1 - t0);
      p.total.push(t1 - t0 - (r.timing.runMs ?? 0));
      if (s.e === "true") p.early++;
    }
  console.log(
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  for (const p of pools)
    console.log(
      `${p.tree}: submit→started p50 ${med(p.toStart).toFixed(2)} ms; wall−runMs p50 ${med(p.total).toFixed(2)}; early ${p.early}/${rounds}`,
    );
  const d = (k) => med(pools[1][k].map((v, i) => v - pools[0][k][i])).toFixed(2);
  console.log(
    `paired (second − first) p50: submit→started ${d("toStart")}, wall−runMs ${d("total")}, wall ${d("wall")}`,
  );
  for (const p of pools) {
    p.child.kill("SIGTERM");
    await p.client.close();
  }
}
