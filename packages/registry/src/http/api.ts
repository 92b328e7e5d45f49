import type { Context } from "hono";
import { z } from "zod";
import { sha256Hex } from "../blobs.js";
import { RegistryError } from "../errors.js";
import { flatArchive } from "../package.js";
import { requireScope } from "../store.js";
import { etagMatches, hot } from "./hot.js";
import { route, type RouteModule } from "./route.js";
import {
  HeldList,
  LogList,
  Namespace,
  PublishAnswer,
  Reason,
  SkillSummary,
  SkillView,
  TokenAnswer,
  VersionView,
} from "./schemas.js";

const SkillParams = z.object({ name: z.string().max(64) });
const VersionParams = SkillParams.extend({
  version: z.string().max(64).describe("a version, or a tag such as `latest`"),
});
const ok = (description: string, schema: z.ZodType) => ({ 200: { description, schema } });
// A string body (not Response.json's stream) lets @hono/node-server write the answer in one call.
const json = (data: unknown, status = 200) =>
  new Response(JSON.stringify(data), { status, headers: { "content-type": "application/json" } });

/** Publish, list/search, versions, files, download, tags, yank/undelete, holds. */
export const skillsModule: RouteModule = {
  name: "skills",
  routes: [
    route({
      method: "get",
      path: "/api/v1/skills",
      summary: "List or search skills (each at its current version)",
      tag: "skills",
      scope: "read",
      query: z.object({
        q: z.string().max(500).optional().describe("search text: core's ranking (BM25F, calibrated confidence)"),
        namespace: z.string().max(64).optional().describe("only this namespace (without @); empty for unscoped skills"),
        tag: z.string().max(64).optional().describe("only skills with this tag (shown at the tagged version)"),
        verdict: z.enum(["pass", "review", "warn", "malicious"]).optional(),
        limit: z.coerce.number().int().min(1).max(1000).optional(),
        offset: z.coerce.number().int().min(0).optional(),
      }),
      responses: ok("matching skills", z.object({ total: z.number().int(), skills: z.array(SkillSummary) })),
      handler: async ({ store, query }) => json(await store.listSkills(query)),
    }),
    route({
      method: "post",
      path: "/api/v1/skills",
      summary: "Publish a version (multipart: the zip, tar or .skill in `archive`)",
      tag: "skills",
      scope: "publish",
      multipartFile: "archive",
      body: z.object({
        namespace: z.string().max(64).optional().describe("publish as @namespace/name (you must be a member)"),
        version: z
          .string()
          .max(64)
          .optional()
          .describe("semantic version; default: the frontmatter's, else the next patch"),
        tags: z.string().max(1000).optional().describe("comma-separated tags to point at this version; default latest"),
        changelog: z.string().max(100_000).optional(),
      }),
      maxBodyBytes: (store) => store.limits.maxUploadBytes + 256 * 1024,
      responses: {
        201: { description: "published", schema: PublishAnswer },
        200: { description: "these files were already published: nothing changed", schema: PublishAnswer },
      },
      handler: async ({ c, store, actor, body }) => {
        const form = await c.req.formData();
        const file = form.get("archive");
        if (!(file instanceof Blob))
          throw new RegistryError(
            "REGISTRY_BAD_REQUEST",
            "the multipart field `archive` (the package file) is missing",
          );
        const bytes = new Uint8Array(await file.arrayBuffer());
        const tags =
          body.tags === undefined
            ? undefined
            : body.tags
                .split(",")
                .map((t) => t.trim())
                .filter((t) => t !== "");
        const result = await store.publish(
          bytes,
          {
            namespace: body.namespace || undefined,
            version: body.version || undefined,
            tags,
            changelog: body.changelog,
          },
          actor,
        );
        return json(result, result.created ? 201 : 200);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}",
      summary: "A skill: its current version, tags and every version with its changelog",
      tag: "skills",
      scope: "read",
      params: SkillParams,
      responses: ok("the skill", SkillView),
      handler: async ({ store, namespace, params, actor }) => json(await store.getSkill(namespace, params.name, actor)),
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}",
      summary: "One version: metadata, files with digests, audit",
      tag: "skills",
      scope: "read",
      params: VersionParams,
      responses: ok("the version", VersionView),
      handler: async ({ store, namespace, params, actor }) =>
        json(await store.getVersion(namespace, params.name, params.version, actor)),
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}/download",
      summary: "The version as a .skill archive (a deterministic zip)",
      tag: "skills",
      scope: "read",
      params: VersionParams,
      responses: {
        200: { description: "the archive; ETag and Digest carry its sha256", contentType: "application/zip" },
      },
      handler: async ({ c, store, namespace, params, actor, readAccess }) => {
        const d = await store.download(namespace, params.name, params.version, actor);
        const cache = { exact: d.version === params.version, shared: !actor && readAccess === "public" };
        return immutableBytes(c, d.bytes, `"sha256-${d.digest}"`, cache, {
          "content-type": "application/zip",
          "content-disposition": `attachment; filename="${d.filename}"`,
          "x-skill-version": d.version,
          "x-content-digest": `sha256:${d.digest}`,
        });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}/archive",
      summary: "The version's files as a zip with SKILL.md at its top, stored (what the well-known index lists)",
      tag: "skills",
      scope: "read",
      params: VersionParams,
      responses: {
        200: { description: "the zip; its sha256 is the version's flatDigest", contentType: "application/zip" },
      },
      handler: async ({ c, store, namespace, params, actor, readAccess }) => {
        const { version, files } = await store.readFiles(namespace, params.name, params.version, actor);
        // Deterministic from the version's files, so it is as immutable as the `.skill` download: the same ETag,
        // 304 and caching rules, and the hot path replays it instead of zipping it again per request.
        const bytes = await flatArchive(files);
        const digest = sha256Hex(bytes);
        const cache = { exact: version === params.version, shared: !actor && readAccess === "public" };
        return immutableBytes(c, bytes, `"sha256-${digest}"`, cache, {
          "content-type": "application/zip",
          "content-disposition": `attachment; filename="${params.name}-${version}.zip"`,
          "x-skill-version": version,
          "x-content-digest": `sha256:${digest}`,
        });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}/files",
      summary: "The files of a version with sizes and sha256 digests",
      tag: "skills",
      scope: "read",
      params: VersionParams,
      responses: ok("files", z.object({ version: z.string(), files: VersionView.shape.files })),
      handler: async ({ store, namespace, params, actor }) => {
        const v = await store.getVersion(namespace, params.name, params.version, actor);
        return json({ version: v.version, files: v.files });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/skills/{name}/versions/{version}/files/{path}",
      summary: "One file's bytes (served inert: text/plain or octet-stream, nosniff, a sandboxing CSP)",
      tag: "skills",
      scope: "read",
      params: VersionParams.extend({ path: z.string().max(4096) }),
      responses: { 200: { description: "the file", contentType: "application/octet-stream" } },
      handler: async ({ c, store, namespace, params, actor, readAccess }) => {
        const f = await store.readFile(namespace, params.name, params.version, params.path, actor);
        const cache = { exact: f.version === params.version, shared: !actor && readAccess === "public" };
        return immutableBytes(c, f.bytes, `"sha256-${f.entry.sha256}"`, cache, {
          "content-type": f.text ? "text/plain; charset=utf-8" : "application/octet-stream",
          "content-security-policy": "default-src 'none'; sandbox",
          "x-content-sha256": f.entry.sha256,
        });
      },
    }),
    route({
      method: "put",
      path: "/api/v1/skills/{name}/tags/{tag}",
      summary: "Point a tag at a version",
      tag: "skills",
      scope: "publish",
      params: SkillParams.extend({ tag: z.string().max(64) }),
      body: z.object({ version: z.string().max(64) }),
      responses: ok("the skill", SkillView),
      handler: async ({ store, namespace, params, body, actor }) => {
        await store.setTag(namespace, params.name, params.tag, body.version, actor);
        return json(await store.getSkill(namespace, params.name, actor));
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/skills/{name}/tags/{tag}",
      summary: "Remove a tag",
      tag: "skills",
      scope: "publish",
      params: SkillParams.extend({ tag: z.string().max(64) }),
      responses: ok("the skill", SkillView),
      handler: async ({ store, namespace, params, actor }) => {
        await store.setTag(namespace, params.name, params.tag, null, actor);
        return json(await store.getSkill(namespace, params.name, actor));
      },
    }),
    ...(["yank", "undelete"] as const).map((action) =>
      route({
        method: "post",
        path: `/api/v1/skills/{name}/versions/{version}/${action}`,
        summary:
          action === "yank"
            ? "Yank a version: gone from listings, tags and the index; its exact number still downloads"
            : "Undo a yank",
        tag: "skills",
        scope: "publish",
        params: VersionParams,
        body: Reason,
        responses: ok("the version", VersionView),
        handler: async ({ store, namespace, params, body, actor }) =>
          json(await store.setYanked(namespace, params.name, params.version, action === "yank", body.reason, actor)),
      }),
    ),
    route({
      method: "post",
      path: "/api/v1/skills/{name}/versions/{version}/decision",
      summary: "An admin's decision on a held version",
      tag: "admin",
      scope: "admin",
      params: VersionParams,
      body: Reason.extend({ decision: z.enum(["release", "reject"]) }),
      responses: ok("the version", VersionView),
      handler: async ({ store, namespace, params, body, actor }) =>
        json(await store.decide(namespace, params.name, params.version, body.decision, body.reason, actor)),
    }),
  ],
};

