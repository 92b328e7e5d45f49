// A runner process: pulls jobs fairly across tenants, runs them through the executor, records each result once,
// heartbeats long jobs, retries a bounded number of times, dead-letters the rest (docs/runners.md, decision 0373).
import { createServer, type Server } from "node:http";
import { hostname } from "node:os";
import { randomHex } from "@skillport/fs";
import type { KvEntry } from "@nats-io/kv";
import { createInbox, type Msg, type Subscription } from "@nats-io/transport-node";
import { RunnerError } from "./errors.js";
import type { JobExecutor } from "./executor.js";
import { cancelSchema, JOB_ID, jobSpecSchema, safeJson, TENANT, type JobResult, type JobSpec } from "./protocol.js";
import {
  closeQueue,
  ensureConsumer,
  openQueue,
  serverAnnouncesResults,
  tenantCounts,
  type Queue,
  type QueueOptions,
} from "./queue.js";
import { LATENCY_SAMPLES, prometheusText, type RunnerStats } from "./stats.js";

export interface RunnerOptions extends QueueOptions {
  executor: JobExecutor;
  /** Jobs run at once. Default 1. */
  concurrency?: number;
  /** Stable name in status and metrics. Default `<host>-<pid>-<random>`. */
  id?: string;
  /** The server redelivers a job not acknowledged (nor heartbeated) within this. Default 30 s; heartbeats every third. */
  ackWaitMs?: number;
  /** Deliveries of one job at most (the first run included); one more goes to the dead-letter subject. Default 3. */
  maxAttempts?: number;
  /** Serve Prometheus metrics on 127.0.0.1:<port> (0: any free port). */
  metricsPort?: number;
  onEvent?: (event: RunnerEvent) => void;
}

export type RunnerEvent =
  /** `early`: the lease went out with the pull (decision 0443). */
  | { type: "started"; id: string; attempt: number; tenant: string; early: boolean }
  | { type: "finished"; id: string; attempt: number; status: JobResult["status"]; recorded: boolean; ms: number }
  | { type: "skipped"; id: string; attempt: number; why: "already-recorded" | "cancelled" | "claimed" }
  | { type: "retry"; id: string; attempt: number; reason: string; message: string }
  | { type: "dead-letter"; id: string; attempt: number; reason: string }
  | { type: "cleaned"; paths: string[] }
  | { type: "reconnected" }
  | { type: "error"; message: string };

/** JetStream's ack protocol, sent to a delivered message's reply subject. */
function deliveryCount(reply: string): number {
  // $JS.ACK.<stream>.<consumer>.<delivered>.… (9 tokens) or $JS.ACK.<domain>.<hash>.<stream>.<consumer>.<delivered>.…
  const t = reply.split(".");
  return Number(t.length === 9 ? t[4] : t[6]) || 1;
}

/**
 * A lease taken while the pull is out, on the job whose submission woke an idle runner (decision 0443): `claim` is
 * the revision of the tentative lease (undefined: another runner's lease was there first), `cancelled` the
 * cancellation record as read then, `late` a cancellation heard before the job was handled.
 */
interface EarlyLease {
  id: string;
  claim: Promise<number | undefined>;
  cancelled: Promise<KvEntry | null>;
  late: boolean;
}

/** The stored lease on a job (`claim.<id>`); a tentative one is let go by its runner if its pull brings another job. */
interface ClaimRecord {
  runner: string;
  attempt: number;
  until: number;
  tentative?: true;
}

/** The id of a submitted job, from its bytes (the job is validated in full when handled). */
function jobId(data: Uint8Array): string | undefined {
  const id = (safeJson(data) as { id?: unknown } | undefined)?.id;
  return typeof id === "string" && JOB_ID.test(id) ? id : undefined;
}

/** Looks at a tentative lease of another runner (20 ms apart) before the job goes back for later. */
const TENTATIVE_TRIES = 50;

const FAILURE_REASON: Record<string, string> = {
  PACKAGE_NOT_FOUND: "package",
  PACKAGE_DIGEST: "package",
  PACKAGE_UNAVAILABLE: "package",
  ENTRYPOINT_FAILED: "entrypoint",
  JOB_INVALID: "invalid",
};

