import { sql, type Kysely } from "kysely";
import type { NotificationClient, SqlDatabase } from "./connection.js";
import type { SkillDatabase, SqlTableNames } from "./tables.js";

/** What the watcher needs from a connected repository. */
export interface WatchedStore {
  database: SqlDatabase;
  db: Kysely<SkillDatabase>;
  native: boolean;
}

export interface ChangeWatcherOptions {
  intervalMs: number;
  ready: () => Promise<WatchedStore>;
  namespace: string;
  channel: string;
  onChange: (ids: string[]) => void;
}

/** The PostgreSQL NOTIFY channel of a table set: short (identifiers stop at 63 bytes) and per skills table. */
export function notifyChannel(tables: SqlTableNames): string {
  let hash = 0x811c9dc5;
  for (const char of tables.skills) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `skillport_${hash.toString(16).padStart(8, "0")}`;
}

/**
 * Turns "something changed" into the ids that changed. The trigger is a NOTIFY (PostgreSQL) or the namespace's
 * counter row moving (polled); the ids come from comparing each skill's row id and version with the last look, so
 * deletions and re-creations are seen too. Failures are retried on the next tick: a library never prints.
 */
export class ChangeWatcher {
  readonly #options: ChangeWatcherOptions;
  #timer: NodeJS.Timeout | undefined;
  #listener: NotificationClient | undefined;
  #known: Map<string, string> | undefined;
  #counter: number | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: ChangeWatcherOptions) {
    this.#options = options;
  }

  start(): void {
    void this.#begin();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.close();
    await this.#running?.catch(() => undefined);
  }

  async #begin(): Promise<void> {
    let store: WatchedStore;
    try {
      store = await this.#options.ready();
      this.#known = await this.#snapshot(store);
      this.#counter = await this.#readCounter(store);
    } catch {
      // Not reachable yet: polling will take the first look.
      this.#poll();
      return;
    }
    if (this.#stopped) return;
    const client = store.database.notificationClient();
    if (!client) return this.#poll();
    try {
      const listener = await client;
      if (this.#stopped) return void (await listener.close());
      this.#listener = listener;
      await listener.listen(
        this.#options.channel,
        (payload) => {
          if (payload === this.#options.namespace) this.#check(true);
        },
        () => {
          // The listening connection is gone: fall back to polling, and look now in case a notice was lost.
          this.#listener = undefined;
          void listener.close();
          if (!this.#stopped) {
            this.#poll();
            this.#check(true);
          }
        },
      );
    } catch {
      this.#poll();
    }
  }

  #poll(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setInterval(() => this.#check(false), this.#options.intervalMs);
    this.#timer.unref();
  }

  /** One look at a time; a trigger arriving mid-look causes exactly one more. */
  #check(notified: boolean): void {
    if (this.#running) {
      if (notified) this.#again = true;
      return;
    }
    this.#running = this.#look(notified)
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.#check(true);
        }
      });
  }

  async #look(notified: boolean): Promise<void> {
    const store = await this.#options.ready();
    if (!notified && store.native) {
      const counter = await this.#readCounter(store);
      if (counter === this.#counter) return;
      this.#counter = counter;
    } else if (store.native) {
      this.#counter = await this.#readCounter(store);
    }
    const next = await this.#snapshot(store);
    const previous = this.#known;
    this.#known = next;
    if (!previous || this.#stopped) return;
    const changed = new Set<string>();
    for (const [name, token] of next) if (previous.get(name) !== token) changed.add(name);
    for (const name of previous.keys()) if (!next.has(name)) changed.add(name);
    if (changed.size > 0) this.#options.onChange([...changed].sort());
  }

  async #readCounter(store: WatchedStore): Promise<number | undefined> {
    if (!store.native) return undefined;
    const row = await store.db
      .selectFrom("changes")
      .select(["version"])
      .where("namespace", "=", this.#options.namespace)
      .executeTakeFirst();
    return row === undefined ? 0 : Number(row.version);
  }

  /** Each skill's row id and version (AgentScope's tables: row id and updated_at). */
  async #snapshot(store: WatchedStore): Promise<Map<string, string>> {
    const known = new Map<string, string>();
    if (store.native) {
      const rows = await store.db
        .selectFrom("skills")
        .select(["id", "name", "version"])
        .where("namespace", "=", this.#options.namespace)
        .execute();
      for (const row of rows) known.set(row.name, `${row.id}:${row.version}`);
    } else {
      const rows = await store.db
        .selectFrom("skills")
        .select(["id", "name"])
        .select(sql<string>`updated_at`.as("stamp"))
        .execute();
      for (const row of rows) known.set(row.name, `${row.id}:${String(row.stamp)}`);
    }
    return known;
  }
}
