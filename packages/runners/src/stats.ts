// Pool statistics: what each runner publishes, how `runner status` merges them, the Prometheus text format.
export interface RunnerStats {
  id: string;
  pid: number;
  host: string;
  concurrency: number;
  running: number;
  completed: number;
  /** Counts by reason (`exit-nonzero`, `timeout`, `cancelled`, `package`, `entrypoint`, `dead-letter`, …). */
  failures: Record<string, number>;
  /** The latest job latencies (ms, submit → result recorded), newest last, at most LATENCY_SAMPLES. */
  latencies: number[];
  startedAt: number;
  updatedAt: number;
}

export const LATENCY_SAMPLES = 512;

/** The q-quantile (0–1) of the samples, nearest rank; undefined when there are none. */
export function quantile(samples: readonly number[], q: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export interface PoolStatus {
  /** Jobs waiting (not yet delivered), by tenant and in all. */
  queued: number;
  queuedByTenant: Record<string, number>;
  /** Delivered and not yet acknowledged (running, or awaiting redelivery). */
  inFlight: number;
  running: number;
  runners: { id: string; host: string; pid: number; running: number; concurrency: number; completed: number }[];
  completed: number;
  latencyMs: { p50: number | undefined; p99: number | undefined; samples: number };
  failures: Record<string, number>;
  deadLetters: number;
}

export function mergeStats(
  stats: readonly RunnerStats[],
  queue: { queuedByTenant: Record<string, number>; inFlight: number; deadLetters: number },
): PoolStatus {
  const failures: Record<string, number> = {};
  const latencies: number[] = [];
  for (const s of stats) {
    for (const [k, v] of Object.entries(s.failures)) failures[k] = (failures[k] ?? 0) + v;
    latencies.push(...s.latencies);
  }
  return {
    queued: Object.values(queue.queuedByTenant).reduce((a, b) => a + b, 0),
    queuedByTenant: queue.queuedByTenant,
    inFlight: queue.inFlight,
    running: stats.reduce((a, s) => a + s.running, 0),
    runners: stats.map((s) => ({
      id: s.id,
      host: s.host,
      pid: s.pid,
      running: s.running,
      concurrency: s.concurrency,
      completed: s.completed,
    })),
    completed: stats.reduce((a, s) => a + s.completed, 0),
    latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), samples: latencies.length },
    failures,
    deadLetters: queue.deadLetters,
  };
}

/** One runner's metrics in the Prometheus text exposition format (version 0.0.4). */
export function prometheusText(s: RunnerStats, queued: number | undefined): string {
  const label = `runner="${s.id.replace(/["\\\n]/g, "_")}"`;
  const lines = [
    "# HELP skillport_runner_running Jobs running on this runner.",
    "# TYPE skillport_runner_running gauge",
    `skillport_runner_running{${label}} ${s.running}`,
    "# HELP skillport_runner_concurrency Jobs this runner runs at once at most.",
    "# TYPE skillport_runner_concurrency gauge",
    `skillport_runner_concurrency{${label}} ${s.concurrency}`,
    "# HELP skillport_runner_jobs_completed_total Jobs this runner finished and recorded.",
    "# TYPE skillport_runner_jobs_completed_total counter",
    `skillport_runner_jobs_completed_total{${label}} ${s.completed}`,
    "# HELP skillport_runner_failures_total Jobs that did not complete cleanly, by reason.",
    "# TYPE skillport_runner_failures_total counter",
    ...Object.entries(s.failures).map(
      ([reason, n]) => `skillport_runner_failures_total{${label},reason="${reason.replace(/[^a-z0-9-]/g, "_")}"} ${n}`,
    ),
    "# HELP skillport_runner_job_latency_seconds Submit-to-result latency of this runner's latest jobs.",
    "# TYPE skillport_runner_job_latency_seconds summary",
  ];
  for (const q of [0.5, 0.99]) {
    const v = quantile(s.latencies, q);
    if (v !== undefined)
      lines.push(`skillport_runner_job_latency_seconds{${label},quantile="${q}"} ${(v / 1000).toFixed(4)}`);
  }
  lines.push(`skillport_runner_job_latency_seconds_count{${label}} ${s.latencies.length}`);
  if (queued !== undefined) {
    lines.push(
      "# HELP skillport_queue_depth Jobs waiting in the queue (all tenants).",
      "# TYPE skillport_queue_depth gauge",
      `skillport_queue_depth ${queued}`,
    );
  }
  return lines.join("\n") + "\n";
}
