import type { IncomingMessage } from "node:http";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { AgentSkillsError } from "@skillport/core";
import { RegistryError } from "../errors.js";
import type { RegistryStore } from "../store.js";
import type { Actor } from "../types.js";
import { accountsModule, skillsModule } from "./api.js";
import { clawhubModule } from "./clawhub.js";
import { HotAnswers } from "./hot.js";
import { anonymousKey, WindowCounter } from "./rate-limit.js";
import { expandPath, honoPath, SCOPE_PARAM, type RouteDef, type RouteModule } from "./route.js";
import { openApiDocument } from "./openapi.js";
import { packagesModule } from "./packages.js";
import { wellKnownModule } from "./well-known.js";
import { webModule } from "../web/module.js";

export interface RateLimit {
  /** Window length in ms. Default 60,000. */
  windowMs: number;
  /** Requests per window per token (or per client address without one). Default 1,200. */
  requests: number;
  /** Publishes per window per token. Default 60. */
  publishes: number;
  /** PostgreSQL: how long this process's hits wait before they are shared with the others (decision 0419). Default 250. */
  syncMs: number;
}

export interface RegistryAppOptions {
  /** "public" (default): anyone may read; "token": every read needs a token with the read scope. */
  readAccess?: "public" | "token";
  rateLimit?: Partial<RateLimit>;
  /** Largest JSON body, in bytes. Default 64 KiB. */
  maxJsonBytes?: number;
  /** The origin absolute URLs use (`https://skills.example.com`); default: the request's own. */
  publicUrl?: string;
  /** The web UI (browse, skill pages, publish, tokens, held versions) at `/` and `/ui/…`. Default true. */
  webUi?: boolean;
  /** ClawHub's registry API at `/clawhub/api/v1/…` and its discovery file `/.well-known/clawhub.json`. Default true. */
  clawhub?: boolean;
  /** Route modules after the built-in ones (another client's API, /mcp). */
  modules?: readonly RouteModule[];
  /**
   * Replay answers the app gave anonymous GETs (files and archives by exact version, the well-known index while the
   * catalog has not changed) on Node's request and response, before the app (decision 0417). Used by `serveRegistry`.
   * Default true; false sends every request through the app.
   */
  fastPath?: boolean;
}

/** The app and, in front of it, its hot path (`undefined` with `fastPath: false`). */
export interface RegistryHttp {
  app: Hono;
  hot: HotAnswers | undefined;
  /** Sends this process's unsent hits to the shared counts now (PostgreSQL; nothing to do otherwise). */
  syncRateLimits(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT: Readonly<RateLimit> = Object.freeze({
  windowMs: 60_000,
  requests: 1200,
  publishes: 60,
  syncMs: 250,
});

export const BUILT_IN_MODULES: readonly RouteModule[] = [
  skillsModule,
  accountsModule,
  packagesModule,
  wellKnownModule,
  clawhubModule,
];

/**
 * The registry as a Hono app: every route module mounted, each route's params, query and body checked against its
 * zod schema, errors answered as `{error: {code, message, details?}}` with the status their code implies, never a
 * stack. `GET /openapi.json` is generated from the same route definitions.
 */
export function createRegistryApp(store: RegistryStore, options: RegistryAppOptions = {}): Hono {
  return createRegistryHttp(store, options).app;
}

/** `createRegistryApp` with the hot path that answers in front of it, sharing its rate limit (decision 0417). */
export function createRegistryHttp(store: RegistryStore, options: RegistryAppOptions = {}): RegistryHttp {
  const app = new Hono();
  const modules = [
    ...BUILT_IN_MODULES.filter((m) => m !== clawhubModule || options.clawhub !== false),
    ...(options.webUi === false ? [] : [webModule]),
    ...(options.modules ?? []),
  ];
  // Requests routed to a module that answers errors as text (ClawHub's API). Keyed by the request's context: the body
  // limit may replace the raw Request.
  const textErrors = new WeakSet<Context>();
  const limits = { ...DEFAULT_RATE_LIMIT, ...options.rateLimit };
  // On PostgreSQL the processes of one registry share their counts (decision 0419); SQLite serves one process.
  const limiter = new WindowCounter(
    limits.windowMs,
    store.database.dialect === "postgres"
      ? (window, hits) => store.countHits(limits.windowMs, window, hits)
      : undefined,
    limits.syncMs,
  );
  const maxJson = options.maxJsonBytes ?? 64 * 1024;
  const mounted: ReadonlySet<string> = new Set(modules.map((m) => m.name));
  const hot = options.fastPath === false ? undefined : new HotAnswers(store, limiter, limits.requests);
  const readsPublic = options.readAccess !== "token";

  app.onError((error, c) => errorResponse(c, error, textErrors.has(c)));
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const owner = modules.find((m) => m.prefix !== undefined && path.startsWith(m.prefix));
    const message = `no route ${c.req.method} ${path}`;
    return owner?.errors === "text"
      ? c.text(owner.missing === undefined ? message : `${message}: ${owner.missing}`, 404)
      : c.json({ error: { code: "REGISTRY_NOT_FOUND", message } }, 404);
  });
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("x-content-type-options", "nosniff");
    c.res.headers.set("referrer-policy", "no-referrer");
    hot?.record(incomingOf(c), c.res, readsPublic);
  });

  for (const module of modules) {
    for (const def of module.routes) {
      const limit = def.maxBodyBytes?.(store) ?? maxJson;
      const limitBody = bodyLimit({
        maxSize: limit,
        onError: () => {
          throw new RegistryError("REGISTRY_TOO_LARGE", `the request body is over ${limit} bytes`);
        },
      });
      for (const path of expandPath(def.path)) {
        app.on(
          def.method.toUpperCase(),
          honoPath(path),
          async (c, next) => {
            if (module.errors === "text") textErrors.add(c);
            await next();
          },
          // A GET's body is never read; asking for it would make @hono/node-server build a whole web Request.
          (c, next) => (def.method === "get" ? next() : limitBody(c, next)),
          async (c) => {
            const actor = await authenticate(c, store);
            const key = actor ? `t:${actor.tokenId}` : anonymousKey(incomingOf(c)?.socket.remoteAddress);
            const publish = def.method === "post" && (def.multipartFile !== undefined || def.publish === true);
            const retry =
              limiter.hit(key, limits.requests) ?? (publish ? limiter.hit(`p:${key}`, limits.publishes) : undefined);
            if (retry !== undefined) {
              c.header("retry-after", String(Math.ceil(retry / 1000)));
              throw new RegistryError(
                "REGISTRY_RATE_LIMITED",
                `too many requests; try again in ${Math.ceil(retry / 1000)} s`,
              );
            }
            if (def.method === "get" && options.readAccess === "token" && !actor && !def.sessionAuth && !def.anonymous)
              throw new RegistryError(
                "REGISTRY_UNAUTHORIZED",
                "this registry needs a token to read (Authorization: Bearer <token>)",
              );
            const raw = c.req.param() as Record<string, string>;
            const scope = raw[SCOPE_PARAM];
            const { [SCOPE_PARAM]: _scope, ...rest } = raw;
            void _scope;
            const params = parse(def.params, path.startsWith(`/{${SCOPE_PARAM}}`) ? raw : rest, "path");
            const query = parse(def.query, c.req.query(), "query");
            const body = await readBody(c, def);
            return def.handler({
              c,
              params,
              query,
              body,
              actor,
              store,
              readAccess: options.readAccess ?? "public",
              namespace: scope !== undefined && !path.startsWith(`/{${SCOPE_PARAM}}`) ? scope.slice(1) : "",
              origin: options.publicUrl?.replace(/\/+$/, "") ?? originOf(c.req.url),
              mounted,
            });
          },
        );
      }
    }
  }
  const document = openApiDocument(modules);
  app.get("/openapi.json", (c) => c.json(document));
  app.get("/healthz", (c) => c.json({ ok: true }));
  return { app, hot, syncRateLimits: () => limiter.sync() };
}

