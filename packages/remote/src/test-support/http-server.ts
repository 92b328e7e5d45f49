// A real node HTTP server on 127.0.0.1 serving a programmable set of paths, for the HTTP source's tests.
import { createHash } from "node:crypto";
import http from "node:http";

export interface Route {
  body: string | Uint8Array;
  etag?: string;
  headers?: Record<string, string>;
  /** Send the body one byte every this many ms (a trickling server); the connection stays open until it is done. */
  trickleMs?: number;
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface TestHttpServer {
  url: string;
  origin: string;
  routes: Map<string, Route>;
  /** Statuses answered before the route, in order, per path (e.g. [500, 503]). */
  failures: Map<string, { status: number; headers?: Record<string, string> }[]>;
  /** Paths answered with a redirect to the given absolute URL. */
  redirects: Map<string, string>;
  requests: RecordedRequest[];
  /** Decides each request first: a status to answer (401, 403, …), or undefined to go on. */
  guard: ((headers: http.IncomingHttpHeaders) => number | undefined) | undefined;
  stop(): Promise<void>;
}

export async function startHttpServer(): Promise<TestHttpServer> {
  const routes = new Map<string, Route>();
  const failures = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  const redirects = new Map<string, string>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    requests.push({ path: pathname, headers: req.headers });
    const denied = result.guard?.(req.headers);
    if (denied !== undefined) {
      res.writeHead(denied);
      return void res.end("refused\n");
    }
    const failure = failures.get(pathname)?.shift();
    if (failure) {
      res.writeHead(failure.status, failure.headers);
      return void res.end("failure\n");
    }
    const redirect = redirects.get(pathname);
    if (redirect !== undefined) {
      res.writeHead(302, { location: redirect });
      return void res.end();
    }
    const route = routes.get(pathname);
    if (route === undefined) {
      res.writeHead(404);
      return void res.end("not found\n");
    }
    if (route.etag !== undefined && req.headers["if-none-match"] === route.etag) {
      res.writeHead(304, { etag: route.etag });
      return void res.end();
    }
    res.writeHead(200, { ...(route.etag !== undefined && { etag: route.etag }), ...route.headers });
    if (route.trickleMs === undefined) return void res.end(route.body);
    const bytes = Buffer.from(route.body);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= bytes.byteLength || res.destroyed) {
        clearInterval(timer);
        timers.delete(timer);
        return void res.end();
      }
      res.write(bytes.subarray(sent, ++sent));
    }, route.trickleMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const result: TestHttpServer = {
    url: `http://127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    routes,
    failures,
    redirects,
    requests,
    guard: undefined,
    stop: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return result;
}

export function sha256(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export interface PublishedSkill {
  name: string;
  type: "skill-md" | "archive";
  /** Path served, relative to the index folder. */
  file: string;
  bytes: string | Uint8Array;
  /** A digest to advertise instead of the real one. */
  digest?: string;
}

/** Serves `skills` and an index listing them at `/.well-known/agent-skills/index.json`, with an etag from its content. */
export function publish(
  server: TestHttpServer,
  skills: readonly PublishedSkill[],
  extra: Record<string, unknown>[] = [],
): string {
  const base = "/.well-known/agent-skills/";
  for (const s of skills) server.routes.set(`${base}${s.file}`, { body: s.bytes });
  const index = JSON.stringify({
    $schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
    skills: [
      ...skills.map((s) => ({
        name: s.name,
        type: s.type,
        description: `The ${s.name} skill.`,
        url: s.file,
        digest: `sha256:${s.digest ?? sha256(s.bytes)}`,
      })),
      ...extra,
    ],
  });
  server.routes.set(`${base}index.json`, { body: index, etag: `"${sha256(index).slice(0, 16)}"` });
  return `${server.url}${base}index.json`;
}
