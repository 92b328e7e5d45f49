import { timingSafeEqual, createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { classifyInboundRequest, isJsonContentType } from "@modelcontextprotocol/server";
import { AgentSkillsError } from "@skillport/core";
import { createMcpRequestHandler } from "./handler.js";
import { hostOriginGuard, isLoopback } from "./guards.js";
import type { SkillServer } from "./server.js";

export interface HttpServeOptions {
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** The bearer token every request must carry. Required unless `noAuth`. Never logged. */
  token?: string;
  /** Serve without a token: allowed only on a loopback address. */
  noAuth?: boolean;
  /** Browser origins allowed besides the server's own (`http://host:port`). */
  allowedOrigins?: readonly string[];
  /** Host header values allowed besides the bound address (a name the server is reached by). */
  allowedHosts?: readonly string[];
  /** Largest request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Requests per client address per `rateWindowMs`. Default 10,000 (an agent reading a large catalog file by file). */
  rateLimit?: number;
  /** Default 60,000 ms. */
  rateWindowMs?: number;
  /** Open 2025-era sessions at once. Default 256. */
  maxSessions?: number;
  /** A 2025-era session unused this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Path served. Default `/mcp`. */
  path?: string;
  /**
   * Answer requests of open 2025-era sessions that depend only on the snapshot from its serialised answers, without
   * the SDK's per-request work (decision 0380). Default true; false sends every request through the SDK.
   */
  fastPath?: boolean;
}

export interface HttpServeHandle {
  /** `http://host:port/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Requests answered so far: from the snapshot's serialised answers (`fast`), and by the SDK (`sdk`). */
  readonly answered: { readonly fast: number; readonly sdk: number };
  close(): Promise<void>;
}

/** Refused before MCP sees the request: bad options for serving (`--no-auth` off loopback, no token). */
export class McpServeError extends AgentSkillsError<"MCP_SERVE"> {
  constructor(message: string) {
    super(message, { code: "MCP_SERVE" });
  }
}

function sameToken(given: string, expected: string): boolean {
  // Hash both so the comparison is constant-time whatever the lengths.
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  // A JSON-RPC error body, so MCP clients show the reason; id null (the request was not read).
  const body = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } });
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

/** The members a JSON-RPC request may have; a body with any other goes to the SDK. */
const MESSAGE_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);

/** How the SDK's JSON answer to a request starts: `{"result":…,"jsonrpc":"2.0","id":…}`. */
const RESULT_HEAD = Buffer.from('{"result":', "utf8");

function readBody(req: IncomingMessage, max: number): Promise<Buffer | "too-large"> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > max) return Promise.resolve("too-large");
  // Events rather than an async iterator: most bodies are one small chunk, and this runs for every request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > max) {
        req.off("data", onData);
        req.pause();
        resolve("too-large");
      } else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (response.body === null || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // A whole answer goes out in one write (headers and body together: no small-packet delay).
    const body = Buffer.from(await response.arrayBuffer());
    headers["content-length"] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  res.on("close", () => body.destroy());
  body.pipe(res);
}

/**
 * Serves `skills` over Streamable HTTP: 2026-07-28 requests through the SDK's per-request handler, 2025-era clients
 * in sessions (`Mcp-Session-Id`). In front of both: the Host and Origin checks (DNS rebinding), the bearer token,
 * a per-address rate limit and a body size limit, each refused with its own status and one clear message.
 */