async function readBody(c: Context, def: RouteDef<unknown, unknown, unknown>): Promise<unknown> {
  if (!def.body) return undefined;
  if (def.multipartPayload !== undefined && (c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
    const payload = (await c.req.formData()).get(def.multipartPayload.payload);
    let data: unknown;
    try {
      data = typeof payload === "string" ? JSON.parse(payload) : undefined;
    } catch {
      data = undefined;
    }
    if (data === undefined)
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `the form field \`${def.multipartPayload.payload}\` must hold the JSON body`,
      );
    return parse(def.body, data, def.multipartPayload.payload);
  }
  if (def.multipartFile !== undefined) {
    const type = c.req.header("content-type") ?? "";
    if (!type.startsWith("multipart/form-data"))
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        "publish takes multipart/form-data with the package in the field `archive`",
      );
    const form = await c.req.formData();
    const fields: Record<string, string> = {};
    for (const [k, v] of form) if (typeof v === "string") fields[k] = v;
    return parse(def.body, fields, "form");
  }
  let data: unknown;
  try {
    data = await c.req.json();
  } catch {
    throw new RegistryError("REGISTRY_BAD_REQUEST", "the request body is not JSON");
  }
  return parse(def.body, data, "body");
}

function parse<T>(schema: z.ZodType<T> | undefined, data: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const at = issue && issue.path.length > 0 ? `${where}.${issue.path.join(".")}` : where;
    throw new RegistryError("REGISTRY_BAD_REQUEST", `${at}: ${issue?.message ?? "invalid"}`, {
      details: result.error.issues.map((i) => ({ path: i.path, message: i.message })),
    });
  }
  return result.data;
}

async function authenticate(c: Context, store: RegistryStore): Promise<Actor | undefined> {
  const header = c.req.header("authorization");
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  // A token that is wrong is an error, never a quiet downgrade to anonymous.
  const actor = match?.[1] === undefined ? undefined : await store.authenticate(match[1]);
  if (!actor)
    throw new RegistryError("REGISTRY_UNAUTHORIZED", "the token is not valid (unknown, revoked or malformed)");
  return actor;
}

/** `scheme://host[:port]` of an absolute URL (what `new URL(url).origin` gives, without parsing all of it). */
function originOf(url: string): string {
  const path = url.indexOf("/", url.indexOf("//") + 2);
  return path === -1 ? url : url.slice(0, path);
}

/** Node's request under the app (served by @hono/node-server); undefined for `app.request` in tests. */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

function errorResponse(c: Context, error: unknown, text: boolean): Response {
  if (text) {
    // ClawHub's clients print an error body as it is: the one-line message, no JSON around it.
    if (error instanceof RegistryError) return c.text(error.message, error.status as 400);
    if (error instanceof AgentSkillsError) return c.text(error.message, 400);
    return c.text("internal error", 500);
  }
  if (error instanceof RegistryError) {
    return c.json(
      {
        error: {
          code: error.code,
          message: error.message,
          ...(error.details !== undefined && { details: error.details }),
        },
      },
      error.status as 400,
    );
  }
  if (error instanceof AgentSkillsError) return c.json({ error: { code: error.code, message: error.message } }, 400);
  // Anything else is ours: say so without a stack or a path.
  return c.json({ error: { code: "REGISTRY_INTERNAL", message: "internal error" } }, 500);
}
