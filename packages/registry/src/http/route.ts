import { z } from "zod";
import type { Context } from "hono";
import type { RegistryStore } from "../store.js";
import type { Actor, Scope } from "../types.js";

export type Method = "get" | "post" | "put" | "delete";

export interface ResponseDoc {
  description: string;
  /** JSON body schema; absent with `contentType` for bytes. */
  schema?: z.ZodType;
  contentType?: string;
}

/** What a handler gets: the request, parsed and checked against the route's schemas. */
export interface RouteInput<P, Q, B> {
  c: Context;
  params: P;
  query: Q;
  body: B;
  actor: Actor | undefined;
  store: RegistryStore;
  /** The skill's namespace from a `/skills/@ns/name` path ("" for an unscoped skill). */
  namespace: string;
  /** Whether reads need a token (the app's `readAccess`); routes that sign in by session check it themselves. */
  readAccess: "public" | "token";
  /** This server's public origin (`http://host:port`), for absolute URLs in answers. */
  origin: string;
  /** The names of the route modules this app mounts (the web UI shows the MCP line only when `mcp` is one). */
  mounted: ReadonlySet<string>;
}

/**
 * One route: method, path in OpenAPI form (`/api/v1/skills/{name}`), schemas for params, query and body (zod), the
 * responses, and the handler. Routes are grouped in modules; the app mounts every module and the OpenAPI document is
 * generated from the same definitions, so the two cannot drift. A path holding `/skills/{name}` is also served (and
 * documented) as `/skills/{scope}/{name}` for `@team/name`.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  /** The scope the route needs (documentation; the store enforces it). "read" means: when reads need a token. */
  scope?: Scope;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** A JSON body, or multipart form fields (the file part is described by `multipartFile`). */
  body?: z.ZodType<B>;
  multipartFile?: string;
  /**
   * A JSON body that may also come as multipart/form-data: the field `payload` holds the JSON (checked against
   * `body`), and the handler reads the file parts named `files` (ClawHub's publish).
   */
  multipartPayload?: { payload: string; files: string };
  /** A body of raw bytes (documented with this content type); the handler reads it. */
  rawBody?: string;
  /** Counts against the publish rate limit (multipart routes always do). */
  publish?: boolean;
  /** Served without a token even when reads need one: it shows no skill (a discovery file that names the API). */
  anonymous?: boolean;
  /** Bytes this route accepts in its body. Default: the app's JSON limit. */
  maxBodyBytes?: (store: RegistryStore) => number;
  responses: Record<number, ResponseDoc>;
  /** False: served but left out of the OpenAPI document (the web UI's pages). Default true. */
  document?: boolean;
  /** True: the route signs in by the web session cookie and enforces `readAccess` itself (the web UI). */
  sessionAuth?: boolean;
  handler: (input: RouteInput<P, Q, B>) => Promise<Response> | Response;
}

/** A group of routes (the REST API, the well-known index, the web UI, ClawHub's API; later /mcp). */
export interface RouteModule {
  name: string;
  routes: ReadonlyArray<RouteDef<unknown, unknown, unknown>>;
  /**
   * How the module's errors are answered: `json` (default) as `{error: {code, message, details?}}`; `text` as the
   * message alone in `text/plain` (ClawHub's clients print an error body as it is).
   */
  errors?: "json" | "text";
  /** A path prefix the module owns: a request for an unknown route under it is answered in the module's error form. */
  prefix?: string;
  /** Said after "no route METHOD PATH" for an unknown route under `prefix` (what the module does serve). */
  missing?: string;
}

/** Identity helper that keeps a route's parameter types tied to its schemas. */
export function route<P, Q, B>(def: RouteDef<P, Q, B>): RouteDef<unknown, unknown, unknown> {
  return def as unknown as RouteDef<unknown, unknown, unknown>;
}

export const SCOPE_PARAM = "scope";
const SKILL_SEGMENT = "/skills/{name}";

/** The paths a route is served at: a skill path twice (unscoped and `@scope/`). */
export function expandPath(path: string): string[] {
  return path.includes(SKILL_SEGMENT) ? [path, path.replace(SKILL_SEGMENT, `/skills/{${SCOPE_PARAM}}/{name}`)] : [path];
}

/** `{x}` → Hono's `:x`, with patterns for the scope (`@name`) and a file path (`{path}`: the rest, slashes included). */
export function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === SCOPE_PARAM ? `:${name}{@[a-z0-9-]+}` : name === "path" ? `:${name}{.+}` : `:${name}`,
  );
}

export const ErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
