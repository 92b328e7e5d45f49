// The JetStream side of the pool, shared by runners and clients: one work-queue stream of jobs (a subject per tenant,
// a durable pull consumer per tenant), a dead-letter stream, a results bucket (recorded once per job id) and a
// bucket of runner statistics (docs/runners.md, decisions 0370, 0373).
import { connect } from "@nats-io/transport-node";
import {
  jetstream,
  jetstreamManager,
  AckPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { RunnerError } from "./errors.js";
import { queueNames, type QueueNames } from "./protocol.js";

export interface QueueOptions {
  /** NATS address, `nats://127.0.0.1:4222`. */
  queue: string;
  /** Subject/stream prefix, so several pools (or tests) share one server. Default `skillport`. */
  prefix?: string;
  /** Jobs the stream holds at most (waiting + running); a full queue answers "busy". Default 100,000. */
  maxQueued?: number;
  /** Jobs one tenant may have queued at most. Default 10,000. */
  maxQueuedPerTenant?: number;
  /** How long results stay readable. Default 24 h. */
  resultTtlMs?: number;
  /** Connection name shown by the server. */
  name?: string;
}

export const DEFAULT_MAX_QUEUED = 100_000;
export const DEFAULT_MAX_QUEUED_PER_TENANT = 10_000;
const NANOS = 1_000_000;

export interface Queue {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: QueueNames;
  results: KV;
  runners: KV;
}

/** `nats://host:port` (or several, comma-separated) → what the client takes; anything else is refused in one line. */
export function parseQueueAddress(address: string): string[] {
  const servers = address.split(",").map((s) => s.trim());
  for (const s of servers) {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new RunnerError("JOB_INVALID", `queue address ${JSON.stringify(s)} is not a URL (nats://host:port)`);
    }
    if (url.protocol !== "nats:" || url.hostname === "")
      throw new RunnerError("JOB_INVALID", `queue address ${JSON.stringify(s)} must be nats://host:port`);
  }
  return servers;
}

/** Connects and makes sure the streams and buckets exist (idempotent; every runner and client calls it). */
export async function openQueue(options: QueueOptions): Promise<Queue> {
  const names = queueNames(options.prefix);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: parseQueueAddress(options.queue),
      name: options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: 5_000,
    });
  } catch (error) {
    if (error instanceof RunnerError) throw error;
    throw new RunnerError(
      "QUEUE_UNAVAILABLE",
      `cannot reach the queue at ${options.queue}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, names.stream, {
      subjects: [names.jobWildcard],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      discard_new_per_subject: true,
      max_msgs: options.maxQueued ?? DEFAULT_MAX_QUEUED,
      max_msgs_per_subject: options.maxQueuedPerTenant ?? DEFAULT_MAX_QUEUED_PER_TENANT,
      duplicate_window: 120_000 * NANOS,
    });
    await ensureStream(jsm, names.deadStream, {
      subjects: [`${names.deadSubject("*")}`],
      storage: StorageType.File,
      max_age: 7 * 24 * 3600_000 * NANOS,
    });
    const kvm = new Kvm(nc);
    const results = await kvm.create(names.resultsBucket, {
      history: 1,
      ttl: options.resultTtlMs ?? 24 * 3600_000,
      storage: StorageType.File,
      republish: resultNotices(names),
    });
    const runners = await kvm.create(names.runnersBucket, { history: 1, ttl: 15_000, storage: StorageType.Memory });
    return { nc, js: jetstream(nc), jsm, names, results, runners };
  } catch (error) {
    await nc.close().catch(() => undefined);
    throw new RunnerError(
      "QUEUE_UNAVAILABLE",
      `queue at ${options.queue}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function ensureStream(jsm: JetStreamManager, name: string, config: Record<string, unknown>): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    try {
      await jsm.streams.add({ name, ...config });
    } catch (error) {
      // Another runner created it meanwhile.
      await jsm.streams.info(name).catch(() => {
        throw error;
      });
    }
  }
}

/** The tenant's durable pull consumer (created on first sight; the same for every runner). */
export async function ensureConsumer(queue: Queue, tenant: string, ackWaitMs: number): Promise<string> {
  const name = queue.names.consumer(tenant);
  try {
    await queue.jsm.consumers.info(queue.names.stream, name);
  } catch {
    await queue.jsm.consumers.add(queue.names.stream, {
      durable_name: name,
      filter_subject: queue.names.jobSubject(tenant),
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWaitMs * NANOS,
      max_deliver: -1, // the runner bounds retries itself, so a job that kills its runner still reaches the dead letters
      max_ack_pending: 10_000,
    });
  }
  return name;
}

/**
 * The server announces each recorded result itself: a stored `r.<id>` is republished on `done.<id>` with its bytes, as
 * soon as it is stored and only if it was (a refused second `create` is not), so the notice no longer waits for the
 * runner to hear its write acknowledged and publish (decision 0442).
 */
function resultNotices(names: QueueNames): { src: string; dest: string } {
  return { src: `$KV.${names.resultsBucket}.r.*`, dest: names.doneSubject("{{wildcard(1)}}") };
}

/**
 * Whether the results bucket republishes recorded results (above). A bucket made before it did gets the rule where the
 * server allows the change (NATS 2.10+); otherwise false, and the runner publishes each notice itself.
 */
export async function serverAnnouncesResults(queue: Queue): Promise<boolean> {
  const stream = `KV_${queue.names.resultsBucket}`;
  const wanted = resultNotices(queue.names);
  const info = await queue.jsm.streams.info(stream);
  const has = info.config.republish;
  if (has?.src === wanted.src && has.dest === wanted.dest && !has.headers_only) return true;
  if (has !== undefined && has.src !== "") return false; // someone else's rule: left alone
  try {
    await queue.jsm.streams.update(stream, { ...info.config, republish: wanted });
    return true;
  } catch {
    return false;
  }
}

/** Tenants with jobs in the stream (waiting or in flight), with counts. */
export async function tenantCounts(queue: Queue): Promise<Map<string, number>> {
  const info = await queue.jsm.streams.info(queue.names.stream, { subjects_filter: queue.names.jobWildcard });
  const counts = new Map<string, number>();
  const prefix = queue.names.jobSubject("");
  for (const [subject, count] of Object.entries(info.state.subjects ?? {}))
    if (count > 0) counts.set(subject.slice(prefix.length), count);
  return counts;
}

/** Drains (pending publishes and acks go out) but never waits long: with the server away a drain would wait forever. */
export async function closeQueue(queue: Queue, waitMs = 2_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    queue.nc.drain().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  if (!drained) await queue.nc.close().catch(() => undefined);
}
