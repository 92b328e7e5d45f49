import path from "node:path";
import { Option, type Command } from "commander";
import type { SandboxKind } from "@skillport/sandbox";
import { defaultCacheDir } from "../cache-dir.js";
import { atLeastOne, positiveInteger } from "../options.js";
import { CliError, printJson, type CliOutput } from "../io.js";
import { importOptional } from "@skillport/core/internal";
import { openPackageStore } from "../runner-packages.js";

interface RunnerCommandOptions {
  queue?: string;
  concurrency: number;
  cache?: string;
  packages?: string;
  sessions?: string;
  sandbox: SandboxKind | "auto";
  network?: boolean;
  metricsPort?: number;
  ackWait: number;
  maxAttempts: number;
  prefix: string;
  id?: string;
  events?: boolean;
  pidFile?: string;
}

/** `skillport runner --queue nats://…`: a runner process of the pool; `skillport runner status`: the pool's state. */
export function registerRunner(program: Command, io: CliOutput): void {
  const runner = program
    .command("runner")
    .description(
      "run jobs from a NATS JetStream queue in sandboxes (a runner of the pool); `runner status` shows the pool",
    )
    .option("--queue <url>", "NATS address, e.g. nats://127.0.0.1:4222 (required)")
    .option("--concurrency <n>", "jobs run at once", atLeastOne, 1)
    .option("--cache <dir>", "runner-local workspace cache (one runner per folder; default <cache dir>/runner)")
    .option(
      "--packages <dir|url>",
      "package store: a folder of <versionId>.zip archives, or a registry URL (default <cache>/packages)",
    )
    .option("--sessions <postgres-url>", "PostgreSQL for working folders kept between calls (jobs with a session)")
    .addOption(
      new Option("--sandbox <kind>", "sandbox backend").choices(["auto", "bubblewrap", "process"]).default("auto"),
    )
    .option("--network", "let entrypoints and jobs use the network")
    .option(
      "--metrics-port <port>",
      "serve Prometheus metrics on 127.0.0.1:<port>/metrics (0: a free port)",
      positiveInteger,
    )
    .option("--ack-wait <seconds>", "redeliver a job whose runner stopped heartbeating after this long", atLeastOne, 30)
    .option("--max-attempts <n>", "deliveries of one job before it goes to the dead-letter subject", atLeastOne, 3)
    .option("--prefix <name>", "subject and stream prefix (several pools on one server)", "skillport")
    .option("--id <name>", "this runner's name in status and metrics")
    .option("--events", "print one JSON line per job event on stderr")
    .option("--pid-file <file>", "write this process's id there once it takes jobs (for `kill $(cat file)`)")
    .action(async (options: RunnerCommandOptions) => {
      const queue = options.queue;
      if (queue === undefined) throw new CliError("runner needs --queue <url> (nats://host:port)");
      const runners = await importOptional(
        "@skillport/runners",
        "skillport runner",
        () => import("@skillport/runners"),
      );
      const cache = path.resolve(io.cwd, options.cache ?? path.join(defaultCacheDir(), "runner"));
      const { JobExecutor, PostgresSessionStore, Runner } = runners;
      const packages = await openPackageStore(runners, options.packages ?? path.join(cache, "packages"), io.cwd);
      const sessions = options.sessions === undefined ? undefined : new PostgresSessionStore(options.sessions);
      // The cache is this runner's: a second runner on the same folder would delete the first one's job folders.
      const { acquireLock } = await import("@skillport/runtime");
      const { mkdir } = await import("node:fs/promises");
      await mkdir(cache, { recursive: true, mode: 0o700 });
      const release = await acquireLock(path.join(cache, "runner.lock"), { waitMs: 1_000 }).catch(() => {
        throw new CliError(`the runner cache ${cache} is in use by another runner (--cache <dir> for a second runner)`);
      });
      const executor = new JobExecutor({
        cacheDir: cache,
        packages,
        sessions,
        sandbox: options.sandbox,
        network: options.network ?? false,
      });
      const pool = new Runner({
        queue,
        prefix: options.prefix,
        executor,
        concurrency: options.concurrency,
        ackWaitMs: options.ackWait * 1000,
        maxAttempts: options.maxAttempts,
        metricsPort: options.metricsPort,
        id: options.id,
        onEvent: (event) => {
          if (options.events || event.type === "error" || event.type === "reconnected")
            io.stderr(`${JSON.stringify({ ...event, at: Date.now() })}\n`);
        },
      });
      const { metricsPort } = await pool.start();
      if (options.pidFile !== undefined) {
        const { writeFileAtomic } = await import("@skillport/fs");
        await writeFileAtomic(path.resolve(io.cwd, options.pidFile), `${process.pid}\n`);
      }
      io.stderr(
        `runner ${pool.id} taking jobs from ${queue} (concurrency ${options.concurrency}${metricsPort === undefined ? "" : `, metrics http://127.0.0.1:${metricsPort}/metrics`})\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      io.stderr(`runner ${pool.id} stopping: finishing running jobs\n`);
      await pool.stop();
      await sessions?.close();
      await release();
    });

  runner
    .command("status")
    .description("queue depth, running jobs, p50/p99 latency and failures by reason of the pool")
    .option("--json", "print the status as JSON")
    .addHelpText(
      "after",
      "\nTakes --queue <url> and --prefix <name> like the runner: skillport runner status --queue nats://127.0.0.1:4222",
    )
    .action(async (_own: unknown, command: Command) => {
      // --queue and --prefix are the runner command's options: commander gives them to the parent.
      const options = command.optsWithGlobals<{ queue?: string; prefix: string; json?: boolean }>();
      if (options.queue === undefined) throw new CliError("runner status needs --queue <url> (nats://host:port)");
      const { QueueClient } = await importOptional(
        "@skillport/runners",
        "skillport runner",
        () => import("@skillport/runners"),
      );
      const client = await QueueClient.connect({ queue: options.queue, prefix: options.prefix });
      try {
        const s = await client.status();
        if (options.json) {
          printJson(io, s);
          return;
        }
        const ms = (v: number | undefined) => (v === undefined ? "-" : `${v} ms`);
        const lines = [
          `queued     ${s.queued}${
            Object.keys(s.queuedByTenant).length > 0
              ? `  (${Object.entries(s.queuedByTenant)
                  .map(([t, n]) => `${t} ${n}`)
                  .join(", ")})`
              : ""
          }`,
          `in flight  ${s.inFlight}`,
          `running    ${s.running} on ${s.runners.length} runner${s.runners.length === 1 ? "" : "s"}`,
          `completed  ${s.completed}`,
          `latency    p50 ${ms(s.latencyMs.p50)}  p99 ${ms(s.latencyMs.p99)}  (${s.latencyMs.samples} jobs)`,
          `failures   ${
            Object.keys(s.failures).length === 0
              ? "none"
              : Object.entries(s.failures)
                  .map(([r, n]) => `${r} ${n}`)
                  .join(", ")
          }`,
          `dead       ${s.deadLetters}`,
          ...s.runners.map((r) => `  ${r.id}  running ${r.running}/${r.concurrency}  completed ${r.completed}`),
        ];
        io.data(lines.join("\n") + "\n");
      } finally {
        await client.close();
      }
    });
}
