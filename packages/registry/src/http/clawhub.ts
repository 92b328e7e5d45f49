import { createHash } from "node:crypto";
import type { Context } from "hono";
import { z } from "zod";
import { DeterministicZip } from "@skillport/pack";
import type { Finding, Verdict } from "@skillport/audit";
import { sha256Hex } from "../blobs.js";
import { currentVersion, isVisible, skillKey, type CatalogSkill, type CatalogVersion } from "../catalog.js";
import { RegistryError } from "../errors.js";
import { flatArchive, SPEC_NAME } from "../package.js";
import { requireScope, type RegistryStore } from "../store.js";
import type { Actor, FileEntry, VersionView } from "../types.js";
import { inertFile } from "./api.js";
import { route, type RouteModule } from "./route.js";

/** Where ClawHub's API is served: `clawhub --registry <registry>/clawhub`, or `--site <registry>` (discovery). */
export const CLAWHUB_PREFIX = "/clawhub";
const API = `${CLAWHUB_PREFIX}/api/v1`;
const HEX64 = /^[0-9a-f]{64}$/;

// ---- answer shapes (ClawHub's, as its CLI 0.23.3 checks them; extra fields are allowed there) --------------------

const Millis = z.number().int().describe("milliseconds since the epoch");
const Owner = z
  .object({ handle: z.string().nullable(), displayName: z.string().nullable(), image: z.null() })
  .describe("a namespace's skill: handle = the namespace; an unscoped skill: no handle, displayName = its owner");
const Moderation = z.object({
  isSuspicious: z.boolean().describe("the audit said warn (or an admin released a malicious version)"),
  isMalwareBlocked: z.boolean().describe("held or rejected after a malicious verdict: not installable"),
  verdict: z.enum(["clean", "suspicious", "malicious"]),
  reasonCodes: z.array(z.string()).describe("the audit's finding codes"),
  summary: z.string(),
  engineVersion: z.null(),
  updatedAt: Millis,
});
const SkillCard = z.object({
  slug: z.string().describe("the skill's name"),
  displayName: z.string(),
  summary: z.string().nullable(),
  tags: z.record(z.string(), z.string()).describe("tag → version (visible versions only)"),
  stats: z.object({}),
  createdAt: Millis,
  updatedAt: Millis,
});
const LatestVersion = z.object({
  version: z.string(),
  createdAt: Millis,
  changelog: z.string(),
  license: z.null(),
});
const SkillDetail = z.object({
  skill: SkillCard,
  latestVersion: LatestVersion.nullable(),
  metadata: z.null(),
  owner: Owner,
  moderation: Moderation,
});
const VersionDetail = z.object({
  version: z.object({
    version: z.string(),
    createdAt: Millis,
    changelog: z.string(),
    changelogSource: z.literal("user"),
    license: z.null(),
    files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string() })),
    security: z.object({
      status: z.enum(["clean", "suspicious", "malicious"]),
      hasWarnings: z.boolean(),
      checkedAt: Millis,
      model: z.string(),
    }),
  }),
  skill: z.object({ slug: z.string(), displayName: z.string() }),
});
const SearchHit = z.object({
  slug: z.string(),
  displayName: z.string(),
  summary: z.string(),
  version: z.string(),
  score: z.number(),
  updatedAt: Millis,
  ownerHandle: z.string().nullable(),
  owner: Owner,
});

// ---- request shapes -----------------------------------------------------------------------------------------------

const OwnerQuery = z
  .string()
  .max(65)
  .optional()
  .describe("the publisher: a namespace, or the user owning an unscoped skill");
const SlugParams = z.object({ slug: z.string().max(64) });
const UploadFile = z.object({
  path: z.string().min(1).max(4096),
  size: z.number().int().min(0),
  storageId: z.string().max(64).describe("what the upload URL answered"),
  sha256: z.string().regex(HEX64),
  contentType: z.string().max(200).optional(),
  uploadTicket: z.string().max(200).optional(),
});