export class Runner {
  readonly id: string;
  private queue: Queue | undefined;
  private readonly running = new Map<string, AbortController>();
  private readonly options: RunnerOptions & { concurrency: number; ackWaitMs: number; maxAttempts: number };
  private readonly stats: RunnerStats;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly subscriptions: Subscription[] = [];
  private stopping = false;
  /** False while the server is away: no pulls (they would only time out), one event per outage. */
  private connected = true;
  private pumping = false;
  private pumpAgain = false;
  private lastTenant = "";
  /**
   * Tenants that may have jobs waiting, each with a count of the wakes seen for it: learnt from every submission (the
   * subject names the tenant) and from the stream's own list every half second (redeliveries, delayed retries). A
   * tenant whose pull comes back empty leaves the set unless a wake arrived meanwhile. So taking a job costs one
   * round trip (the pull), not two (decision 0441).
   */
  private readonly waiting = new Map<string, number>();
  private refreshing = false;
  private queued: number | undefined;
  private readonly knownConsumers = new Set<string>();
  private metricsServer: Server | undefined;
  private idle: (() => void) | undefined;
  /** One reply subject for every pull request (pulls are one at a time); a per-request subscription costs a round trip. */
  private readonly pullInbox = createInbox();
  /** The results bucket republishes each recorded result on its done subject: no notice of our own (decision 0442). */
  private serverNotices = false;
  private pullWaiter: ((msg: Msg | undefined) => void) | undefined;
  /** The job whose submission woke this runner with a free slot and no other work known for its tenant. */
  private hint: { tenant: string; data: Uint8Array } | undefined;
  /** The lease taken with the pull now out (or just answered), until the job is handled (decision 0443). */
  private early: EarlyLease | undefined;

  constructor(options: RunnerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
      throw new RunnerError("JOB_INVALID", `concurrency must be 1-256, got ${concurrency}`);
    this.options = {
      ...options,
      concurrency,
      ackWaitMs: options.ackWaitMs ?? 30_000,
      maxAttempts: options.maxAttempts ?? 3,
    };
    this.id = options.id ?? `${hostname()}-${process.pid}-${randomHex(3)}`;
    const now = Date.now();
    this.stats = {
      id: this.id,
      pid: process.pid,
      host: hostname(),
      concurrency,
      running: 0,
      completed: 0,
      failures: {},
      latencies: [],
      startedAt: now,
      updatedAt: now,
    };
  }

  /** Connects, cleans what a killed predecessor left, and starts taking jobs. Resolves with the metrics port, if any. */
  async start(): Promise<{ metricsPort: number | undefined }> {
    const cleaned = await this.options.executor.cleanUp();
    if (cleaned.length > 0) this.emit({ type: "cleaned", paths: cleaned });
    const queue = await openQueue({ ...this.options, name: this.id });
    this.queue = queue;
    this.serverNotices = await serverAnnouncesResults(queue).catch(() => false);
    this.subscriptions.push(
      queue.nc.subscribe(this.pullInbox, {
        callback: (_e, msg) => {
          const waiter = this.pullWaiter;
          this.pullWaiter = undefined;
          if (waiter) waiter(msg);
          // A job arriving after its pull gave up waiting goes back at once rather than at its ack deadline.
          else if (msg.reply && !(msg.headers?.code !== undefined && msg.headers.code >= 400))
            queue.nc.publish(msg.reply, "-NAK");
        },
      }),
    );
    // Woken by every submitted job (a core subscription sees JetStream's subjects too) and by cancellations.
    const tenantAt = queue.names.jobSubject("").length;
    this.subscriptions.push(
      queue.nc.subscribe(queue.names.jobWildcard, {
        callback: (_e, msg) => {
          const tenant = msg.subject.slice(tenantAt);
          if (TENANT.test(tenant)) {
            // Nothing else known for this tenant and a slot free: the pull will most likely bring this very job.
            if (!this.waiting.has(tenant) && this.running.size < this.options.concurrency)
              this.hint = { tenant, data: msg.data };
            this.waiting.set(tenant, (this.waiting.get(tenant) ?? 0) + 1);
          }
          this.pump();
        },
      }),
    );
    this.subscriptions.push(
      queue.nc.subscribe(queue.names.cancelWildcard, {
        callback: (_e, msg) => {
          const parsed = cancelSchema.safeParse(safeJson(msg.data));
          if (!parsed.success) return;
          this.running.get(parsed.data.id)?.abort(parsed.data.reason);
          // Heard after the early read of the cancellation record but before the job is handled.
          if (this.early?.id === parsed.data.id) this.early.late = true;
        },
      }),
    );
    void (async () => {
      for await (const status of queue.nc.status()) {
        if (status.type === "disconnect") {
          this.connected = false;
          this.emit({ type: "error", message: `disconnected from the queue; reconnecting` });
        } else if (status.type === "reconnect") {
          this.connected = true;
          this.emit({ type: "reconnected" });
          void this.refresh();
        }
      }
    })();
    // Redeliveries (ack deadline passed, delayed retries) are not announced: look every half second.
    this.timers.push(setInterval(() => void this.refresh(), 500));
    this.timers.push(setInterval(() => void this.publishStats(), 2_000));
    void this.publishStats();
    await this.refresh();
    return { metricsPort: await this.serveMetrics() };
  }

