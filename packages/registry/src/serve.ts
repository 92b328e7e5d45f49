import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createRegistryHttp, type RegistryAppOptions } from "./http/app.js";
import type { HotAnswers } from "./http/hot.js";
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
  /** Requests answered by the hot path in front of the app (`hot`) and handed to the app (`app`); decision 0417. */
  readonly answered: { readonly hot: number; readonly app: number };
  close(): Promise<void>;
}

/** Opens the store and serves the app on Node's HTTP server until `close()`. */
export async function serveRegistry(options: ServeRegistryOptions): Promise<RunningRegistry> {
  const store = await RegistryStore.open(options);
  const host = options.host ?? "127.0.0.1";
  let server: Server | undefined;
  let mcp: RegistryMcp | undefined;
  let hot: HotAnswers | undefined;
  let syncRateLimits: () => Promise<void> = async () => undefined;
  let port: number;
  try {
    if (options.mcp !== false)
      mcp = await RegistryMcp.open(store, {
        ...(typeof options.mcp === "object" && options.mcp),
        ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
      });
    const http = createRegistryHttp(store, {
      ...options,
      modules: [...(options.modules ?? []), ...(mcp ? [mcp.module] : [])],
    });
    hot = http.hot;
    syncRateLimits = http.syncRateLimits;
    const listener = getRequestListener(http.app.fetch, { hostname: host });
    // Idle keep-alive sockets stay open longer than clients keep them (undici: 4 s), so a client never reuses a
    // socket the server is closing at that moment (a reset request, UND_ERR_SOCKET).
    const listening = createServer({ keepAliveTimeout: 65_000 }, hotFirst(http.hot, listener));
    server = listening;
    port = await new Promise<number>((resolve, reject) => {
      listening.once("error", reject);
      listening.listen(options.port ?? 0, host, () => resolve((listening.address() as AddressInfo).port));
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
    answered: hot?.answered ?? { hot: 0, app: 0 },
    async close() {
      clearInterval(sweeper);
      await mcp?.close();
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // The hits not yet shared with the other servers (PostgreSQL) are sent before the database closes.
      await syncRateLimits().catch(() => undefined);
      await store.close();
    },
  };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Each request to the hot path first; what it does not answer to the app's listener (decision 0417). */
function hotFirst(hot: HotAnswers | undefined, app: Listener): Listener {
  if (hot === undefined) return app;
  return (req, res) => {
    const answered = hot.answer(req, res);
    if (answered === false) app(req, res);
    else if (answered !== true)
      // A failed counter read is the app's to answer (its error handling, its wording).
      answered.then(
        (done) => done || app(req, res),
        () => app(req, res),
      );
  };
}