const json = (data: unknown, status = 200) => Response.json(data, { status });

/**
 * ClawHub's registry API (the parts its CLI uses to search, inspect, install, update and publish skills), over the
 * same store as the rest, under `/clawhub` so its `/api/v1/skills…` paths do not meet ours (decision 0390). Errors are
 * plain text, as ClawHub answers them and its CLI prints them. Slugs are skill names; an `ownerHandle` is a namespace
 * (or the user owning an unscoped skill); the audit's verdict is ClawHub's moderation, and a held version is blocked.
 */
export const clawhubModule: RouteModule = {
  name: "clawhub",
  errors: "text",
  prefix: CLAWHUB_PREFIX,
  missing:
    "this registry serves ClawHub's search, list, inspect, install, update, resolve, download, whoami and publish (docs/registry.md)",
  routes: [
    route({
      method: "get",
      path: "/.well-known/clawhub.json",
      summary: "ClawHub's discovery file: the API base of this registry's ClawHub API (`clawhub --site <registry>`)",
      tag: "clawhub",
      anonymous: true,
      responses: { 200: { description: "the API base", schema: z.object({ apiBase: z.string() }) } },
      handler: ({ origin }) => json({ apiBase: `${origin}${CLAWHUB_PREFIX}` }),
    }),
    route({
      method: "get",
      path: `${API}/search`,
      summary: "ClawHub search: core's ranking over the current versions (`mode=exact`: the slug itself)",
      tag: "clawhub",
      scope: "read",
      query: z.object({
        q: z.string().min(1).max(500),
        limit: z.coerce.number().int().min(1).max(200).optional(),
        mode: z.enum(["exact"]).optional(),
      }),
      responses: { 200: { description: "hits, best first", schema: z.object({ results: z.array(SearchHit) }) } },
      handler: async ({ store, query }) => {
        const snap = await store.snapshot();
        const limit = query.limit ?? 25;
        const hits =
          query.mode === "exact"
            ? snap.skills
                .filter((s) => s.name === query.q.trim())
                .map((s) => ({ skill: s, current: currentVersion(s), score: 1 }))
            : (await store.listSkills({ q: query.q, limit })).skills.map((h) => {
                const skill = snap.byKey(h.skill);
                return { skill, current: skill && currentVersion(skill), score: h.confidence ?? 0 };
              });
        const results: Array<z.infer<typeof SearchHit>> = [];
        for (const { skill, current, score } of hits) {
          if (!skill || !current) continue;
          results.push({
            slug: skill.name,
            displayName: skill.name,
            summary: current.description,
            version: current.version,
            score,
            updatedAt: Date.parse(skill.updatedAt),
            ownerHandle: skill.namespace === "" ? null : skill.namespace,
            owner: ownerOf(skill),
          });
        }
        return json({ results: results.slice(0, limit) });
      },
    }),
    route({
      method: "get",
      path: `${API}/skills`,
      summary: "ClawHub listing (`explore`, `search --prefix`): skills at their current versions, by update or name",
      tag: "clawhub",
      scope: "read",
      query: z.object({
        limit: z.coerce.number().int().min(1).max(200).optional(),
        cursor: z
          .string()
          .regex(/^\d{1,9}$/)
          .optional()
          .describe("from the previous page's nextCursor"),
        prefix: z.string().max(64).optional().describe("slugs starting with this, in name order"),
        sort: z.string().max(40).optional().describe("createdAt/newest, name; anything else: most recently updated"),
      }),
      responses: {
        200: {
          description: "a page",
          schema: z.object({
            items: z.array(SkillCard.extend({ latestVersion: LatestVersion })),
            nextCursor: z.string().nullable(),
          }),
        },
      },
      handler: async ({ store, query, actor }) => {
        const snap = await store.snapshot();
        const listed = snap.skills.flatMap((skill) => {
          const current = currentVersion(skill);
          return current && (query.prefix === undefined || skill.name.startsWith(query.prefix))
            ? [{ skill, current }]
            : [];
        });
        const byName = query.prefix !== undefined || query.sort === "name";
        const created = (s: CatalogSkill) => Math.min(...s.versions.map((v) => Date.parse(v.createdAt)));
        listed.sort((a, b) =>
          byName
            ? compareText(skillKey(a.skill.namespace, a.skill.name), skillKey(b.skill.namespace, b.skill.name))
            : query.sort === "createdAt" || query.sort === "newest"
              ? created(b.skill) - created(a.skill)
              : Date.parse(b.skill.updatedAt) - Date.parse(a.skill.updatedAt),
        );
        const limit = Math.min(query.limit ?? 25, store.limits.maxListLimit);
        const offset = Number(query.cursor ?? 0);
        const page = listed.slice(offset, offset + limit);
        const items: Array<z.infer<typeof SkillCard> & { latestVersion: z.infer<typeof LatestVersion> }> = [];
        for (const { skill, current } of page)
          items.push({ ...cardOf(skill, current), latestVersion: await latestOf(store, skill, current, actor) });
        return json({ items, nextCursor: offset + limit < listed.length ? String(offset + limit) : null });
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}`,
      summary: "A ClawHub skill: card, latest version, owner, moderation (a held version: isMalwareBlocked)",
      tag: "clawhub",
      scope: "read",
      params: SlugParams,
      query: z.object({ ownerHandle: OwnerQuery }),
      responses: { 200: { description: "the skill", schema: SkillDetail } },
      handler: async ({ store, params, query, actor }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const current = currentVersion(skill);
        return json({
          skill: cardOf(skill, current),
          latestVersion: current ? await latestOf(store, skill, current, actor) : null,
          metadata: null,
          owner: ownerOf(skill),
          moderation: moderationOf(skill, current),
        });
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}/moderation`,
      summary: "A ClawHub skill's moderation with evidence: the audit's findings",
      tag: "clawhub",
      scope: "read",
      params: SlugParams,
      query: z.object({ ownerHandle: OwnerQuery }),
      responses: {
        200: {
          description: "moderation",
          schema: z.object({
            moderation: Moderation.extend({
              legacyReason: z.null(),
              evidence: z.array(
                z.object({
                  code: z.string(),
                  severity: z.enum(["info", "warn", "critical"]),
                  file: z.string(),
                  line: z.number().int(),
                  message: z.string(),
                  evidence: z.string(),
                }),
              ),
            }),
          }),
        },
      },
      handler: async ({ store, params, query }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const current = currentVersion(skill);
        const shown = current ?? blockedVersion(skill) ?? skill.versions[0];
        return json({
          moderation: {
            ...moderationOf(skill, current),
            legacyReason: null,
            evidence: (shown?.findings ?? []).map((f) => ({
              code: f.code,
              severity: f.level === "malicious" ? "critical" : f.level === "warn" ? "warn" : "info",
              file: f.file,
              line: f.line,
              message: f.message,
              evidence: f.evidence,
            })),
          },
        });
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}/versions`,
      summary: "A ClawHub skill's versions, newest first (yanked and held ones left out)",
      tag: "clawhub",
      scope: "read",
      params: SlugParams,
      query: z.object({
        ownerHandle: OwnerQuery,
        limit: z.coerce.number().int().min(1).max(200).optional(),
        cursor: z
          .string()
          .regex(/^\d{1,9}$/)
          .optional(),
      }),
      responses: {
        200: {
          description: "a page",
          schema: z.object({
            items: z.array(LatestVersion.omit({ license: true }).extend({ changelogSource: z.literal("user") })),
            nextCursor: z.string().nullable(),
          }),
        },
      },
      handler: async ({ store, params, query, actor }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const view = await store.getSkill(skill.namespace, skill.name, actor);
        const shown = view.versions.filter((v) => !v.yanked && v.hold === null);
        const limit = query.limit ?? 25;
        const offset = Number(query.cursor ?? 0);
        return json({
          items: shown.slice(offset, offset + limit).map((v) => ({
            version: v.version,
            createdAt: Date.parse(v.publishedAt),
            changelog: v.changelog,
            changelogSource: "user",
          })),
          nextCursor: offset + limit < shown.length ? String(offset + limit) : null,
        });
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}/versions/{version}`,
      summary: "One version of a ClawHub skill with its files (a held version: 403 but for admins)",
      tag: "clawhub",
      scope: "read",
      params: SlugParams.extend({ version: z.string().max(64).describe("a version or a tag") }),
      query: z.object({ ownerHandle: OwnerQuery }),
      responses: { 200: { description: "the version", schema: VersionDetail } },
      handler: async ({ store, params, query, actor }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const v = await store.getVersion(skill.namespace, skill.name, params.version, actor);
        return json(versionOf(v));
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}/file`,
      summary: "One file's bytes (served inert), of the latest version unless `version` or `tag` says",
      tag: "clawhub",
      scope: "read",
      params: SlugParams,
      query: z.object({
        ownerHandle: OwnerQuery,
        path: z.string().min(1).max(4096),
        version: z.string().max(64).optional(),
        tag: z.string().max(64).optional(),
      }),
      responses: { 200: { description: "the file", contentType: "application/octet-stream" } },
      handler: async ({ store, params, query, actor }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const f = await store.readFile(
          skill.namespace,
          skill.name,
          query.version ?? query.tag ?? "latest",
          query.path,
          actor,
        );
        return inertFile(f.bytes, f.entry.sha256, f.text);
      },
    }),
    route({
      method: "get",
      path: `${API}/skills/{slug}/install`,
      summary: "How to install a ClawHub skill: its current version as an archive (410 when none may be installed)",
      tag: "clawhub",
      scope: "read",
      params: SlugParams,
      query: z.object({ ownerHandle: OwnerQuery }),
      responses: {
        200: {
          description: "the archive to install",
          schema: z.object({
            ok: z.literal(true),
            slug: z.string(),
            installKind: z.literal("archive"),
            archive: z.object({ version: z.string(), downloadUrl: z.string() }),
          }),
        },
        410: {
          description: "no version may be installed",
          schema: z.object({
            ok: z.literal(false),
            slug: z.string(),
            reason: z.literal("archive_version_missing"),
            message: z.string(),
            status: z.number().int(),
          }),
        },
      },
      handler: async ({ store, params, query, origin }) => {
        const skill = await findSkill(store, params.slug, query.ownerHandle);
        const current = currentVersion(skill);
        if (!current)
          return json(
            {
              ok: false,
              slug: skill.name,
              reason: "archive_version_missing",
              message: `${skillKey(skill.namespace, skill.name)} has no version anyone may install (held, rejected or yanked)`,
              status: 410,
            },
            410,
          );
        const url = new URL(`${origin}${API}/download`);
        url.searchParams.set("slug", skill.name);
        if (skill.namespace !== "") url.searchParams.set("ownerHandle", skill.namespace);
        url.searchParams.set("version", current.version);
        return json({
          ok: true,
          slug: skill.name,
          installKind: "archive",
          archive: { version: current.version, downloadUrl: url.href },
        });
      },
    }),
    route({
      method: "get",
      path: `${API}/resolve`,
      summary: "Which version a local folder is: its fingerprint (ClawHub's, over paths and sha256s) matched",
      tag: "clawhub",
      scope: "read",
      query: z.object({ slug: z.string().max(64), hash: z.string().regex(HEX64), ownerHandle: OwnerQuery }),
      responses: {
        200: {
          description: "the matching version, if any, and the latest",
          schema: z.object({
            slug: z.string(),
            match: z.object({ version: z.string() }).nullable(),
            latestVersion: z.object({ version: z.string() }).nullable(),
          }),
        },
      },
      handler: async ({ store, query, actor }) => {
        const skill = await findSkill(store, query.slug, query.ownerHandle);
        let match: { version: string } | null = null;
        for (const v of skill.versions) {
          if (v.hold !== null) continue;
          const view = await store.getVersion(skill.namespace, skill.name, v.version, actor);
          if (fingerprint(view.files) === query.hash) {
            match = { version: v.version };
            break;
          }
        }
        const current = currentVersion(skill);
        return json({ slug: skill.name, match, latestVersion: current ? { version: current.version } : null });
      },
    }),
    route({
      method: "get",
      path: `${API}/download`,
      summary: "A version as ClawHub's zip: the flat archive (files at the top; a held version: 403 but for admins)",
      tag: "clawhub",
      scope: "read",
      query: z.object({
        slug: z.string().max(64),
        ownerHandle: OwnerQuery,
        version: z.string().max(64).optional(),
        tag: z.string().max(64).optional(),
      }),
      responses: { 200: { description: "the zip", contentType: "application/zip" } },
      handler: async ({ store, query, actor }) => {
        const skill = await findSkill(store, query.slug, query.ownerHandle);
        const { version, files } = await store.readFiles(
          skill.namespace,
          skill.name,
          query.version ?? query.tag ?? "latest",
          actor,
        );
        return new Response(await flatArchive(files), {
          headers: {
            "content-type": "application/zip",
            "content-disposition": `attachment; filename="${skill.name}-${version}.zip"`,
            "x-skill-version": version,
          },
        });
      },
    }),
    route({
      method: "get",
      path: `${API}/whoami`,
      summary: "The user of the token sent (`clawhub login --token`, and publish's default owner)",
      tag: "clawhub",
      responses: {
        200: {
          description: "you",
          schema: z.object({
            user: z.object({
              handle: z.string(),
              displayName: z.string(),
              image: z.null(),
              role: z.enum(["admin", "user"]),
            }),
          }),
        },
      },
      handler: ({ actor }) => {
        if (!actor) throw new RegistryError("REGISTRY_UNAUTHORIZED", "not logged in: send a registry token (skp_…)");
        const role = actor.scopes.includes("admin") ? "admin" : "user";
        return json({ user: { handle: actor.user, displayName: actor.user, image: null, role } });
      },
    }),
    route({
      method: "post",
      path: `${API}/skills/-/upload-url`,
      summary: "Where to upload one file of a coming publish",
      tag: "clawhub",
      scope: "publish",
      body: z.object({
        path: z.string().min(1).max(4096),
        size: z.number().int().min(0),
        sha256: z.string().regex(HEX64),
        contentType: z.string().max(200).optional(),
      }),
      responses: {
        200: {
          description: "the URL to POST the bytes to",
          schema: z.object({ uploadUrl: z.string(), uploadTicket: z.string() }),
        },
      },
      handler: ({ store, body, actor, origin }) => {
        requireScope(actor, "publish");
        if (body.size > store.limits.maxFileBytes)
          throw new RegistryError(
            "REGISTRY_TOO_LARGE",
            `${body.path} is ${body.size} bytes, over the limit of ${store.limits.maxFileBytes} for one file`,
          );
        return json({ uploadUrl: `${origin}${API}/skills/-/uploads/${body.sha256}`, uploadTicket: body.sha256 });
      },
    }),
    route({
      method: "post",
      path: `${API}/skills/-/uploads/{sha256}`,
      summary: "Upload one file (its bytes must have this sha256); kept until the publish that lists it",
      tag: "clawhub",
      scope: "publish",
      params: z.object({ sha256: z.string().regex(HEX64) }),
      rawBody: "application/octet-stream",
      maxBodyBytes: (store) => store.limits.maxFileBytes,
      responses: { 200: { description: "stored", schema: z.object({ storageId: z.string() }) } },
      handler: async ({ c, store, params, actor }) => {
        requireScope(actor, "publish");
        const bytes = new Uint8Array(await c.req.arrayBuffer());
        if (sha256Hex(bytes) !== params.sha256)
          throw new RegistryError(
            "REGISTRY_BAD_REQUEST",
            "the uploaded bytes do not have the sha256 in the upload URL",
          );
        return json({ storageId: await store.stageFile(bytes, actor) });
      },
    }),
    route({
      method: "post",
      path: `${API}/skills`,
      summary: "ClawHub publish: the uploaded files become a version (audited; a malicious one is held: pending)",
      tag: "clawhub",
      scope: "publish",
      publish: true,
      body: z.object({
        slug: z.string().max(64).describe("the skill's name: SKILL.md's name must be the same"),
        displayName: z.string().max(200).optional(),
        ownerHandle: OwnerQuery.describe("a namespace you are a member of, or your own user name (unscoped)"),
        version: z.string().max(64),
        changelog: z.string().max(100_000).optional(),
        tags: z.array(z.string().max(64)).max(50).optional(),
        files: z
          .array(UploadFile)
          .min(1)
          .max(10_000)
          .optional()
          .describe("the uploaded files (JSON); in a multipart publish, the file parts `files` instead"),
      }),
      multipartPayload: { payload: "payload", files: "files" },
      maxBodyBytes: (store) => Math.max(4 * 1024 * 1024, store.limits.maxUploadBytes + 256 * 1024),
      responses: {
        201: {
          description: "published (or held: publicationStatus pending)",
          schema: z.object({
            ok: z.literal(true),
            skillId: z.string(),
            versionId: z.string().describe("the files' content address"),
            slug: z.string(),
            version: z.string(),
            publicationStatus: z.enum(["published", "pending"]),
          }),
        },
      },
      handler: async ({ c, store, body, actor }) => {
        requireScope(actor, "publish");
        if (!SPEC_NAME.test(body.slug))
          throw new RegistryError(
            "REGISTRY_BAD_REQUEST",
            `slug ${JSON.stringify(body.slug)} is not a skill name (lowercase letters, digits and single hyphens; SKILL.md's name)`,
          );
        const multipart = (c.req.header("content-type") ?? "").startsWith("multipart/form-data");
        const ids = multipart ? [] : (body.files ?? []).map((f) => f.storageId);
        try {
          const namespace = await publishPlace(store, body.ownerHandle, actor);
          const files = multipart ? await formFiles(c, store) : await stagedFiles(store, body.files ?? []);
          const archive = await zipFiles(files);
          const { created, version: v } = await store.publish(
            archive,
            {
              namespace: namespace === "" ? undefined : namespace,
              version: body.version,
              tags: body.tags,
              changelog: body.changelog,
              name: body.slug,
            },
            actor,
          );
          const status = v.hold === null ? "published" : "pending";
          return json(
            {
              ok: true,
              skillId: v.skill,
              versionId: v.contentDigest,
              slug: v.name,
              version: v.version,
              publicationStatus: status,
            },
            created ? 201 : 200,
          );
        } finally {
          if (ids.length > 0) await store.dropStaged(ids);
        }
      },
    }),
  ],
};

