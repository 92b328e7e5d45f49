import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpServer,
} from "@modelcontextprotocol/server";
import type { SkillServer } from "./server.js";

export interface McpRequestHandlerOptions {
  /** Largest request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Open 2025-era sessions at once. Default 256. */
  maxSessions?: number;
  /** A 2025-era session unused this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
}

/**
 * The MCP part of Streamable HTTP over web-standard `Request`/`Response`: what `serveHttp` runs behind its guards, and
 * what another server (the registry's Hono app at `/mcp`) mounts behind its own. Auth, Host/Origin checks, rate and
 * size limits are the caller's.
 */
export interface McpRequestHandler {
  fetch(request: Request): Promise<Response>;
  /**
   * The protocol version an open 2025-era session negotiated (marking it used), or undefined when there is no such
   * session: how a transport in front answers a session's request itself (`serveHttp`'s fast path, decision 0380).
   */
  sessionVersion(id: string): string | undefined;
  /** 2025-era sessions open now: clients that may hold a stream for `list_changed` (2026-07-28 requests are stateless). */
  openSessions(): number;
  /** Closes every session and stops following the skill server's changes. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: McpServer;
  lastUsed: number;
}

/**
 * 2026-07-28 requests go to the SDK's per-request handler, 2025-era clients to sessions (`Mcp-Session-Id`); a snapshot
 * swap that changes the list reaches both (`notifications/resources/list_changed`).
 */
export function createMcpRequestHandler(
  skills: SkillServer,
  options: McpRequestHandlerOptions = {},
): McpRequestHandler {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? 256;
  const idle = options.sessionIdleMs ?? 30 * 60_000;
  const modern = createMcpHandler(() => skills.createServer(), { legacy: "reject", maxRequestBodySize: maxBody });
  const unsubscribe = skills.onChange((change) => {
    if (change.listChanged) modern.notify.resourcesChanged();
  });
  const sessions = new Map<string, Session>();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions)
        if (now - s.lastUsed > idle)
          void s.transport
            .close()
            .catch(() => undefined)
            .finally(() => sessions.delete(id));
    },
    Math.min(idle, 60_000),
  );
  sweep.unref();

  /** The open session by id, marked as used now; the one place a request is tied to its session. */
  const sessionFor = (id: string): Session | undefined => {
    const session = sessions.get(id);
    if (session !== undefined) session.lastUsed = Date.now();
    return session;
  };

  const legacy = async (request: Request): Promise<Response> => {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = sessionFor(id);
      if (session === undefined)
        return Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found; initialize again" } },
          { status: 404 },
        );
      return session.transport.handleRequest(request);
    }
    if (sessions.size >= maxSessions) {
      return Response.json(
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: `too many open sessions (${maxSessions}); close one or try later` },
        },
        { status: 503, headers: { "retry-after": "5" } },
      );
    }
    const mcp = skills.createServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, mcp, lastUsed: Date.now() });
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
      maxRequestBodySize: maxBody,
      enableJsonResponse: true,
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    return transport.handleRequest(request);
  };

  return {
    fetch: async (request) =>
      (await isLegacyRequest(request, undefined, { maxRequestBodySize: maxBody }))
        ? legacy(request)
        : modern.fetch(request),
    sessionVersion: (id) => sessionFor(id)?.mcp.server.getNegotiatedProtocolVersion(),
    openSessions: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      unsubscribe();
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      await modern.close();
    },
  };
}
