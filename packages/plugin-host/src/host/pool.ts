/**
 * The worker pool of one plugin: bounded workers, bounded concurrency per worker, a bounded queue with a wait
 * limit, a per-call timeout that kills the worker, recycling after N calls, idle shutdown, and a circuit
 * breaker that stops restarting a plugin whose workers keep failing to start.
 *
 * Workers are partitioned: a worker serves calls of one partition only (the host passes a keyed hash of the call's
 * secrets), so state a call leaves in a worker's globals is never seen by a caller with other secrets. A worker
 * takes its partition from its first call; an idle worker of another partition is stopped to make room.
 */
import { PluginHostError } from "./errors.js";
import type { CallMessage } from "./protocol.js";
import type { CallHandlers, WorkerProcess } from "./worker-process.js";

export interface PoolOptions {
  /** Workers (processes) per plugin. Upstream: 5. */
  maxWorkers: number;
  /** Calls one worker runs at once. Upstream: 10. A timeout or crash fails every call on that worker. */
  maxConcurrentPerWorker: number;
  /** A call still running after this is stopped by killing its worker. Upstream: 120 s. */
  callTimeoutMs: number;
  /** A worker with nothing to do for this long is stopped. Upstream: 60 s. */
  idleTimeoutMs: number;
  /** A worker is replaced after serving this many calls. Upstream: 100. */
  recycleAfterCalls: number;
  /** Calls allowed to wait for a worker; more are refused at once. Upstream: 500. */
  maxQueue: number;
  /** A call that waited this long for a worker is refused. Upstream: 60 s. */
  queueTimeoutMs: number;
  /** Consecutive failed worker starts that open the circuit. Upstream: 3. */
  circuitBreakerThreshold: number;
  /** How long an open circuit refuses calls before one start is tried again. */
  circuitBreakerCooldownMs: number;
  /** Stream events one call may send; a flood beyond it stops the worker. */
  maxStreamEventsPerCall: number;
  /** Total stream content (UTF-16 code units) one call may send. */
  maxStreamCharsPerCall: number;
  /** Reverse calls (`ctx.invoke.*`) one call may make; more are answered with a LimitExceeded failure. */
  maxInvokesPerCall: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  maxWorkers: 5,
  maxConcurrentPerWorker: 10,
  callTimeoutMs: 120_000,
  idleTimeoutMs: 60_000,
  recycleAfterCalls: 100,
  maxQueue: 500,
  queueTimeoutMs: 60_000,
  circuitBreakerThreshold: 3,
  circuitBreakerCooldownMs: 30_000,
  maxStreamEventsPerCall: 10_000,
  maxStreamCharsPerCall: 4 * 1024 * 1024,
  maxInvokesPerCall: 1_000,
};

export interface PoolStats {
  /** Live workers (ready or retiring). */
  workers: number;
  starting: number;
  queued: number;
  inFlight: number;
  /** Workers started successfully since the pool was created. */
  workersStarted: number;
  /** Failed starts in a row (reset by a successful start). */
  consecutiveStartFailures: number;
  circuitOpen: boolean;
}

export type StartWorker = (id: number, onExit: (worker: WorkerProcess) => void) => Promise<WorkerProcess>;

interface Waiting {
  call: CallMessage;
  partition: string;
  handlers: CallHandlers;
  timer: NodeJS.Timeout;
}

export class WorkerPool {
  readonly #options: PoolOptions;
  readonly #start: StartWorker;
  readonly #workers = new Set<WorkerProcess>();
  readonly #queue: Waiting[] = [];
  #starting = 0;
  #nextWorkerId = 1;
  #workersStarted = 0;
  #startFailures = 0;
  #lastStartError: PluginHostError | undefined;
  #circuitOpenUntil = 0;
  #closed = false;

  /** Messages say what happened to the call; the host prefixes the tool and plugin. */
  constructor(options: PoolOptions, start: StartWorker) {
    this.#options = options;
    this.#start = start;
  }

