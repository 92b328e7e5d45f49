import { serve, type ServerType } from "@hono/node-server";
import { createRegistryApp, type RegistryAppOptions } from "./http/app.js";
import { RegistryStore, type RegistryStoreOptions } from "./store.js";

export interface ServeRegistryOptions extends RegistryStoreOptions, RegistryAppOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** How often unfinished uploads are swept, in ms. Default 5 min. */
  sweepIntervalMs?: number;
}

export interface RunningRegistry {
  url: string;
  port: number;
  store: RegistryStore;
  close(): Promise<void>;
}

/** Opens the store and serves the app on Node's HTTP server until `close()`. */
export async function serveRegistry(options: ServeRegistryOptions): Promise<RunningRegistry> {
  const store = await RegistryStore.open(options);
  const app = createRegistryApp(store, options);
  const host = options.host ?? "127.0.0.1";
  let server: ServerType | undefined;
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, (info) => resolve(info.port));
      server.once("error", reject);
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const sweeper = setInterval(
    () => void store.sweep().catch(() => undefined),
    options.sweepIntervalMs ?? 5 * 60 * 1000,
  );
  sweeper.unref();
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    store,
    async close() {
      clearInterval(sweeper);
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await store.close();
    },
  };
}