  /** Stops taking jobs; waits for the running ones (or aborts them after `graceMs`), then disconnects. */
  async stop(graceMs = 30_000): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    for (const s of this.subscriptions) s.unsubscribe();
    if (this.running.size > 0) {
      const idle = new Promise<void>((resolve) => (this.idle = resolve));
      const timer = setTimeout(() => {
        for (const c of this.running.values()) c.abort("runner stopping");
      }, graceMs);
      await idle;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => (this.metricsServer ? this.metricsServer.close(() => resolve()) : resolve()));
    await this.options.executor.close();
    if (this.queue) {
      if (this.connected)
        await Promise.race([
          this.queue.runners.delete(this.id).catch(() => undefined),
          new Promise((r) => setTimeout(r, 1_000)),
        ]);
      await closeQueue(this.queue);
    }
  }

  snapshot(): RunnerStats {
    return {
      ...this.stats,
      running: this.running.size,
      failures: { ...this.stats.failures },
      latencies: [...this.stats.latencies],
      updatedAt: Date.now(),
    };
  }

  private emit(event: RunnerEvent): void {
    this.options.onEvent?.(event);
  }

  /** The stream's list of tenants with jobs (waiting or in flight) joins the waiting set; the queue depth for metrics. */
  private async refresh(): Promise<void> {
    if (this.refreshing || this.stopping || this.queue === undefined || !this.connected) return;
    this.refreshing = true;
    try {
      const counts = await tenantCounts(this.queue);
      this.queued = [...counts.values()].reduce((a, b) => a + b, 0);
      for (const tenant of counts.keys()) this.waiting.set(tenant, (this.waiting.get(tenant) ?? 0) + 1);
    } catch (error) {
      this.emit({ type: "error", message: error instanceof Error ? error.message : String(error) });
    } finally {
      this.refreshing = false;
    }
    this.pump();
  }

  private pump(): void {
    if (this.stopping || this.queue === undefined || !this.connected) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          while (!this.stopping && this.running.size < this.options.concurrency) {
            const msg = await this.pullFair();
            if (msg === undefined) break;
            this.handle(msg);
          }
        } while (this.pumpAgain && !this.stopping && this.running.size < this.options.concurrency);
      } catch (error) {
        this.emit({ type: "error", message: error instanceof Error ? error.message : String(error) });
      } finally {
        this.pumping = false;
      }
    })();
  }

  /**
   * One job, taken round-robin across the tenants that have work: the tenant after the one served last goes first,
   * so one tenant's thousand jobs wait behind another's one (decision 0374).
   */
  private async pullFair(): Promise<Msg | undefined> {
    const queue = this.queue!;
    const tenants = [...this.waiting.keys()].sort();
    const start = tenants.findIndex((t) => t > this.lastTenant);
    const order = start < 0 ? tenants : [...tenants.slice(start), ...tenants.slice(0, start)];
    for (const tenant of order) {
      if (this.running.size >= this.options.concurrency) return undefined;
      if (!this.knownConsumers.has(tenant)) {
        await ensureConsumer(queue, tenant, this.options.ackWaitMs);
        this.knownConsumers.add(tenant);
      }
      // One message, no waiting: an empty answer (404/408) means this tenant's jobs are all in flight or delayed.
      const seen = this.waiting.get(tenant);
      const hint = this.hint?.tenant === tenant ? this.hint : undefined;
      if (hint !== undefined) this.hint = undefined;
      // The lease and the cancellation check travel with the pull rather than after it (decision 0443).
      const pulled = this.pullOne(`$JS.API.CONSUMER.MSG.NEXT.${queue.names.stream}.${queue.names.consumer(tenant)}`);
      // Parsed once the pull is out, so the pull does not wait for it.
      const id = hint === undefined ? undefined : jobId(hint.data);
      if (id !== undefined && !this.running.has(id)) {
        this.releaseEarly();
        this.early = this.leaseEarly(id);
      }
      const msg = await pulled;
      if (msg === undefined || (msg.headers?.code !== undefined && msg.headers.code >= 400) || !msg.reply) {
        if (this.waiting.get(tenant) === seen) this.waiting.delete(tenant); // no wake meanwhile: nothing to take
        this.releaseEarly();
        continue;
      }
      this.lastTenant = tenant;
      return msg;
    }
    return undefined;
  }

  /** A tentative lease on `id` and a read of its cancellation record, sent while the pull is out. */
  private leaseEarly(id: string): EarlyLease {
    const results = this.queue!.results;
    return {
      id,
      claim: results.create(`claim.${id}`, this.leaseRecord(0, true)).catch(() => undefined),
      cancelled: results.get(`c.${id}`).catch(() => null),
      late: false,
    };
  }

  /** The pull brought another job (or none): the tentative lease goes (at its revision: never a lease written since). */
  private releaseEarly(): void {
    const early = this.early;
    this.early = undefined;
    if (early === undefined) return;
    const results = this.queue!.results;
    void early.claim.then((revision) =>
      revision === undefined
        ? undefined
        : results.delete(`claim.${early.id}`, { previousSeq: revision }).catch(() => undefined),
    );
  }

  private pullOne(subject: string): Promise<Msg | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pullWaiter = undefined;
        resolve(undefined);
      }, 5_000);
      this.pullWaiter = (msg) => {
        clearTimeout(timer);
        resolve(msg);
      };
      this.queue!.nc.publish(subject, JSON.stringify({ batch: 1, no_wait: true }), { reply: this.pullInbox });
    });
  }

  private handle(msg: Msg): void {
    const controller = new AbortController();
    const reply = msg.reply!;
    const attempt = deliveryCount(reply);
    const parsed = jobSpecSchema.safeParse(safeJson(msg.data));
    const key = parsed.success ? parsed.data.id : `invalid-${randomHex(6)}`;
    const early = this.early?.id === key ? this.early : undefined;
    if (early !== undefined) this.early = undefined;
    else this.releaseEarly();
    if (this.running.has(key)) {
      // This runner runs it already (a restarted server delivered it again): put this copy back for later.
      this.emit({ type: "skipped", id: key, attempt, why: "claimed" });
      this.queue?.nc.publish(
        reply,
        `-NAK ${JSON.stringify({ delay: Math.ceil(this.options.ackWaitMs / 2) * 1_000_000 })}`,
      );
      return;
    }
    this.running.set(key, controller);
    this.stats.running = this.running.size;
    const heartbeat = setInterval(
      () => this.queue?.nc.publish(reply, "+WPI"),
      Math.max(250, Math.floor(this.options.ackWaitMs / 3)),
    );
    void this.process(
      msg,
      parsed.success ? parsed.data : undefined,
      parsed.success ? undefined : parsed.error.message,
      attempt,
      controller,
      early,
    )
      .catch((error: unknown) =>
        this.emit({ type: "error", message: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(key);
        this.stats.running = this.running.size;
        if (this.running.size === 0) this.idle?.();
        this.pump();
      });
  }

  private async process(
    msg: Msg,
    job: JobSpec | undefined,
    invalid: string | undefined,
    attempt: number,
    controller: AbortController,
    early: EarlyLease | undefined,
  ): Promise<void> {
    const queue = this.queue!;
    const reply = msg.reply!;
    if (job === undefined) {
      // Never run; kept for a human in the dead letters.
      await queue.js.publish(queue.names.deadSubject("invalid"), msg.data).catch(() => undefined);
      this.fail("invalid");
      this.emit({
        type: "dead-letter",
        id: "(invalid)",
        attempt,
        reason: `invalid job: ${invalid ?? ""}`.slice(0, 300),
      });
      queue.nc.publish(reply, "+TERM");
      return;
    }
    // The lease and the cancellation record in one round trip (or none: sent with the pull, decision 0443); a job
    // claimed for the first time has no result yet.
    const tentative = early === undefined ? undefined : await early.claim;
    const [claim, cancelled] =
      tentative !== undefined
        ? ["first" as const, await early!.cancelled]
        : await Promise.all([
            this.claim(job.id, attempt),
            early?.cancelled ?? this.queue!.results.get(`c.${job.id}`).catch(() => null),
          ]);
    if (claim !== "first" && (await this.recorded(job.id))) {
      // Finished before (its acknowledgement was lost): never run again.
      this.emit({ type: "skipped", id: job.id, attempt, why: "already-recorded" });
      queue.nc.publish(reply, "+ACK");
      return;
    }
    if (claim === "held") {
      // Another live runner holds it (a server that lost its delivery state after a crash delivers it again).
      this.emit({ type: "skipped", id: job.id, attempt, why: "claimed" });
      queue.nc.publish(reply, `-NAK ${JSON.stringify({ delay: Math.ceil(this.options.ackWaitMs / 2) * 1_000_000 })}`);
      return;
    }
    if (attempt > this.options.maxAttempts) {
      await this.deadLetter(
        job,
        attempt,
        "max-attempts",
        `delivered ${attempt} times (the limit is ${this.options.maxAttempts})`,
        reply,
      );
      return;
    }
    if ((cancelled !== null && cancelled.operation === "PUT") || early?.late === true) {
      this.emit({ type: "skipped", id: job.id, attempt, why: "cancelled" });
      await this.record(
        emptyResult(job, this.id, attempt, "cancelled", "cancelled", "cancelled before it started"),
        reply,
      );
      return;
    }
    const lease = setInterval(
      () => void this.renewClaim(job.id, attempt),
      Math.max(250, Math.floor(this.options.ackWaitMs / 3)),
    );
    this.emit({ type: "started", id: job.id, attempt, tenant: job.tenant, early: tentative !== undefined });
    const started = Date.now();
    try {
      await this.execute(job, attempt, controller, reply, started);
    } finally {
      clearInterval(lease);
    }
  }

  /**
   * A lease on the job in the results bucket, renewed with every heartbeat: the server's delivery state is not
   * enough on its own (a server killed and restarted can deliver an in-flight job again), so a runner runs a job only
   * when no other runner's lease on it is live. A dead runner's lease runs out after one ack deadline.
   */
  private async claim(id: string, attempt: number): Promise<"first" | "taken-over" | "held"> {
    const results = this.queue!.results;
    const value = () => this.leaseRecord(attempt);
    for (let tries = 0; ; tries++) {
      try {
        await results.create(`claim.${id}`, value());
        return "first";
      } catch {
        // Taken: look at whose lease it is.
      }
      const entry = await results.get(`claim.${id}`).catch(() => null);
      if (entry === null) return "held";
      const held = entry.operation === "PUT" ? (JSON.parse(entry.string()) as ClaimRecord) : undefined;
      if (held !== undefined && held.runner !== this.id && held.until > Date.now()) {
        // A tentative lease: another runner guessed its pull would bring this job (decision 0443). A wrong guesser
        // lets go as soon as its pull answers, so wait briefly for that rather than a redelivery's 15 s; a right one
        // (the server delivered the job twice) keeps it, and this copy goes back as for any live lease.
        if (held.tentative === true && tries < TENTATIVE_TRIES) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        return "held";
      }
      try {
        await results.update(`claim.${id}`, value(), entry.revision);
        return "taken-over";
      } catch {
        return "held"; // someone else took it over first
      }
    }
  }

  /** This runner's lease on a job for `attempt`, good for one ack wait from now (`tentative`: decision 0443). */
  private leaseRecord(attempt: number, tentative = false): string {
    const record: ClaimRecord = { runner: this.id, attempt, until: Date.now() + this.options.ackWaitMs };
    if (tentative) record.tentative = true;
    return JSON.stringify(record);
  }

  private async renewClaim(id: string, attempt: number): Promise<void> {
    await this.queue?.results.put(`claim.${id}`, this.leaseRecord(attempt)).catch(() => undefined);
  }

  private async execute(
    job: JobSpec,
    attempt: number,
    controller: AbortController,
    reply: string,
    started: number,
  ): Promise<void> {
    const queue = this.queue!;
    let result: JobResult;
    try {
      result = await this.options.executor.run(job, {
        runner: this.id,
        attempt,
        signal: controller.signal,
        deferRemoval: true,
      });
    } catch (error) {
      const code = error instanceof RunnerError ? error.code : "RUNNER_ERROR";
      const reason = FAILURE_REASON[code] ?? "runner-error";
      const message = error instanceof Error ? error.message : String(error);
      if (attempt >= this.options.maxAttempts) {
        await this.deadLetter(job, attempt, reason, message, reply);
        return;
      }
      this.emit({ type: "retry", id: job.id, attempt, reason, message });
      this.fail(`retry-${reason}`);
      // Back off before the next delivery (any runner may take it).
      queue.nc.publish(
        reply,
        `-NAK ${JSON.stringify({ delay: Math.min(30_000, 500 * 2 ** (attempt - 1)) * 1_000_000 })}`,
      );
      return;
    }
    const recorded = await this.record(result, reply);
    this.emit({ type: "finished", id: job.id, attempt, status: result.status, recorded, ms: Date.now() - started });
    // The job folder goes once the result is recorded and announced: on a busy disk its removal takes milliseconds.
    await new Promise((resolve) => setImmediate(resolve));
    await this.options.executor
      .removeJob(job)
      .catch((error: unknown) =>
        this.emit({ type: "error", message: `job ${job.id}: its folder was not removed: ${String(error)}` }),
      );
  }

  private async recorded(id: string): Promise<boolean> {
    const entry = await this.queue!.results.get(`r.${id}`).catch(() => null);
    return entry !== null && entry.operation === "PUT";
  }

  /**
   * Records the result unless one is there already (the first one wins: a job's result is recorded once), then
   * acknowledges. While the server is away the write is retried, up to the ack deadline's worth of tries.
   */
  private async record(result: JobResult, reply: string): Promise<boolean> {
    const queue = this.queue!;
    let recorded = false;
    for (let attempt = 0; ; attempt++) {
      try {
        await queue.results.create(`r.${result.id}`, JSON.stringify(result));
        recorded = true;
        break;
      } catch (error) {
        if (await this.recorded(result.id).catch(() => false)) break; // someone (or our lost write) recorded it
        if (attempt >= 120) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    if (recorded) {
      // The notice carries the result it announces, so a waiting client needs no read of the bucket (decision 0441).
      // Where the bucket republishes it, the server sent it already, as it stored the record (decision 0442).
      if (!this.serverNotices) queue.nc.publish(queue.names.doneSubject(result.id), JSON.stringify(result));
      this.stats.completed += 1;
      this.stats.latencies.push(result.timing.totalMs);
      if (this.stats.latencies.length > LATENCY_SAMPLES)
        this.stats.latencies.splice(0, this.stats.latencies.length - LATENCY_SAMPLES);
      if (result.reason) this.fail(result.reason);
    }
    // Not flushed here: the acknowledgement leaves with the next write (a lost one only redelivers a recorded job,
    // which is then acknowledged without running).
    queue.nc.publish(reply, "+ACK");
    return recorded;
  }

  private async deadLetter(
    job: JobSpec,
    attempt: number,
    reason: string,
    message: string,
    reply: string,
  ): Promise<void> {
    const queue = this.queue!;
    await queue.js.publish(
      queue.names.deadSubject(job.tenant),
      JSON.stringify({ job, reason, message, attempts: attempt, runner: this.id, at: Date.now() }),
      { msgID: `dead-${job.id}` },
    );
    this.emit({ type: "dead-letter", id: job.id, attempt, reason });
    this.fail("dead-letter");
    await this.record({ ...emptyResult(job, this.id, attempt, "dead-letter", reason, message) }, reply).catch(
      () => undefined,
    );
    queue.nc.publish(reply, "+TERM");
  }

  private fail(reason: string): void {
    this.stats.failures[reason] = (this.stats.failures[reason] ?? 0) + 1;
  }

  private async publishStats(): Promise<void> {
    await this.queue?.runners.put(this.id, JSON.stringify(this.snapshot())).catch(() => undefined);
  }

  private async serveMetrics(): Promise<number | undefined> {
    if (this.options.metricsPort === undefined) return undefined;
    const server = createServer((req, res) => {
      if (req.url !== "/metrics") {
        res.writeHead(404).end("not found\n");
        return;
      }
      res
        .writeHead(200, { "content-type": "text/plain; version=0.0.4" })
        .end(prometheusText(this.snapshot(), this.queued));
    });
    this.metricsServer = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.metricsPort, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    return typeof address === "object" && address !== null ? address.port : undefined;
  }
}

function emptyResult(
  job: JobSpec,
  runner: string,
  attempt: number,
  status: JobResult["status"],
  reason: string,
  message: string,
): JobResult {
  return {
    id: job.id,
    tenant: job.tenant,
    status,
    reason,
    message,
    observation: "",
    stdoutTail: "",
    stderrTail: "",
    exitCode: null,
    signal: null,
    timedOut: false,
    outputs: [],
    runner,
    attempt,
    timing: {
      queuedMs: Math.max(0, Date.now() - job.submittedAt),
      deployMs: 0,
      runMs: 0,
      totalMs: Math.max(0, Date.now() - job.submittedAt),
    },
  };
}
