// The pool in one process against the NATS JetStream server on 127.0.0.1:4222 (each test its own prefix).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { packDirectory } from "@skillport/pack";
import {
  BlobDirPackageStore,
  JobExecutor,
  PostgresSessionStore,
  QueueClient,
  Runner,
  RunnerError,
  jobSpecSchema,
  type JobResult,
  type RunnerEvent,
} from "@skillport/runners";

const QUEUE = process.env.SKILLPORT_TEST_NATS ?? "nats://127.0.0.1:4222";
const PG = process.env.SKILLPORT_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const example = path.resolve(import.meta.dirname, "../../../examples/package");
let tmp: string;
let store: BlobDirPackageStore;
let pkg: { versionId: string; digest: string };
let n = 0;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "runners-test-"));
  store = new BlobDirPackageStore(path.join(tmp, "blobs"));
  const packed = await packDirectory(example);
  pkg = await store.put(packed.versionId, packed.archive);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function pool(
  options: {
    concurrency?: number;
    maxQueuedPerTenant?: number;
    runners?: number;
    sessions?: PostgresSessionStore;
    maxAttempts?: number;
    metricsPort?: number;
    prefix?: string;
  } = {},
) {
  const prefix = options.prefix ?? `rt${Date.now().toString(36)}${n++}`;
  const events: RunnerEvent[] = [];
  const runners: Runner[] = [];
  for (let i = 0; i < (options.runners ?? 1); i++) {
    const executor = new JobExecutor({
      cacheDir: path.join(tmp, `${prefix}-${i}`),
      packages: store,
      sessions: options.sessions,
    });
    const runner = new Runner({
      queue: QUEUE,
      prefix,
      executor,
      concurrency: options.concurrency ?? 1,
      maxAttempts: options.maxAttempts ?? 3,
      metricsPort: options.metricsPort,
      onEvent: (e) => events.push(e),
    });
    runners.push(runner);
  }
  const client = await QueueClient.connect({ queue: QUEUE, prefix, maxQueuedPerTenant: options.maxQueuedPerTenant });
  return {
    prefix,
    client,
    events,
    runners,
    start: () => Promise.all(runners.map((r) => r.start())),
    close: async () => {
      await Promise.all(runners.map((r) => r.stop(1_000)));
      await client.close();
      await dropStreams(prefix);
    },
  };
}

/** The shared server keeps nothing of a test: its prefix's streams and buckets go. */
async function dropStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: QUEUE });
  const jsm = await jetstreamManager(nc);
  const upper = prefix.toUpperCase();
  for (const name of [`${upper}_JOBS`, `${upper}_DEAD`, `KV_${prefix}-results`, `KV_${prefix}-runners`])
    await jsm.streams.delete(name).catch(() => undefined);
  await nc.close();
}

describe("job protocol", () => {
  it("refuses ids and tenants that are not subject tokens, and script paths that leave the skill", () => {
    const base = { id: "a", tenant: "t", run: { kind: "command", command: "true" }, submittedAt: 0 };
    expect(jobSpecSchema.safeParse(base).success).toBe(true);
    expect(jobSpecSchema.safeParse({ ...base, id: "a.b" }).success).toBe(false);
    expect(jobSpecSchema.safeParse({ ...base, tenant: "t.>" }).success).toBe(false);
    expect(jobSpecSchema.safeParse({ ...base, run: { kind: "script", skill: "..", script: "x.sh" } }).success).toBe(
      false,
    );
    expect(jobSpecSchema.safeParse({ ...base, run: { kind: "script", skill: "s", script: "../x.sh" } }).success).toBe(
      false,
    );
  });

  it("the package store refuses bytes whose digest is not the job's", async () => {
    const wrong = `sha256:${"0".repeat(64)}`;
    const error = await store.get(pkg.versionId, wrong).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe("PACKAGE_DIGEST");
  });
});

/** Every message on `subject` until `stop()`. */
async function listen(subject: string): Promise<{ got: string[]; stop: () => Promise<void> }> {
  const nc = await connect({ servers: QUEUE });
  const got: string[] = [];
  nc.subscribe(subject, {
    callback: (_e, msg) => {
      got.push(msg.string());
    },
  });
  await nc.flush();
  return { got, stop: () => nc.close() };
}

