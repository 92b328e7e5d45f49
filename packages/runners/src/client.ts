// Submitting work to the pool and reading results: the same results API for every caller (`exec --queue`, SDKs).
import { randomHex } from "@skillport/fs";
import { RunnerError } from "./errors.js";
import { jobResultSchema, jobSpecSchema, safeJson, type JobInput, type JobResult, type JobSpec } from "./protocol.js";
import { closeQueue, openQueue, tenantCounts, type Queue, type QueueOptions } from "./queue.js";
import { mergeStats, type PoolStatus, type RunnerStats } from "./stats.js";

export interface WaitOptions {
  /** Give up waiting after this long (the job itself goes on). Default: wait as long as it takes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Listening {
  /** A notice arrived (with or without a result). */
  notified: boolean;
  /** The result a notice carried. */
  result: JobResult | undefined;
  wake: () => void;
  stop: () => void;
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
    return (await this.#publish(input)).job;
  }

  async #publish(input: JobInput): Promise<{ job: JobSpec; duplicate: boolean }> {
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
      const ack = await this.queue.js.publish(this.queue.names.jobSubject(job.tenant), JSON.stringify(job), {
        msgID: job.id,
      });
      return { job, duplicate: ack.duplicate };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/maximum messages/i.test(message))
        throw new RunnerError("QUEUE_BUSY", `the pool is busy: ${message} (tenant ${job.tenant}); try again later`);
      throw new RunnerError("QUEUE_UNAVAILABLE", `could not submit job ${job.id}: ${message}`);
    }
  }

  /**
   * The job's result, once recorded. The runner's notice on `done.<id>` carries the recorded result (decision 0441);
   * the bucket is the record, read first and again every second in case a notice was lost (a reconnect).
   */
  async result(id: string, options: WaitOptions = {}): Promise<JobResult> {
    const waiting = this.#listen(id);
    try {
      return await this.#wait(id, waiting, options, true);
    } finally {
      waiting.stop();
    }
  }

  /** Submit, then wait for the result (listening before the job is on the queue, so one look at the bucket less). */
  async run(input: JobInput, options: WaitOptions = {}): Promise<JobResult> {
    if (input.id !== undefined && !jobSpecSchema.shape.id.safeParse(input.id).success)
      return this.result((await this.submit(input)).id, options); // refused by submit with its own message
    const id = input.id ?? `j${Date.now().toString(36)}${randomHex(6)}`;
    const waiting = this.#listen(id);
    try {
      // A duplicate submission may have been recorded already: then the bucket is looked at first.
      const { duplicate } = await this.#publish({ ...input, id });
      return await this.#wait(id, waiting, options, duplicate);
    } finally {
      waiting.stop();
    }
  }

  /** Subscribes to the job's notice; a notice holding a result for this id is kept, any other only wakes the wait. */
  #listen(id: string): Listening {
    const q = this.queue;
    const listening: Listening = {
      notified: false,
      result: undefined,
      wake: () => undefined,
      stop: () => notices.unsubscribe(),
    };
    const notices = q.nc.subscribe(q.names.doneSubject(id), {
      max: 1,
      callback: (_e, msg) => {
        const parsed = msg.data.byteLength > 0 ? jobResultSchema.safeParse(safeJson(msg.data)) : undefined;
        if (parsed?.success && parsed.data.id === id) listening.result = parsed.data;
        listening.notified = true;
        listening.wake();
      },
    });
    return listening;
  }

  async #wait(id: string, listening: Listening, options: WaitOptions, lookFirst: boolean): Promise<JobResult> {
    const q = this.queue;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let look = lookFirst;
    for (;;) {
      if (listening.result !== undefined) return listening.result;
      if (look) {
        const entry = await q.results.get(`r.${id}`).catch(() => null);
        if (entry !== null && entry.operation === "PUT") return jobResultSchema.parse(JSON.parse(entry.string()));
      }
      look = true;
      if (listening.result !== undefined) return listening.result;
      if (options.signal?.aborted || Date.now() >= deadline) break;
      if (listening.notified) {
        listening.notified = false; // a notice without a result: look at the bucket at once
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(1_000, Math.max(0, deadline - Date.now())));
        options.signal?.addEventListener("abort", done, { once: true });
        listening.wake = done;
        function done() {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", done);
          listening.wake = () => undefined;
          resolve();
        }
      });
    }
    throw new RunnerError(
      "QUEUE_UNAVAILABLE",
      `no result for job ${id} ${options.signal?.aborted ? "(waiting was cancelled)" : `within ${options.timeoutMs} ms`}`,
    );
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
