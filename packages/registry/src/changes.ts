import { sql } from "kysely";
import { REGISTRY_CHANNEL, type RegistryStore } from "./store.js";

export interface RegistryWatchOptions {
  /**
   * How often the change counter is read where no notification arrives: SQLite (another process may share the file),
   * or PostgreSQL while its listening connection is down. Default 2,000 ms.
   */
  pollIntervalMs?: number;
}

export interface RegistryWatch {
  /** Whether changes arrive by PostgreSQL NOTIFY right now (false: polled). */
  readonly notified: boolean;
  stop(): Promise<void>;
}

/**
 * Tells `onChange` whenever what is published may have changed — by this process (at once, after its commit) or by
 * any other instance on the same database: on PostgreSQL by LISTEN/NOTIFY (each commit that moves the change counter
 * notifies `skillport_registry` with its schema, delivered at commit), elsewhere by reading the counter every
 * `pollIntervalMs`. A lost listening connection falls back to polling and looks once at once, so no change is missed.
 * Calls are coalesced: one running `onChange` at a time, and a change during it causes exactly one more.
 */
export async function watchRegistryChanges(
  store: RegistryStore,
  onChange: () => Promise<void> | void,
  options: RegistryWatchOptions = {},
): Promise<RegistryWatch> {
  const interval = options.pollIntervalMs ?? 2000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let counter = await readCounter(store);
  let timer: NodeJS.Timeout | undefined;
  let notified = false;

  const fire = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = Promise.resolve()
      .then(onChange)
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          fire();
        }
      });
  };
  const poll = (): void => {
    if (stopped || timer) return;
    timer = setInterval(() => {
      void readCounter(store)
        .then((now) => {
          if (now !== counter) {
            counter = now;
            fire();
          }
        })
        .catch(() => undefined);
    }, interval);
    timer.unref();
  };

  const unsubscribe = store.onLocalChange(fire);
  const listenerClient = store.database.notificationClient();
  let listener: Awaited<NonNullable<typeof listenerClient>> | undefined;
  if (listenerClient === undefined) poll();
  else {
    try {
      const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.database.kysely))
        .rows[0]?.schema;
      listener = await listenerClient;
      const client = listener;
      await client.listen(
        REGISTRY_CHANNEL,
        (payload) => {
          if (payload === schema) fire();
        },
        () => {
          // The listening connection is gone: poll from now on, and look once in case a notice was lost.
          notified = false;
          listener = undefined;
          void client.close();
          poll();
          fire();
        },
      );
      notified = true;
    } catch {
      await listener?.close().catch(() => undefined);
      listener = undefined;
      poll();
    }
  }

  return {
    get notified() {
      return notified;
    },
    async stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearInterval(timer);
      timer = undefined;
      await listener?.close().catch(() => undefined);
      await running?.catch(() => undefined);
    },
  };
}

async function readCounter(store: RegistryStore): Promise<number> {
  const { rows } = await sql<{
    value: number | string;
  }>`select value from registry_state where key = 'changes'`.execute(store.database.kysely);
  return Number(rows[0]?.value ?? 0);
}