/**
 * A slug (and owner) to one skill. With an owner: that namespace's skill, else the unscoped skill that user owns.
 * Without: the unscoped skill, else the only namespace that has the name. Skills held from every listing are found
 * here too, so the CLI can say they are blocked.
 */
async function findSkill(store: RegistryStore, slug: string, ownerHandle: string | undefined): Promise<CatalogSkill> {
  const handle = normalizeHandle(ownerHandle);
  const named = (await store.snapshot()).skills.filter((s) => s.name === slug);
  const found =
    handle !== undefined
      ? (named.find((s) => s.namespace === handle) ?? named.find((s) => s.namespace === "" && s.owner === handle))
      : (named.find((s) => s.namespace === "") ?? (named.length === 1 ? named[0] : undefined));
  if (found) return found;
  if (handle === undefined && named.length > 1)
    throw new RegistryError(
      "REGISTRY_CONFLICT",
      `${slug} is in several namespaces; name one: ${named
        .map((s) => `@${s.namespace}/${slug}`)
        .sort()
        .join(", ")}`,
    );
  throw new RegistryError("REGISTRY_NOT_FOUND", `Skill not found: ${handle === undefined ? "" : `@${handle}/`}${slug}`);
}

/** Where a publish goes: the namespace the handle names, else (your own user name or none) the unscoped space. */
async function publishPlace(store: RegistryStore, ownerHandle: string | undefined, actor: Actor): Promise<string> {
  const handle = normalizeHandle(ownerHandle);
  if (handle === undefined) return "";
  if (SPEC_NAME.test(handle)) {
    try {
      await store.getNamespace(handle);
      return handle;
    } catch (error) {
      if (!(error instanceof RegistryError) || error.code !== "REGISTRY_NOT_FOUND") throw error;
    }
  }
  if (handle === actor.user) return "";
  throw new RegistryError(
    "REGISTRY_NOT_FOUND",
    `no publisher @${handle} here: the owner is a namespace of this registry or your own user name (${actor.user})`,
  );
}

