// Submitting work to the pool and reading results: the same results API for every caller (`exec --queue`, SDKs).
import { randomHex } from "@skillport/fs";
import { RunnerError } from "./errors.js";
import { jobResultSchema, jobSpecSchema, type JobInput, type JobResult, type JobSpec } from "./protocol.js";
import { closeQueue, openQueue, tenantCounts, type Queue, type QueueOptions } from "./queue.js";
import { mergeStats, type PoolStatus, type RunnerStats } from "./stats.js";

export interface WaitOptions {
  /** Give up waiting after this long (the job itself goes on). Default: wait as long as it takes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class QueueClient {
  private constructor(private readonly queue: Queue) {}

  static async connect(options: QueueOptions): Promise<QueueClient> {
    return new QueueClient(await openQueue(options));
  }

  /**
   * Puts a job on the queue. The id is the idempotency key: submitting the same id again (within two minutes, the
   * server's duplicate window) enqueues nothing, and its result is recorded once. A full queue throws QUEUE_BUSY.
   */
  async submit(input: JobInput): Promise<JobSpec> {
    const parsed = jobSpecSchema.safeParse({
      ...input,
      id: input.id ?? `j${Date.now().toString(36)}${randomHex(6)}`,
      submittedAt: Date.now(),
    });
    if (!parsed.success)
      throw new RunnerError(
        "JOB_INVALID",
        `invalid job: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    const job = parsed.data;
    try {
      await this.queue.js.publish(this.queue.names.jobSubject(job.tenant), JSON.stringify(job), { msgID: job.id });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/maximum messages/i.test(message))
        throw new RunnerError("QUEUE_BUSY", `the pool is busy: ${message} (tenant ${job.tenant}); try again later`);
      throw new RunnerError("QUEUE_UNAVAILABLE", `could not submit job ${job.id}: ${message}`);
    }
    return job;
  }

  /** The job's result, once recorded: a core notice wakes the wait, the results bucket is the record. */
  async result(id: string, options: WaitOptions = {}): Promise<JobResult> {
    const q = this.queue;
    // Subscribed before the first look, so a result recorded in between is not missed; the bucket is looked at
    // again every second in case a notice was lost (a reconnect).
    const notices = q.nc.subscribe(q.names.doneSubject(id), { max: 1 });
    let notified = false;
    let wake: () => void = () => undefined;
    void (async () => {
      // A notice only wakes the wait: anyone who may publish could send one, the bucket holds what was recorded.
      for await (const _ of notices) {
        notified = true;
        wake();
      }
    })();
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    try {
      for (;;) {
        const entry = await q.results.get(`r.${id}`).catch(() => null);
        if (entry !== null && entry.operation === "PUT") return jobResultSchema.parse(JSON.parse(entry.string()));
        if (options.signal?.aborted || Date.now() >= deadline) break;
        if (notified) {
          notified = false; // recorded meanwhile: look again at once
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now())));
          const abort = () => resolve();
          options.signal?.addEventListener("abort", abort, { once: true });
          wake = () => {
            clearTimeout(timer);
            options.signal?.removeEventListener("abort", abort);
            resolve();
          };
        });
      }
    } finally {
      notices.unsubscribe();
    }
    throw new RunnerError(
      "QUEUE_UNAVAILABLE",
      `no result for job ${id} ${options.signal?.aborted ? "(waiting was cancelled)" : `within ${options.timeoutMs} ms`}`,
    );
  }

  /** Submit, then wait for the result. */
  async run(input: JobInput, options: WaitOptions = {}): Promise<JobResult> {
    const job = await this.submit(input);
    return this.result(job.id, options);
  }

  /** Cancels a job: a queued one is never started, a running one's sandbox is killed. Recorded, so it holds for every runner. */
  async cancel(id: string, reason = "cancelled"): Promise<void> {
    await this.queue.results.put(`c.${id}`, JSON.stringify({ id, reason }));
    this.queue.nc.publish(this.queue.names.cancelSubject(id), JSON.stringify({ id, reason }));
    await this.queue.nc.flush();
  }

  /** Queue depth, running jobs, latency quantiles and failures, merged from every live runner's statistics. */
  async status(): Promise<PoolStatus> {
    const q = this.queue;
    const stats: RunnerStats[] = [];
    for await (const key of await q.runners.keys()) {
      const entry = await q.runners.get(key);
      if (entry?.operation === "PUT") stats.push(JSON.parse(entry.string()) as RunnerStats);
    }
    const inStream = await tenantCounts(q);
    const queuedByTenant: Record<string, number> = {};
    let inFlight = 0;
    for (const tenant of inStream.keys()) {
      try {
        const info = await q.jsm.consumers.info(q.names.stream, q.names.consumer(tenant));
        queuedByTenant[tenant] = info.num_pending;
        inFlight += info.num_ack_pending;
      } catch {
        queuedByTenant[tenant] = inStream.get(tenant) ?? 0; // no runner has seen this tenant yet
      }
    }
    const dead = await q.jsm.streams.info(q.names.deadStream);
    return mergeStats(stats, { queuedByTenant, inFlight, deadLetters: dead.state.messages });
  }

  async close(): Promise<void> {
    await closeQueue(this.queue);
  }
}
