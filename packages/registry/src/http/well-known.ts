import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Context } from "hono";
import { z } from "zod";
import { sha256Hex } from "../blobs.js";
import { skillKey } from "../catalog.js";
import { SPEC_NAME } from "../package.js";
import type { CatalogSnapshot, IndexEntrySource } from "../catalog.js";
import { acceptsGzip, etagMatches, hot } from "./hot.js";
import { route, type RouteModule } from "./route.js";
import { DiscoveryIndex } from "./schemas.js";

export const DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** The spec's description limit: a longer one would make a strict client refuse the entry (or the index). */
const MAX_DESCRIPTION = 1024;
const gzipAsync = promisify(gzip);

/**
 * The Agent Skills discovery index v0.2.0. `/.well-known/agent-skills/index.json` lists the unscoped skills and every
 * scoped skill whose bare name no other visible skill has; `/@team/.well-known/agent-skills/index.json` lists one
 * namespace. Entries are `archive`s (the `.skill` download) with the archive's sha256. Only names the spec allows are
 * listed, descriptions must be 1–1,024 characters, and a name is listed once: one entry a client finds invalid can make
 * it reject the whole index (decision 0343). `/api/v1/skills/<name>/versions/<v>/.well-known/agent-skills/index.json`
 * lists that one version, so `<registry>/api/v1/skills/<name>/versions/<v>` is a source address of it.
 */
export const wellKnownModule: RouteModule = {
  name: "well-known",
  routes: [
    route({
      method: "get",
      path: "/.well-known/agent-skills/index.json",
      summary: "The discovery index of the unscoped skills (and scoped names no other skill has)",
      tag: "discovery",
      scope: "read",
      responses: { 200: { description: "discovery index v0.2.0", schema: DiscoveryIndex } },
      handler: async ({ c, store, origin }) => {
        const snap = await store.snapshot();
        const index = snap.derived(`index\n${origin}`, () =>
          renderIndex(rootEntries(snap.indexEntries(undefined)), origin),
        );
        return indexResponse(index, c, snap);
      },
    }),
    route({
      method: "get",
      path: "/{scope}/.well-known/agent-skills/index.json",
      summary: "The discovery index of one namespace (`/@team/…`)",
      tag: "discovery",
      scope: "read",
      params: z.object({ scope: z.string().regex(/^@[a-z0-9-]+$/) }),
      responses: { 200: { description: "discovery index v0.2.0", schema: DiscoveryIndex } },
      handler: async ({ c, store, origin, params }) => {
        const snap = await store.snapshot();
        const namespace = params.scope.slice(1);
        const index = snap.derived(`index\n${origin}\n${namespace}`, () =>
          renderIndex(snap.indexEntries(namespace), origin),
        );
        return indexResponse(index, c, snap);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}/.well-known/agent-skills/index.json",
      summary: "A discovery index of exactly one version: a source address for that version (`audit --diff`, `add`)",
      tag: "discovery",
      scope: "read",
      params: z.object({ name: z.string().max(64), version: z.string().max(64) }),
      responses: { 200: { description: "discovery index v0.2.0 with one entry", schema: DiscoveryIndex } },
      handler: async ({ c, store, origin, namespace, params, actor }) => {
        // The same visibility as the version's own page and download: a held version is not found for non-admins.
        const v = await store.getVersion(namespace, params.name, params.version, actor);
        const entry = {
          name: v.name,
          skill: v.skill,
          description: v.description,
          version: v.version,
          blob: v.digest.slice("sha256:".length),
          flat: v.flatDigest === null ? null : v.flatDigest.slice("sha256:".length),
        };
        return indexResponse(renderIndex([entry], origin), c);
      },
    }),
  ],
};

/** Unscoped names win; a bare name two scoped skills share is left out of the root index (each namespace lists it). */
export function rootEntries(entries: readonly IndexEntrySource[]): IndexEntrySource[] {
  const count = new Map<string, number>();
  for (const e of entries) if (e.skill !== e.name) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  const unscoped = new Set(entries.filter((e) => e.skill === e.name).map((e) => e.name));
  return entries.filter((e) => (e.skill === e.name ? true : !unscoped.has(e.name) && count.get(e.name) === 1));
}

interface RenderedIndex {
  body: Uint8Array;
  etag: string;
  /** The same bytes gzipped, made on first request for them. */
  gzip?: Promise<{ body: Uint8Array; etag: string }>;
}

/**
 * The index's bytes and strong ETag (their sha256). The root and namespace indexes are rendered once per catalog
 * snapshot and origin, so they change exactly when the database's change counter moves (decision 0410).
 */
function renderIndex(entries: readonly IndexEntrySource[], origin: string): RenderedIndex {
  const skills = entries
    .filter((e) => SPEC_NAME.test(e.name) && e.description.trim() !== "" && e.description.length <= MAX_DESCRIPTION)
    .map((e) => ({
      name: e.name,
      type: "archive" as const,
      description: e.description,
      // The flat archive (SKILL.md at its top, as the discovery spec's clients expect); the .skill download for a
      // version published before its digest was recorded.
      url: `${origin}/api/v1/skills/${skillPath(e)}/versions/${e.version}/${e.flat === null ? "download" : "archive"}`,
      digest: `sha256:${e.flat ?? e.blob}`,
    }));
  const body = new TextEncoder().encode(JSON.stringify({ $schema: DISCOVERY_SCHEMA, skills }));
  return { body, etag: `"${sha256Hex(body)}"` };
}

/**
 * The rendered index, or 304 when the client has it (the ETag), revalidated on every use (`no-cache`). An index
 * rendered from the catalog snapshot `snap` (the root and namespace ones) goes gzipped to a client that accepts gzip —
 * compressed once, kept with the rendering, its own strong ETag — and is the same for every anonymous request until the
 * snapshot changes (decision 0417).
 */
async function indexResponse(index: RenderedIndex, c: Context, snap?: CatalogSnapshot): Promise<Response> {
  const sent = snap !== undefined && acceptsGzip(c.req.header("accept-encoding")) ? await gzipped(index) : undefined;
  const body = sent?.body ?? index.body;
  const etag = sent?.etag ?? index.etag;
  // Both forms of a snapshot's index name the header they are chosen by, so caches keep them apart.
  const headers = {
    "cache-control": "no-cache",
    etag,
    ...(snap !== undefined && { vary: "accept-encoding" }),
  };
  const response = etagMatches(c.req.header("if-none-match"), etag, false)
    ? new Response(null, { status: 304, headers })
    : new Response(body, {
        headers: { ...headers, "content-type": "application/json", ...(sent && { "content-encoding": "gzip" }) },
      });
  return snap === undefined ? response : hot(response, { body, etag, star: false, until: snap });
}

/** The index gzipped (level 6, on the thread pool), once per rendering; its ETag is the sha256 of those bytes. */
function gzipped(index: RenderedIndex): Promise<{ body: Uint8Array; etag: string }> {
  index.gzip ??= gzipAsync(index.body, { level: 6 }).then((b) => {
    const body = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return { body, etag: `"${sha256Hex(body)}"` };
  });
  return index.gzip;
}

function skillPath(e: IndexEntrySource): string {
  return e.skill === skillKey("", e.name) ? e.name : e.skill;
}