  /**
   * Runs one call on a worker of `partition` (or a fresh one); `handlers.onDone` is called exactly once, with the
   * result or a PluginHostError.
   */
  submit(call: CallMessage, handlers: CallHandlers, partition = ""): void {
    if (this.#closed)
      return handlers.onDone({ ok: false, error: new PluginHostError("PLUGIN_HOST_CLOSED", `the host is closed`) });
    if (this.#circuitOpen()) return handlers.onDone({ ok: false, error: this.#circuitError() });
    const worker = this.#available(partition);
    if (worker && !this.#queue.some((waiting) => waiting.partition === partition))
      return this.#dispatch(worker, call, handlers, partition);
    if (this.#queue.length >= this.#options.maxQueue) {
      const error = new PluginHostError(
        "PLUGIN_QUEUE_FULL",
        `too many calls waiting (queue limit ${this.#options.maxQueue})`,
      );
      return handlers.onDone({ ok: false, error });
    }
    const waiting: Waiting = {
      call,
      partition,
      handlers,
      timer: setTimeout(() => {
        this.#removeWaiting(waiting);
        const message = `no worker became free within ${this.#options.queueTimeoutMs} ms`;
        handlers.onDone({ ok: false, error: new PluginHostError("PLUGIN_QUEUE_TIMEOUT", message) });
      }, this.#options.queueTimeoutMs),
    };
    this.#queue.push(waiting);
    this.#pump();
  }

  stats(): PoolStats {
    let inFlight = 0;
    for (const worker of this.#workers) inFlight += worker.inFlight;
    return {
      workers: this.#workers.size,
      starting: this.#starting,
      queued: this.#queue.length,
      inFlight,
      workersStarted: this.#workersStarted,
      consecutiveStartFailures: this.#startFailures,
      circuitOpen: this.#circuitOpen(),
    };
  }

  close(): void {
    this.#closed = true;
    const closed = () => new PluginHostError("PLUGIN_HOST_CLOSED", `the host was closed during the call`);
    for (const waiting of this.#queue.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.handlers.onDone({ ok: false, error: closed() });
    }
    for (const worker of this.#workers) worker.kill(closed);
  }

  #available(partition: string): WorkerProcess | undefined {
    let best: WorkerProcess | undefined;
    for (const worker of this.#workers) {
      if (!worker.alive || worker.retiring || worker.inFlight >= this.#options.maxConcurrentPerWorker) continue;
      if (worker.partition !== undefined && worker.partition !== partition) continue;
      if (!best || worker.inFlight < best.inFlight) best = worker;
    }
    return best;
  }

  #pump(): void {
    // In queue order, each waiting call that a worker of its partition (or a fresh worker) can take now.
    const unserved = new Map<string, number>();
    for (const waiting of [...this.#queue]) {
      const worker = this.#available(waiting.partition);
      if (!worker) {
        unserved.set(waiting.partition, (unserved.get(waiting.partition) ?? 0) + 1);
        continue;
      }
      this.#removeWaiting(waiting);
      clearTimeout(waiting.timer);
      this.#dispatch(worker, waiting.call, waiting.handlers, waiting.partition);
    }
    // Start workers for what cannot be served: one per batch of waiting calls (of one partition) a worker can take.
    let wanted = 0;
    for (const count of unserved.values()) wanted += Math.ceil(count / this.#options.maxConcurrentPerWorker);
    while (
      this.#starting < wanted &&
      this.#workers.size + this.#starting < this.#options.maxWorkers &&
      !this.#circuitOpen() &&
      !this.#closed
    ) {
      this.#startWorker().catch(() => {}); // the failure is handled (and reported to waiting calls) inside
    }
    // Still short and at the worker limit: idle workers of other partitions make room (their exit pumps again).
    let short = wanted - this.#starting;
    if (short <= 0 || this.#closed || this.#circuitOpen()) return;
    for (const worker of this.#workers) {
      if (short <= 0) break;
      if (!worker.alive || worker.retiring || worker.inFlight > 0) continue;
      worker.retiring = true;
      worker.kill(
        () => new PluginHostError("PLUGIN_WORKER_CRASHED", "the worker was stopped to serve calls with other secrets"),
      );
      short--;
    }
  }

  /** Starts a worker now, unless one is already live, so the next call skips the cold start. */
  async warmUp(): Promise<void> {
    if (this.#closed) throw new PluginHostError("PLUGIN_HOST_CLOSED", `the host is closed`);
    if (this.#circuitOpen()) throw this.#circuitError();
    if ([...this.#workers].some((worker) => worker.alive && !worker.retiring)) return;
    await this.#startWorker();
  }

  #startWorker(): Promise<void> {
    this.#starting++;
    const id = this.#nextWorkerId++;
    return this.#start(id, (worker) => this.#onWorkerExit(worker)).then(
      (worker) => {
        this.#starting--;
        this.#startFailures = 0;
        this.#workersStarted++;
        if (this.#closed) return worker.kill(() => new PluginHostError("PLUGIN_HOST_CLOSED", `the host is closed`));
        this.#workers.add(worker);
        this.#pump();
        this.#armIdle(worker);
      },
      (error: unknown) => {
        this.#starting--;
        this.#startFailures++;
        this.#lastStartError =
          error instanceof PluginHostError
            ? error
            : new PluginHostError("PLUGIN_WORKER_START_FAILED", `${String(error)}`);
        if (this.#startFailures >= this.#options.circuitBreakerThreshold) {
          this.#circuitOpenUntil = Date.now() + this.#options.circuitBreakerCooldownMs;
        }
        // Nobody left to serve the waiting calls: they fail with the reason, rather than wait for nothing.
        if (this.#workers.size === 0 && this.#starting === 0) {
          for (const waiting of this.#queue.splice(0)) {
            clearTimeout(waiting.timer);
            waiting.handlers.onDone({ ok: false, error: this.#lastStartError });
          }
        } else {
          this.#pump();
        }
        throw this.#lastStartError;
      },
    );
  }

  #dispatch(worker: WorkerProcess, call: CallMessage, handlers: CallHandlers, partition: string): void {
    // A worker belongs to the partition of its first call for the rest of its life.
    worker.partition ??= partition;
    worker.setIdleTimer(undefined, () => {});
    const timer = setTimeout(() => {
      worker.kill((callId) =>
        callId === call.callId
          ? new PluginHostError(
              "PLUGIN_TIMEOUT",
              `did not finish within ${this.#options.callTimeoutMs} ms; its worker was stopped`,
            )
          : new PluginHostError("PLUGIN_WORKER_CRASHED", `the worker was stopped because another call on it timed out`),
      );
    }, this.#options.callTimeoutMs);
    let events = 0;
    let chars = 0;
    let invokes = 0;
    worker.dispatch(call, {
      onStream: (data) => {
        events++;
        chars += streamChars(data);
        const { maxStreamEventsPerCall: maxEvents, maxStreamCharsPerCall: maxChars } = this.#options;
        if (events <= maxEvents && chars <= maxChars) return handlers.onStream(data);
        const limit = events > maxEvents ? `${maxEvents} stream events` : `${maxChars} characters of stream content`;
        worker.kill((callId) =>
          callId === call.callId
            ? new PluginHostError("PLUGIN_LIMIT_EXCEEDED", `sent more than ${limit}; its worker was stopped`)
            : new PluginHostError(
                "PLUGIN_WORKER_CRASHED",
                "the worker was stopped because another call on it exceeded a limit",
              ),
        );
      },
      onInvoke: (method, args) => {
        if (++invokes <= this.#options.maxInvokesPerCall) return handlers.onInvoke(method, args);
        const en = `ctx.invoke.${method}: more than ${this.#options.maxInvokesPerCall} reverse calls in one run`;
        const zh = `ctx.invoke.${method}：单次运行的反向调用超过 ${this.#options.maxInvokesPerCall} 次`;
        return Promise.resolve([null, { reason: { en, "zh-CN": zh }, error: "LimitExceeded", message: en }] as const);
      },
      onDone: (outcome) => {
        clearTimeout(timer);
        handlers.onDone(outcome);
        if (worker.alive && worker.inFlight === 0) {
          if (worker.retiring)
            worker.kill(() => new PluginHostError("PLUGIN_WORKER_CRASHED", "the worker was recycled"));
          else this.#armIdle(worker);
        }
        this.#pump();
      },
    });
    if (worker.served >= this.#options.recycleAfterCalls) worker.retiring = true;
  }

  #armIdle(worker: WorkerProcess): void {
    if (worker.inFlight > 0) return;
    worker.setIdleTimer(this.#options.idleTimeoutMs, () => {
      if (worker.inFlight === 0)
        worker.kill(() => new PluginHostError("PLUGIN_WORKER_CRASHED", "the worker was stopped while idle"));
    });
  }

  #onWorkerExit(worker: WorkerProcess): void {
    this.#workers.delete(worker);
    if (!this.#closed) this.#pump();
  }

  #removeWaiting(waiting: Waiting): void {
    const index = this.#queue.indexOf(waiting);
    if (index >= 0) this.#queue.splice(index, 1);
  }

  #circuitOpen(): boolean {
    return Date.now() < this.#circuitOpenUntil;
  }

  #circuitError(): PluginHostError {
    const seconds = Math.ceil((this.#circuitOpenUntil - Date.now()) / 1000);
    const last = this.#lastStartError ? ` (last error: ${this.#lastStartError.message})` : "";
    return new PluginHostError(
      "PLUGIN_CIRCUIT_OPEN",
      `workers failed to start ${this.#startFailures} times in a row; not retrying for ${seconds} s${last}`,
    );
  }
}

function streamChars(data: unknown): number {
  const content = typeof data === "object" && data !== null ? (data as { content?: unknown }).content : undefined;
  return typeof content === "string" ? content.length : 0;
}