interface PublishedFile {
  path: string;
  bytes: Uint8Array;
}

/** The staged files a JSON publish lists, each checked against the sha256 and size it says. */
async function stagedFiles(
  store: RegistryStore,
  files: ReadonlyArray<z.infer<typeof UploadFile>>,
): Promise<PublishedFile[]> {
  if (files.length === 0)
    throw new RegistryError("REGISTRY_BAD_REQUEST", "files: list the uploaded files (or publish multipart)");
  const out: PublishedFile[] = [];
  for (const f of files) {
    const staged = await store.readStaged(f.storageId);
    if (!staged)
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `${f.path}: no upload ${JSON.stringify(f.storageId.slice(0, 64))} (unknown, used or expired); upload it again`,
      );
    if (staged.sha256 !== f.sha256 || staged.bytes.byteLength !== f.size)
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `${f.path}: the uploaded bytes are not the sha256 and size listed`,
      );
    out.push({ path: f.path, bytes: staged.bytes });
  }
  return out;
}

/** The file parts of a multipart publish: each part's file name is its path in the skill. */
async function formFiles(c: Context, store: RegistryStore): Promise<PublishedFile[]> {
  const out: PublishedFile[] = [];
  for (const part of (await c.req.formData()).getAll("files")) {
    if (!(part instanceof File) || part.name === "")
      throw new RegistryError("REGISTRY_BAD_REQUEST", "files: each part is a file named with its path in the skill");
    if (part.size > store.limits.maxFileBytes)
      throw new RegistryError(
        "REGISTRY_TOO_LARGE",
        `${part.name} is ${part.size} bytes, over the limit of ${store.limits.maxFileBytes} for one file`,
      );
    out.push({ path: part.name, bytes: new Uint8Array(await part.arrayBuffer()) });
  }
  if (out.length === 0) throw new RegistryError("REGISTRY_BAD_REQUEST", "files: no file parts in the form");
  return out;
}