describe("result notices (decision 0442)", () => {
  it("the server announces a recorded result on its done subject with its bytes, and never a refused second write", async () => {
    const p = await pool();
    const notices = await listen(`${p.prefix}.done.*`);
    const nc = await connect({ servers: QUEUE });
    try {
      const results = await new Kvm(nc).open(`${p.prefix}-results`);
      await results.create("r.job1", '{"first":true}');
      await expect(results.create("r.job1", '{"second":true}')).rejects.toThrow();
      await results.create("claim.job1", "lease"); // not a result: no notice
      await nc.flush();
      for (let i = 0; i < 40 && notices.got.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 200)); // anything else would have arrived by now
      expect(notices.got).toEqual(['{"first":true}']);
    } finally {
      await nc.close();
      await notices.stop();
      await p.close();
    }
  });

  it.each([
    ["a bucket that republishes", false],
    ["a bucket made without the rule (an older pool)", true],
  ])("a runner on %s announces each result once", async (_name, older) => {
    const prefix = `rt${Date.now().toString(36)}${n++}`;
    if (older) {
      // Made as before decision 0442; the server may or may not let the runner add the rule (NATS 2.10+ does).
      const nc = await connect({ servers: QUEUE });
      await new Kvm(nc).create(`${prefix}-results`, { history: 1, ttl: 3600_000 });
      await nc.close();
    }
    const p = await pool({ prefix });
    const notices = await listen(`${p.prefix}.done.*`);
    await p.start();
    try {
      const result = await p.client.run({ tenant: "a", run: { kind: "command", command: "echo hi" } });
      expect(result.stdoutTail).toBe("hi\n");
      await new Promise((r) => setTimeout(r, 200));
      expect(notices.got.map((m) => (JSON.parse(m) as JobResult).id)).toEqual([result.id]);
    } finally {
      await notices.stop();
      await p.close();
    }
  });
});

