import { serve, type ServerType } from "@hono/node-server";
import { createRegistryApp, type RegistryAppOptions } from "./http/app.js";
import { RegistryMcp, type RegistryMcpOptions } from "./mcp.js";
import { RegistryStore, type RegistryStoreOptions } from "./store.js";

export interface ServeRegistryOptions extends RegistryStoreOptions, RegistryAppOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** How often unfinished uploads are swept, in ms. Default 5 min. */
  sweepIntervalMs?: number;
  /** MCP at `/mcp` over the published skills (false: none). Default on. */
  mcp?: boolean | Omit<RegistryMcpOptions, "publicUrl">;
}

export interface RunningRegistry {
  url: string;
  port: number;
  store: RegistryStore;
  /** The MCP endpoint at `${url}/mcp`, unless turned off. */
  mcp: RegistryMcp | undefined;
  close(): Promise<void>;
}

/** Opens the store and serves the app on Node's HTTP server until `close()`. */
export async function serveRegistry(options: ServeRegistryOptions): Promise<RunningRegistry> {
  const store = await RegistryStore.open(options);
  const host = options.host ?? "127.0.0.1";
  let server: ServerType | undefined;
  let mcp: RegistryMcp | undefined;
  let port: number;
  try {
    if (options.mcp !== false)
      mcp = await RegistryMcp.open(store, {
        ...(typeof options.mcp === "object" && options.mcp),
        ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
      });
    const app = createRegistryApp(store, {
      ...options,
      modules: [...(options.modules ?? []), ...(mcp ? [mcp.module] : [])],
    });
    port = await new Promise<number>((resolve, reject) => {
      // Idle keep-alive sockets stay open longer than clients keep them (undici: 4 s), so a client never reuses a
      // socket the server is closing at that moment (a reset request, UND_ERR_SOCKET).
      server = serve(
        {
          fetch: app.fetch,
          hostname: host,
          port: options.port ?? 0,
          serverOptions: { keepAliveTimeout: 65_000 },
        },
        (info) => resolve(info.port),
      );
      server.once("error", reject);
    });
    mcp?.listening({ host, port });
  } catch (error) {
    await mcp?.close();
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
    mcp,
    async close() {
      clearInterval(sweeper);
      await mcp?.close();
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await store.close();
    },
  };
}