/**
 * A publish's files as one zip for `store.publish`, SKILL.md at the top as ClawHub lists it (the store's safe reader
 * then checks every path). Modes are not part of ClawHub's publish; pack's reader marks `.sh` files executable, as a
 * packed folder would.
 */
function zipFiles(files: readonly PublishedFile[]): Promise<Uint8Array> {
  const zip = new DeterministicZip();
  let previous: string | undefined;
  for (const f of [...files].sort((a, b) => compareText(a.path, b.path))) {
    if (f.path === previous) throw new RegistryError("REGISTRY_BAD_REQUEST", `${f.path} is listed twice`);
    previous = f.path;
    zip.add({ path: f.path, mode: 0o644, bytes: f.bytes });
  }
  return zip.finish();
}

/**
 * ClawHub's fingerprint of a skill folder (its CLI computes it over the files it would publish or has installed):
 * sha256 over `path:sha256` lines, sorted by path, dot-files and dot-folders left out.
 */
function fingerprint(files: ReadonlyArray<Pick<FileEntry, "path" | "sha256">>): string {
  const lines = files
    .filter((f) => !f.path.split("/").some((segment) => segment.startsWith(".")))
    .map((f) => ({ path: f.path, sha256: f.sha256 }))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `${f.path}:${f.sha256}`);
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}