export async function serveHttp(skills: SkillServer, options: HttpServeOptions = {}): Promise<HttpServeHandle> {
  const host = options.host ?? "127.0.0.1";
  if (options.noAuth && !isLoopback(host))
    throw new McpServeError(`--no-auth is allowed only on a loopback address (127.0.0.1, ::1, localhost), not ${host}`);
  if (!options.noAuth && (options.token === undefined || options.token.length < 16)) {
    throw new McpServeError(
      "serving over HTTP needs a bearer token of at least 16 characters (an environment variable or a token file), or --no-auth on a loopback address",
    );
  }
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const rateLimit = options.rateLimit ?? 10_000;
  const rateWindow = options.rateWindowMs ?? 60_000;
  const handler = createMcpRequestHandler(skills, {
    maxBodyBytes: maxBody,
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    ...(options.sessionIdleMs !== undefined && { sessionIdleMs: options.sessionIdleMs }),
  });
  const mcpPath = options.path ?? "/mcp";
  const fastPath = options.fastPath ?? true;
  const answered = { fast: 0, sdk: 0 };
  const eraOfShape = new Map<string, boolean>();
  const hits = new Map<string, { count: number; since: number }>();
  let guard: (host: string, origin: string | undefined) => string | undefined = () => "not listening yet";

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [address, h] of hits) if (now - h.since > rateWindow) hits.delete(address);
  }, 60_000);
  sweep.unref();

  /**
   * Answers a request of an open 2025-era session from the snapshot's serialised answers, skipping the web
   * Request/Response conversions and the SDK's per-request work, when every check the SDK path makes would pass: the
   * session exists (and is marked used), `Accept` and `Content-Type` are what the transport requires, the
   * `MCP-Protocol-Version` header names the session's negotiated version, the SDK's own era classifier says
   * "legacy", and the body is one request whose answer depends only on the snapshot. Anything else (and every error
   * answer) goes to the SDK. The guards in front of both paths have already run. True when answered.
   */
  const answerFast = (req: IncomingMessage, res: ServerResponse, body: Buffer): boolean | Promise<boolean> => {
    const sid = req.headers["mcp-session-id"];
    const version = req.headers["mcp-protocol-version"];
    const accept = req.headers.accept ?? "";
    if (typeof sid !== "string" || typeof version !== "string") return false;
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
    if (!isJsonContentType(req.headers["content-type"])) return false;
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      return false;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
    // One pass over the keys, no copies: this runs for every request.
    for (const key in message) if (!MESSAGE_KEYS.has(key)) return false;
    const { jsonrpc, id, method, params } = message as Record<string, unknown>;
    if (jsonrpc !== "2.0" || typeof method !== "string") return false;
    if (!(typeof id === "string" || Number.isSafeInteger(id))) return false;
    if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) return false;
    const mcpMethod = req.headers["mcp-method"];
    const mcpName = req.headers["mcp-name"];
    // The SDK's era classifier decides; its answer depends on the headers, the method and the shape of the body
    // (which params, the id's type), never on the values of `uri` and `cursor`, so it is asked once per shape.
    let shape = `${method}\n${version}\n${String(mcpMethod)}\n${String(mcpName)}\n${typeof id}\n`;
    if (params === undefined) shape += "-";
    else for (const key in params) shape += `${key}:${typeof (params as Record<string, unknown>)[key]},`;
    let legacyShape = eraOfShape.get(shape);
    if (legacyShape === undefined) {
      legacyShape =
        classifyInboundRequest({
          httpMethod: "POST",
          protocolVersionHeader: version,
          ...(typeof mcpMethod === "string" && { mcpMethodHeader: mcpMethod }),
          ...(typeof mcpName === "string" && { mcpNameHeader: mcpName }),
          body: message,
        }).kind === "legacy";
      if (eraOfShape.size < 1024) eraOfShape.set(shape, legacyShape);
    }
    if (!legacyShape) return false;
    if (handler.sessionVersion(sid) !== version) return false;
    const result = skills.legacyAnswer(method, params as Record<string, unknown> | undefined);
    if (result === undefined) return false;
    if (!(result instanceof Promise)) return send(res, sid, id as string | number, result);
    // A file read from its source first: answered then, or by the SDK when the read was refused.
    return result.then((bytes) =>
      bytes === undefined ? false : res.destroyed || send(res, sid, id as string | number, bytes),
    );
  };

  /** Writes a fast-path answer: the headers the SDK's JSON answer carries, in its order; head, result, tail at once. */
  const send = (res: ServerResponse, sid: string, id: string | number, result: Buffer): true => {
    const tail = Buffer.from(`,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`, "utf8");
    res.writeHead(200, {
      "content-type": "application/json",
      "mcp-session-id": sid,
      "content-length": String(RESULT_HEAD.byteLength + result.byteLength + tail.byteLength),
    });
    res.cork();
    res.write(RESULT_HEAD);
    res.write(result);
    res.end(tail);
    answered.fast++;
    return true;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The endpoint's own path needs no parsing (the common case); anything else is parsed and normalised first.
    const url = req.url === mcpPath ? undefined : new URL(req.url ?? "/", "http://placeholder");
    if (url !== undefined && url.pathname !== mcpPath)
      return plain(res, 404, `not found; the MCP endpoint is ${mcpPath}`);
    const hostHeader = (req.headers.host ?? "").toLowerCase();
    const refused = guard(hostHeader, req.headers.origin);
    if (refused !== undefined) return plain(res, 403, refused);
    const address = req.socket.remoteAddress ?? "unknown";
    const now = Date.now();
    const h = hits.get(address);
    if (h === undefined || now - h.since > rateWindow) hits.set(address, { count: 1, since: now });
    else if (++h.count > rateLimit) {
      return plain(res, 429, `rate limit: more than ${rateLimit} requests in ${rateWindow / 1000} s`, {
        "retry-after": String(Math.ceil((h.since + rateWindow - now) / 1000)),
      });
    }
    if (!options.noAuth) {
      const auth = req.headers.authorization ?? "";
      const match = /^Bearer\s+(.+)$/i.exec(auth);
      if (match === null || !sameToken((match[1] ?? "").trim(), options.token ?? "")) {
        return plain(
          res,
          401,
          match === null ? "missing bearer token (Authorization: Bearer …)" : "wrong bearer token",
          { "www-authenticate": 'Bearer realm="skillport"' },
        );
      }
    }
    let body: Buffer | undefined;
    if (req.method === "POST") {
      const read = await readBody(req, maxBody);
      if (read === "too-large")
        return plain(res, 413, `request body over the limit of ${maxBody} bytes`, { connection: "close" });
      body = read;
      if (fastPath) {
        const fast = answerFast(req, res, body);
        if (fast === true || (fast !== false && (await fast))) return;
      }
    }
    answered.sdk++;
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
    }
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const request = new Request(`http://${hostHeader}${mcpPath}${url?.search ?? ""}`, {
      method: req.method ?? "GET",
      headers,
      ...(body !== undefined && { body }),
      signal: controller.signal,
    });
    const response = await handler.fetch(request);
    await writeResponse(res, response);
  };

  const server: Server = createServer({ noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        plain(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  guard = hostOriginGuard({
    host,
    port,
    ...(options.allowedHosts !== undefined && { allowedHosts: options.allowedHosts }),
    ...(options.allowedOrigins !== undefined && { allowedOrigins: options.allowedOrigins }),
  });
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${mcpPath}`,
    port,
    answered,
    close: async () => {
      clearInterval(sweep);
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