describe("runner pool", () => {
  it("runs a command in a deployed version and returns the observation, tails, exit and outputs", async () => {
    const p = await pool();
    await p.start();
    try {
      const result = await p.client.run(
        {
          tenant: "a",
          package: pkg,
          run: {
            kind: "command",
            command:
              'echo out; echo err >&2; ls "$SKILLPORT_VERSION_DIR/skills"; printf report > "$SKILLPORT_OUTPUTS/r.txt"; exit 3',
          },
        },
        { timeoutMs: 60_000 },
      );
      expect(result.status).toBe("completed");
      expect(result.exitCode).toBe(3);
      expect(result.stdoutTail).toContain("word-stats");
      expect(result.stderrTail).toBe("err\n");
      expect(result.observation).toContain("Command exited with code 3");
      expect(result.outputs).toEqual([
        expect.objectContaining({ path: "r.txt", size: 6, base64: Buffer.from("report").toString("base64") }),
      ]);
      expect(result.entrypoint).toBe("ran");
      // A second job on the same version: the entrypoint does not run again on this runner.
      const again = await p.client.run(
        {
          tenant: "a",
          package: pkg,
          run: {
            kind: "script",
            skill: "word-stats",
            script: "stats.sh",
            args: [path.join(tmp, `${p.prefix}-0`, "v", pkg.versionId, "projects", pkg.versionId, "README.md")],
          },
        },
        { timeoutMs: 60_000 },
      );
      expect(again.exitCode).toBe(0);
      expect(again.stdoutTail).toMatch(/^lines \d+/);
      expect(again.entrypoint).toBe("ran"); // the outcome of this runner's one run, not a second run
    } finally {
      await p.close();
    }
    // The runner restarted on its cache: the version is present and its entrypoint is not run again.
    const restarted = new JobExecutor({ cacheDir: path.join(tmp, `${p.prefix}-0`), packages: store });
    try {
      const third = await restarted.run(
        {
          v: 1,
          id: "after-restart",
          tenant: "a",
          package: pkg,
          run: { kind: "command", command: "true" },
          timeoutS: 30,
          env: {},
          files: [],
          submittedAt: Date.now(),
        },
        { runner: "r", attempt: 1 },
      );
      expect(third.entrypoint).toBe("skipped");
      expect(third.exitCode).toBe(0);
    } finally {
      await restarted.close();
    }
  });

  it("reports status and Prometheus metrics: completed, failures by reason, latency quantiles", async () => {
    const p = await pool({ metricsPort: 0 });
    const [started] = await p.start();
    const metricsPort = started?.metricsPort;
    try {
      await p.client.run({ tenant: "a", run: { kind: "command", command: "true" } }, { timeoutMs: 30_000 });
      await p.client.run({ tenant: "a", run: { kind: "command", command: "exit 1" } }, { timeoutMs: 30_000 });
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(text).toMatch(/^skillport_runner_jobs_completed_total\{runner="[^"]+"\} 2$/m);
      expect(text).toMatch(/^skillport_runner_failures_total\{runner="[^"]+",reason="exit-nonzero"\} 1$/m);
      expect(text).toMatch(/^skillport_runner_job_latency_seconds\{runner="[^"]+",quantile="0.99"\} \d+\.\d+$/m);
      await new Promise((r) => setTimeout(r, 2_500)); // the runner publishes its statistics every 2 s
      const status = await p.client.status();
      expect(status).toMatchObject({ completed: 2, failures: { "exit-nonzero": 1 }, queued: 0, deadLetters: 0 });
      expect(status.runners).toHaveLength(1);
      expect(status.latencyMs.samples).toBe(2);
      expect(status.latencyMs.p99).toBeGreaterThanOrEqual(status.latencyMs.p50!);
    } finally {
      await p.close();
    }
  });

  it("an id submitted twice runs once and its result is recorded once", async () => {
    const p = await pool();
    await p.client.submit({ id: "same-id", tenant: "a", run: { kind: "command", command: "echo once" } });
    await p.client.submit({ id: "same-id", tenant: "a", run: { kind: "command", command: "echo twice" } });
    await p.start();
    try {
      const result = await p.client.result("same-id", { timeoutMs: 30_000 });
      expect(result.stdoutTail).toBe("once\n");
      await new Promise((r) => setTimeout(r, 1_500));
      expect(p.events.filter((e) => e.type === "started")).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it("an idle runner's lease goes out with its pull; a tentative lease does not hold back the runner the job reaches", async () => {
    const p = await pool({ runners: 2 });
    await p.start();
    const nc = await connect({ servers: QUEUE });
    try {
      // One job at a time on idle runners, each of a tenant with nothing else queued: the lease goes out while the
      // pull is out (decision 0443), on the runner whose create wins (the other one's pull may bring the job instead).
      for (let i = 0; i < 4; i++) {
        const r = await p.client.run({ id: `early-${i}`, tenant: `t${i}`, run: { kind: "command", command: "true" } });
        expect(r.attempt).toBe(1);
      }
      const started = p.events.filter((e) => e.type === "started") as Array<{ early: boolean }>;
      expect(started.some((e) => e.early)).toBe(true);
      // Another runner's wrong guess (a tentative lease on a job its pull did not bring) is let go by it; the runner
      // the job reached waits for that, briefly, instead of putting the job back for 15 s.
      const results = await new Kvm(nc).open(`${p.prefix}-results`);
      const lease = { runner: "elsewhere", attempt: 0, until: Date.now() + 600_000 };
      const revision = await results.put("claim.guessed", JSON.stringify({ ...lease, tentative: true }));
      const waiting = p.client.run({ id: "guessed", tenant: "a", run: { kind: "command", command: "true" } });
      await new Promise((r) => setTimeout(r, 100)); // the runner most likely looked at the lease meanwhile
      await results.delete("claim.guessed", { previousSeq: revision });
      const guessed = await waiting;
      expect(guessed.attempt).toBe(1);
      expect(p.events.some((e) => e.type === "skipped" && e.id === "guessed")).toBe(false);
      // A lease that is not tentative holds: the job goes back for later.
      await results.put("claim.held", JSON.stringify(lease));
      await p.client.submit({ id: "held", tenant: "a", run: { kind: "command", command: "true" } });
      while (!p.events.some((e) => e.type === "skipped" && e.id === "held"))
        await new Promise((r) => setTimeout(r, 50));
      expect(p.events.filter((e) => e.type === "skipped").map((e) => (e as { id: string }).id)).toEqual(["held"]);
      expect(p.events.some((e) => e.type === "started" && e.id === "held")).toBe(false);
    } finally {
      await nc.close();
      await p.close();
    }
  });

  it("cancellation and timeouts reach the sandbox", async () => {
    const p = await pool({ concurrency: 2 });
    await p.start();
    try {
      const job = await p.client.submit({ tenant: "a", run: { kind: "command", command: "sleep 30" } });
      while (!p.events.some((e) => e.type === "started" && e.id === job.id))
        await new Promise((r) => setTimeout(r, 50));
      const t0 = Date.now();
      await p.client.cancel(job.id);
      const cancelled = await p.client.result(job.id, { timeoutMs: 20_000 });
      expect(cancelled.status).toBe("cancelled");
      expect(Date.now() - t0).toBeLessThan(5_000);
      const timed = await p.client.run(
        { tenant: "a", timeoutS: 1, run: { kind: "command", command: "sleep 30" } },
        { timeoutMs: 20_000 },
      );
      expect(timed.status).toBe("timed-out");
      expect(timed.observation).toContain("timed out");
      // Cancelled while queued: never started. Both slots are busy meanwhile, so the job is still queued when the
      // cancellation comes (with a free slot, `echo` could finish first: a race in the test, not in the runner).
      const blockers = [];
      for (let i = 0; i < 2; i++)
        blockers.push(await p.client.submit({ tenant: "a", run: { kind: "command", command: "sleep 30" } }));
      while (blockers.some((b) => !p.events.some((e) => e.type === "started" && e.id === b.id)))
        await new Promise((r) => setTimeout(r, 50));
      const queued = await p.client.submit({
        id: "cancel-early",
        tenant: "z",
        run: { kind: "command", command: "echo ran" },
      });
      await p.client.cancel(queued.id);
      for (const b of blockers) await p.client.cancel(b.id);
      const early = await p.client.result(queued.id, { timeoutMs: 20_000 });
      expect(early.status).toBe("cancelled");
      expect(p.events.some((e) => e.type === "started" && e.id === queued.id)).toBe(false);
    } finally {
      await p.close();
    }
  });

  it("a full queue answers busy instead of queueing without bound", async () => {
    const p = await pool({ maxQueuedPerTenant: 2 });
    try {
      await p.client.submit({ tenant: "a", run: { kind: "command", command: "true" } });
      await p.client.submit({ tenant: "a", run: { kind: "command", command: "true" } });
      const error = await p.client
        .submit({ tenant: "a", run: { kind: "command", command: "true" } })
        .catch((e: unknown) => e);
      expect((error as RunnerError).code).toBe("QUEUE_BUSY");
      // Another tenant still gets in.
      await expect(p.client.submit({ tenant: "b", run: { kind: "command", command: "true" } })).resolves.toBeTruthy();
    } finally {
      await p.close();
    }
  });

  it("one tenant's many jobs do not starve another's one", async () => {
    const p = await pool();
    const many = [];
    for (let i = 0; i < 40; i++)
      many.push(await p.client.submit({ tenant: "big", run: { kind: "command", command: "true" } }));
    const one = await p.client.submit({ tenant: "small", run: { kind: "command", command: "true" } });
    await p.start();
    try {
      await p.client.result(one.id, { timeoutMs: 30_000 });
      const order = p.events.filter((e) => e.type === "started").map((e) => (e as { id: string }).id);
      // Round-robin over tenants: the small tenant's job is among the first two started, not the 41st.
      expect(order.indexOf(one.id)).toBeLessThan(2);
      const status = await p.client.status();
      expect(status.queued).toBeGreaterThan(20);
      await p.client.result(many.at(-1)!.id, { timeoutMs: 60_000 });
    } finally {
      await p.close();
    }
  });

  it("a job that keeps failing goes to the dead letters after the bounded retries; the pool keeps serving", async () => {
    const p = await pool({ maxAttempts: 2 });
    await p.start();
    try {
      const poisoned = await p.client.submit({
        tenant: "a",
        package: { versionId: pkg.versionId, digest: `sha256:${"1".repeat(64)}` },
        run: { kind: "command", command: "true" },
      });
      const fine = await p.client.run(
        { tenant: "a", run: { kind: "command", command: "echo fine" } },
        { timeoutMs: 30_000 },
      );
      expect(fine.stdoutTail).toBe("fine\n");
      const dead: JobResult = await p.client.result(poisoned.id, { timeoutMs: 30_000 });
      expect(dead.status).toBe("dead-letter");
      expect(dead.reason).toBe("package");
      expect(p.events.filter((e) => e.type === "retry" && e.id === poisoned.id)).toHaveLength(1);
      expect((await p.client.status()).deadLetters).toBe(1);
    } finally {
      await p.close();
    }
  });

  it("a session's working folder is kept between calls in PostgreSQL, on any runner, once per job", async () => {
    const sessions = new PostgresSessionStore(PG);
    const p = await pool({ runners: 2, sessions });
    await p.start();
    try {
      const session = `s${Date.now().toString(36)}`;
      const first = await p.client.run(
        { tenant: "a", session, run: { kind: "command", command: "mkdir -p notes && echo one >> notes/log" } },
        { timeoutMs: 30_000 },
      );
      expect(first.sessionVersion).toBe(1);
      const second = await p.client.run(
        { tenant: "a", session, run: { kind: "command", command: "echo two >> notes/log && cat notes/log" } },
        { timeoutMs: 30_000 },
      );
      expect(second.stdoutTail).toBe("one\ntwo\n");
      expect(second.sessionVersion).toBe(2);
      // A redelivered job (same id) starts from the version before its own and writes no new version.
      const again = await sessions.load(session, second.id);
      expect(again.writtenByThisJob).toBe(2);
      expect(Buffer.from(again.files[0]!.bytes).toString()).toBe("one\n");
    } finally {
      await p.close();
      await sessions.close();
    }
  });
});