function normalizeHandle(raw: string | undefined): string | undefined {
  const handle = raw?.trim().replace(/^@+/, "").toLowerCase();
  return handle === undefined || handle === "" ? undefined : handle;
}

/** Byte order of UTF-8 (pack's zip order). */
function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function ownerOf(skill: CatalogSkill): z.infer<typeof Owner> {
  return skill.namespace === ""
    ? { handle: null, displayName: skill.owner, image: null }
    : { handle: skill.namespace, displayName: `@${skill.namespace}`, image: null };
}

function cardOf(skill: CatalogSkill, current: CatalogVersion | undefined): z.infer<typeof SkillCard> {
  const visible = new Set(skill.versions.filter(isVisible).map((v) => v.version));
  const tags: Record<string, string> = {};
  for (const [tag, version] of [...skill.tags].sort(([a], [b]) => compareText(a, b)))
    if (visible.has(version)) tags[tag] = version;
  if (current) tags.latest = current.version;
  return {
    slug: skill.name,
    displayName: skill.name,
    summary: current?.description ?? null,
    tags,
    stats: {},
    createdAt: Math.min(...skill.versions.map((v) => Date.parse(v.createdAt))),
    updatedAt: Date.parse(skill.updatedAt),
  };
}

async function latestOf(
  store: RegistryStore,
  skill: CatalogSkill,
  current: CatalogVersion,
  actor: Actor | undefined,
): Promise<z.infer<typeof LatestVersion>> {
  const v = await store.getVersion(skill.namespace, skill.name, current.version, actor);
  return { version: v.version, createdAt: Date.parse(v.publishedAt), changelog: v.changelog, license: null };
}

