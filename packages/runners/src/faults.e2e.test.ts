// Faults with real processes: runner processes of the built CLI (packages/cli/dist/cli.js; run `npm run build`
// first) on a private NATS JetStream server each test starts on a free port with its own store folder.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { QueueClient, type JobResult } from "@skillport/runners";
import { freePort } from "@skillport/testing";

const CLI = path.resolve(import.meta.dirname, "../../cli/dist/cli.js");
const children: ChildProcess[] = [];
const temps: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await new Promise((r) => setTimeout(r, 200));
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "runners-faults-"));
  temps.push(dir);
  return dir;
}

interface Nats {
  url: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
}

async function privateNats(): Promise<Nats> {
  const port = await freePort();
  const store = temp();
  let child: ChildProcess | undefined;
  const nats: Nats = {
    url: `nats://127.0.0.1:${port}`,
    async start() {
      child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], { stdio: "ignore" });
      children.push(child);
      for (let i = 0; i < 100; i++) {
        if (await canConnect(port)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("nats-server did not start");
    },
    async stop(signal = "SIGTERM") {
      const c = child!;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill(signal);
      await exited;
    },
  };
  await nats.start();
  return nats;
}

async function canConnect(port: number): Promise<boolean> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

interface RunnerProcess {
  child: ChildProcess;
  events: { type: string; id?: string; attempt?: number; paths?: string[] }[];
  ready: Promise<void>;
}

function runner(url: string, cache: string, extra: string[] = []): RunnerProcess {
  const child = spawn(
    process.execPath,
    [CLI, "runner", "--queue", url, "--cache", cache, "--events", "--ack-wait", "2", ...extra],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(child);
  const events: RunnerProcess["events"] = [];
  let buffer = "";
  let readyResolve: () => void = () => undefined;
  const ready = new Promise<void>((r) => (readyResolve = r));
  child.stderr!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("{")) events.push(JSON.parse(line) as RunnerProcess["events"][number]);
      else if (line.includes("taking jobs")) readyResolve();
    }
  });
  return { child, events, ready };
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const started = (rs: RunnerProcess[], id: string) =>
  rs.flatMap((r) => r.events).filter((e) => e.type === "started" && e.id === id).length;

const built = existsSync(CLI);
if (!built && process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS) throw new Error(`${CLI} is missing: run npm run build first`);

describe.skipIf(!built)("runner pool faults (real processes)", () => {
  it("kill -9 a runner mid-job: redelivered, completes once on the other; the restart leaves nothing behind", async () => {
    const nats = await privateNats();
    const cacheA = path.join(temp(), "a");
    const a = runner(nats.url, cacheA);
    await a.ready;
    const client = await QueueClient.connect({ queue: nats.url });
    try {
      const job = await client.submit({ tenant: "t", run: { kind: "command", command: "sleep 8; echo done" } });
      await until(() => started([a], job.id) === 1);
      // The second runner joins only now, so the first one surely holds the job (8 s: time for it to start on a loaded
      // machine before the job ends).
      const b = runner(nats.url, path.join(temp(), "b"));
      await b.ready;
      a.child.kill("SIGKILL");
      await new Promise((r) => a.child.once("exit", r));
      expect(existsSync(path.join(cacheA, "scratch", "jobs", job.id))).toBe(true); // the dead runner's job folder
      const result: JobResult = await client.result(job.id, { timeoutMs: 30_000 });
      expect(result.status).toBe("completed");
      expect(result.stdoutTail).toBe("done\n");
      expect(result.attempt).toBe(2);
      expect(started([b], job.id)).toBe(1);
      // The sandbox died with its runner (bubblewrap --die-with-parent): no process of the job is left.
      // Restarting the killed runner on its cache removes the job folder it left.
      const again = runner(nats.url, cacheA);
      await again.ready;
      expect(existsSync(path.join(cacheA, "scratch", "jobs"))).toBe(false);
      expect(again.events.find((e) => e.type === "cleaned")?.paths).toEqual(["scratch/jobs"]);
      // Recorded once: the finished events across all runners say one recorded result.
      await new Promise((r) => setTimeout(r, 3_000)); // past one more ack deadline: no third delivery runs it
      expect(
        [a, b, again].flatMap((r) => r.events).filter((e) => e.type === "finished" && e.id === job.id),
      ).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("NATS restarted mid-stream: runners reconnect, no job lost, none run twice", async () => {
    const nats = await privateNats();
    const runners = [
      runner(nats.url, path.join(temp(), "a"), ["--concurrency", "2", "--ack-wait", "10"]),
      runner(nats.url, path.join(temp(), "b"), ["--concurrency", "2", "--ack-wait", "10"]),
    ];
    await Promise.all(runners.map((r) => r.ready));
    const client = await QueueClient.connect({ queue: nats.url });
    const ids: string[] = [];
    for (let i = 0; i < 24; i++)
      ids.push(
        (
          await client.submit({
            id: `job-${i}`,
            tenant: i % 2 ? "x" : "y",
            run: { kind: "command", command: "sleep 0.3; echo ok" },
          })
        ).id,
      );
    await client.close();
    const finished = () => runners.flatMap((r) => r.events).filter((e) => e.type === "finished").length;
    await until(() => finished() >= 4);
    await nats.stop("SIGKILL");
    await new Promise((r) => setTimeout(r, 1_000));
    await nats.start();
    const after = await QueueClient.connect({ queue: nats.url });
    try {
      for (const id of ids) {
        const result = await after.result(id, { timeoutMs: 60_000 });
        expect(result.status).toBe("completed");
        expect(result.stdoutTail).toBe("ok\n");
      }
      const twice = ids.filter((id) => started(runners, id) !== 1);
      expect(twice, JSON.stringify(twice.map((id) => runners.map((r) => r.events.filter((e) => e.id === id))))).toEqual(
        [],
      );
    } finally {
      await after.close();
    }
  });

  it("a poisoned job ends in the dead letters after N tries; the pool keeps serving", async () => {
    const nats = await privateNats();
    const r = runner(nats.url, path.join(temp(), "a"), ["--max-attempts", "3"]);
    await r.ready;
    const client = await QueueClient.connect({ queue: nats.url });
    try {
      const poisoned = await client.submit({
        tenant: "t",
        package: { versionId: "0".repeat(24), digest: `sha256:${"0".repeat(64)}` },
        run: { kind: "command", command: "true" },
      });
      const healthy = await client.run(
        { tenant: "t", run: { kind: "command", command: "echo alive" } },
        { timeoutMs: 30_000 },
      );
      expect(healthy.stdoutTail).toBe("alive\n");
      const dead = await client.result(poisoned.id, { timeoutMs: 60_000 });
      expect(dead.status).toBe("dead-letter");
      expect(dead.attempt).toBe(3);
      expect(r.events.filter((e) => e.type === "retry" && e.id === poisoned.id)).toHaveLength(2);
      const status = await client.status();
      expect(status.deadLetters).toBe(1);
      const after = await client.run(
        { tenant: "t", run: { kind: "command", command: "echo still" } },
        { timeoutMs: 30_000 },
      );
      expect(after.stdoutTail).toBe("still\n");
    } finally {
      await client.close();
    }
  });
});