/** Namespaces, members, tokens, and the admin views. */
export const accountsModule: RouteModule = {
  name: "accounts",
  routes: [
    route({
      method: "post",
      path: "/api/v1/namespaces",
      summary: "Create a namespace; you become its owner",
      tag: "namespaces",
      scope: "publish",
      body: z.object({ name: z.string().max(64) }),
      responses: { 201: { description: "created", schema: Namespace } },
      handler: async ({ store, body, actor }) => json(await store.createNamespace(body.name, requireActor(actor)), 201),
    }),
    route({
      method: "get",
      path: "/api/v1/namespaces/{namespace}",
      summary: "A namespace and its members",
      tag: "namespaces",
      scope: "read",
      params: z.object({ namespace: z.string().max(64) }),
      responses: ok("the namespace", Namespace),
      handler: async ({ store, params }) => json(await store.getNamespace(params.namespace)),
    }),
    route({
      method: "put",
      path: "/api/v1/namespaces/{namespace}/members/{user}",
      summary: "Add a member or owner (owners only)",
      tag: "namespaces",
      scope: "publish",
      params: z.object({ namespace: z.string().max(64), user: z.string().max(64) }),
      body: z.object({ role: z.enum(["owner", "member"]) }),
      responses: ok("the namespace", Namespace),
      handler: async ({ store, params, body, actor }) => {
        await store.setMember(params.namespace, params.user, body.role, requireActor(actor));
        return json(await store.getNamespace(params.namespace));
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/namespaces/{namespace}/members/{user}",
      summary: "Remove a member (owners only; the last owner stays)",
      tag: "namespaces",
      scope: "publish",
      params: z.object({ namespace: z.string().max(64), user: z.string().max(64) }),
      responses: ok("the namespace", Namespace),
      handler: async ({ store, params, actor }) => {
        await store.setMember(params.namespace, params.user, null, requireActor(actor));
        return json(await store.getNamespace(params.namespace));
      },
    }),
    route({
      method: "get",
      path: "/api/v1/whoami",
      summary: "The user and scopes of the token sent",
      tag: "tokens",
      responses: ok("you", z.object({ user: z.string(), scopes: z.array(z.string()) })),
      handler: ({ actor }) => {
        const who = requireActor(actor);
        return json({ user: who.user, scopes: who.scopes });
      },
    }),
    route({
      method: "post",
      path: "/api/v1/tokens",
      summary: "Create a token (for yourself with your scopes, or any as an admin)",
      tag: "tokens",
      scope: "read",
      body: z.object({
        user: z.string().max(64).optional(),
        scopes: z.array(z.enum(["read", "publish", "admin"])).min(1),
        label: z.string().max(200).optional(),
      }),
      responses: { 201: { description: "the token, shown once", schema: TokenAnswer } },
      handler: async ({ store, body, actor }) => {
        const who = requireActor(actor);
        return json(
          await store.createToken({ user: body.user ?? who.user, scopes: body.scopes, label: body.label }, who),
          201,
        );
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/tokens/{id}",
      summary: "Revoke a token (yours, or any as an admin)",
      tag: "tokens",
      params: z.object({ id: z.string().max(64) }),
      responses: { 200: { description: "revoked", schema: z.object({ revoked: z.string() }) } },
      handler: async ({ store, params, actor }) => {
        await store.revokeToken(params.id, requireActor(actor));
        return json({ revoked: params.id });
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/held",
      summary: "Versions held by a malicious verdict, waiting for a decision",
      tag: "admin",
      scope: "admin",
      responses: ok("held versions", HeldList),
      handler: async ({ store, actor }) => json({ held: await store.held(actor) }),
    }),
    route({
      method: "get",
      path: "/api/v1/admin/log",
      summary: "The audit log: publishes, yanks, decisions, tags, members, tokens",
      tag: "admin",
      scope: "admin",
      query: z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }),
      responses: ok("newest first", LogList),
      handler: async ({ store, actor, query }) => json({ entries: await store.auditLog(actor, query.limit) }),
    }),
  ],
};

function requireActor(actor: Parameters<typeof requireScope>[0]): NonNullable<typeof actor> {
  requireScope(actor, "read");
  return actor;
}

/** One file's bytes served inert: text/plain or octet-stream (never the type its name suggests), a sandboxing CSP. */
export function inertFile(bytes: Uint8Array, sha256: string, text: boolean): Response {
  return new Response(bytes, {
    headers: {
      "content-type": text ? "text/plain; charset=utf-8" : "application/octet-stream",
      "content-security-policy": "default-src 'none'; sandbox",
      "x-content-sha256": sha256,
      etag: `"sha256-${sha256}"`,
    },
  });
}

/**
 * Bytes named by their digest (a file of a version, a version's archive). Asked for by an exact version number they
 * can never change — a version is immutable, and once anyone may read it only a yank can touch it, which still serves
 * it — so they are cacheable for a year (by shared caches only when anyone may read them: an anonymous request on a
 * public registry); asked through a tag (`latest`) they are revalidated. A matching `If-None-Match` answers 304
 * (decision 0411).
 */
function immutableBytes(
  c: Context,
  bytes: Uint8Array,
  etag: string,
  cache: { exact: boolean; shared: boolean },
  headers: Record<string, string>,
): Response {
  const control = cache.exact ? `${cache.shared ? "public" : "private"}, max-age=31536000, immutable` : "no-cache";
  const all = { ...headers, etag, "cache-control": control };
  const response = etagMatches(c.req.header("if-none-match"), etag, true)
    ? new Response(null, { status: 304, headers: all })
    : new Response(bytes, { headers: all });
  // Public and immutable: the same answer for every anonymous request of this URL, from now on (decision 0417).
  return cache.exact && cache.shared ? hot(response, { body: bytes, etag, star: true, until: "immutable" }) : response;
}