/** A version held (or rejected) after a malicious verdict, when the skill has no installable one. */
function blockedVersion(skill: CatalogSkill): CatalogVersion | undefined {
  return skill.versions.find((v) => v.hold !== null);
}

/** The audit as ClawHub's moderation: warn is suspicious (install needs --force), held is blocked. */
function moderationOf(skill: CatalogSkill, current: CatalogVersion | undefined): z.infer<typeof Moderation> {
  const blocked = current ? undefined : blockedVersion(skill);
  const v = current ?? blocked ?? skill.versions[0];
  const verdict: Verdict = v?.verdict ?? "pass";
  const findings: Finding[] = v?.findings ?? [];
  const label = blocked ? "malicious" : clawhubVerdict(verdict);
  return {
    isSuspicious: label === "suspicious",
    isMalwareBlocked: blocked !== undefined,
    verdict: label,
    reasonCodes: [...new Set(findings.map((f) => f.code))],
    summary: `Skillport audit: ${verdict}${blocked ? ` (${blocked.hold ?? "held"} for review)` : ""}`,
    engineVersion: null,
    updatedAt: v ? Date.parse(v.createdAt) : 0,
  };
}

/** A visible version's verdict for ClawHub: pass and review are clean; warn, and malicious released by an admin, suspicious. */
function clawhubVerdict(verdict: Verdict): "clean" | "suspicious" {
  return verdict === "warn" || verdict === "malicious" ? "suspicious" : "clean";
}

function versionOf(v: VersionView): z.infer<typeof VersionDetail> {
  const status = v.hold !== null ? "malicious" : clawhubVerdict(v.audit.verdict);
  return {
    version: {
      version: v.version,
      createdAt: Date.parse(v.publishedAt),
      changelog: v.changelog,
      changelogSource: "user",
      license: null,
      files: v.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
      security: {
        status,
        hasWarnings: v.audit.findings.length > 0,
        checkedAt: Date.parse(v.publishedAt),
        model: "skillport audit",
      },
    },
    skill: { slug: v.name, displayName: v.name },
  };
}
