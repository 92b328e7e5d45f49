// ClawHub's registry API in process (Hono's app.request) on SQLite and PostgreSQL: the shapes its CLI reads, owners
// and namespaces, the fingerprint match `update` and `publish` rely on, the upload-then-publish flow, holds as blocked
// skills, and errors as one line of text. The real `clawhub` CLI against a running server is packages/cli's
// registry-clients test.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { sql } from "kysely";
import { readArchive } from "@skillport/pack";
import { createRegistryApp, RegistryStore, type VersionView } from "./index.js";
import {
  MALICIOUS_BODY,
  skillZip,
  testRegistryDb,
  WARN_BODY,
  type TestRegistryDb,
  testDialects,
} from "./test-support/fixtures.js";

const dialects = await testDialects();

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** The clawhub CLI's fingerprint of a folder, written out here as its source does it (skills.ts). */
function cliFingerprint(files: Array<{ path: string; bytes: string }>): string {
  const lines = files
    .map((f) => ({ path: f.path, sha256: sha256(f.bytes) }))
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `${f.path}:${f.sha256}`);
  return sha256(lines.join("\n"));
}

describe.each(dialects)("ClawHub's API on %s", (dialect) => {
  let db: TestRegistryDb;
  let store: RegistryStore;
  let app: Hono;
  let alice: string;
  let bob: string;
  let admin: string;

  const call = async (
    method: string,
    url: string,
    options: { token?: string; body?: unknown; raw?: Uint8Array } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array | undefined;
    if (options.raw) {
      headers["content-type"] = "text/markdown";
      body = options.raw;
    } else if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const res = await app.request(url, { method, headers, body });
    const type = res.headers.get("content-type") ?? "";
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      status: res.status,
      type,
      json: type.includes("json") ? (JSON.parse(Buffer.from(bytes).toString()) as Record<string, unknown>) : undefined,
      text: Buffer.from(bytes).toString(),
      bytes,
    };
  };
  const publishZip = async (zip: Uint8Array, token: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    form.set("archive", new Blob([zip]), "skill.zip");
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const res = await app.request("/api/v1/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return (await res.json()) as { version: VersionView };
  };
  /** ClawHub's publish as its CLI does it: an upload URL per file, the bytes, then the list. */
  const clawhubPublish = async (
    token: string,
    slug: string,
    files: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) => {
    const listed = [];
    for (const [path, text] of Object.entries(files)) {
      const bytes = Buffer.from(text);
      const meta = { path, size: bytes.byteLength, sha256: sha256(bytes), contentType: "text/plain" };
      const ticket = await call("POST", "/clawhub/api/v1/skills/-/upload-url", { token, body: meta });
      expect(ticket.status, ticket.text).toBe(200);
      const uploadUrl = new URL((ticket.json as { uploadUrl: string }).uploadUrl);
      const up = await call("POST", uploadUrl.pathname, { token, raw: bytes });
      expect(up.status, up.text).toBe(200);
      listed.push({ ...meta, storageId: (up.json as { storageId: string }).storageId });
    }
    return call("POST", "/clawhub/api/v1/skills", {
      token,
      body: { slug, displayName: slug, version: "1.0.0", changelog: "", tags: ["latest"], files: listed, ...extra },
    });
  };

  beforeAll(async () => {
    db = await testRegistryDb(dialect);
    store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    app = createRegistryApp(store, { rateLimit: { requests: 100_000, publishes: 10_000 } });
    admin = (await store.createToken({ user: "root", scopes: ["admin"] })).token;
    alice = (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    bob = (await store.createToken({ user: "bob", scopes: ["read", "publish"] })).token;
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("search, skill, versions, one version, a file, resolve and download answer in ClawHub's shapes", async () => {
    const files = { "references/notes.md": "Notes.\n", "scripts/run.sh": "#!/bin/sh\necho run\n" };
    const first = await publishZip(await skillZip("greet", { description: "Greets people.", files }), alice, {
      changelog: "First.",
    });
    await publishZip(await skillZip("greet", { description: "Greets people.", body: "# v2\n", files }), alice, {
      changelog: "Second.",
    });

    const search = await call("GET", "/clawhub/api/v1/search?q=greet&limit=5");
    expect(search.json).toMatchObject({
      results: [{ slug: "greet", version: "1.0.1", ownerHandle: null, owner: { handle: null, displayName: "alice" } }],
    });

    const skill = await call("GET", "/clawhub/api/v1/skills/greet");
    expect(skill.json).toMatchObject({
      skill: { slug: "greet", summary: "Greets people.", tags: { latest: "1.0.1" } },
      latestVersion: { version: "1.0.1", changelog: "Second." },
      owner: { handle: null, displayName: "alice" },
      moderation: { isSuspicious: false, isMalwareBlocked: false, verdict: "clean" },
    });
    expect(typeof (skill.json as { skill: { createdAt: unknown } }).skill.createdAt).toBe("number");

    const versions = await call("GET", "/clawhub/api/v1/skills/greet/versions");
    expect((versions.json as { items: Array<{ version: string }> }).items.map((v) => v.version)).toEqual([
      "1.0.1",
      "1.0.0",
    ]);
    const one = await call("GET", "/clawhub/api/v1/skills/greet/versions/1.0.0");
    const listed = (one.json as { version: { files: Array<{ path: string; sha256: string }> } }).version.files;
    expect(listed).toEqual(first.version.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })));
    expect(one.json).toMatchObject({ version: { security: { status: "clean" } }, skill: { slug: "greet" } });

    const file = await call("GET", "/clawhub/api/v1/skills/greet/file?path=scripts/run.sh&version=1.0.0");
    expect(file.text).toBe(files["scripts/run.sh"]);

    // The fingerprint the CLI computes over an installed 1.0.0 folder finds 1.0.0, while latest is 1.0.1.
    const skillMd = `---\nname: greet\ndescription: Greets people.\n---\n\n# greet\n\nUse it well.\n`;
    const hash = cliFingerprint([
      { path: "SKILL.md", bytes: skillMd },
      ...Object.entries(files).map(([path, bytes]) => ({ path, bytes })),
    ]);
    expect((await call("GET", `/clawhub/api/v1/resolve?slug=greet&hash=${hash}`)).json).toEqual({
      slug: "greet",
      match: { version: "1.0.0" },
      latestVersion: { version: "1.0.1" },
    });
    const none = await call("GET", `/clawhub/api/v1/resolve?slug=greet&hash=${"0".repeat(64)}`);
    expect(none.json).toMatchObject({ match: null, latestVersion: { version: "1.0.1" } });

    // ClawHub's zip holds the files at its top (its CLI extracts entries as they are into skills/<slug>/).
    const zip = await call("GET", "/clawhub/api/v1/download?slug=greet&version=1.0.0");
    expect(zip.type).toBe("application/zip");
    const unzipped = await readArchive(zip.bytes, { stripWrapper: false });
    expect(unzipped.files.map((f) => [f.path, sha256(f.bytes)])).toEqual(
      first.version.files.map((f) => [f.path, f.sha256]),
    );
    const latest = await call("GET", "/clawhub/api/v1/download?slug=greet");
    expect(latest.status).toBe(200);
  });

  it("owners are namespaces (or an unscoped skill's user); a bare slug two namespaces share is ambiguous", async () => {
    for (const ns of ["team", "other"]) {
      const made = await call("POST", "/api/v1/namespaces", { token: alice, body: { name: ns } });
      expect(made.status).toBe(201);
      await publishZip(await skillZip("tool", { description: `The ${ns} tool.` }), alice, { namespace: ns });
    }
    const ambiguous = await call("GET", "/clawhub/api/v1/skills/tool");
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.type).toContain("text/plain");
    expect(ambiguous.text).toContain("tool is in several namespaces; name one: @other/tool, @team/tool");
    const scoped = await call("GET", "/clawhub/api/v1/skills/tool?ownerHandle=other");
    expect(scoped.json).toMatchObject({ skill: { summary: "The other tool." }, owner: { handle: "other" } });
    // An unscoped skill is found by its owner's name too, and not by anyone else's.
    expect((await call("GET", "/clawhub/api/v1/skills/greet?ownerHandle=alice")).status).toBe(200);
    const elsewhere = await call("GET", "/clawhub/api/v1/skills/greet?ownerHandle=bob");
    expect([elsewhere.status, elsewhere.text]).toEqual([404, "Skill not found: @bob/greet"]);
    // The skill pages' install lines for the clawhub CLI are the ones that work (the CLI test runs the same form).
    expect((await call("GET", "/ui/skills/greet")).text).toContain(
      "clawhub --registry http://localhost/clawhub install greet",
    );
    expect((await call("GET", "/ui/skills/@team/tool")).text).toContain(
      "clawhub --registry http://localhost/clawhub install @team/tool",
    );
    const search = await call("GET", "/clawhub/api/v1/search?q=tool");
    expect(
      (search.json as { results: Array<{ ownerHandle: string }> }).results.map((r) => r.ownerHandle).sort(),
    ).toEqual(["other", "team"]);
  });

  it("publish: upload URLs, bytes, then the list make a version our own API shows; the slug must be the name", async () => {
    const skillMd = "---\nname: notes\ndescription: Keeps notes for the user.\n---\n\n# Notes\n";
    const files = { "SKILL.md": skillMd, "scripts/save.sh": "#!/bin/sh\necho saved\n" };
    const published = await clawhubPublish(alice, "notes", files, { ownerHandle: "alice", changelog: "Hello." });
    expect(published.status, published.text).toBe(201);
    expect(published.json).toMatchObject({ ok: true, slug: "notes", version: "1.0.0", publicationStatus: "published" });
    const ours = await call("GET", "/api/v1/skills/notes/versions/1.0.0");
    const v = ours.json as unknown as VersionView;
    expect(v.files.map((f) => [f.path, f.sha256, f.mode])).toEqual([
      ["SKILL.md", sha256(skillMd), 0o644],
      ["scripts/save.sh", sha256(files["scripts/save.sh"]), 0o755],
    ]);
    expect(v).toMatchObject({
      publishedBy: "alice",
      changelog: "Hello.",
      tags: ["latest"],
      audit: { verdict: "pass" },
    });

    // The multipart form ClawHub also takes: `payload` holds the JSON, the files are parts named with their paths.
    const form = new FormData();
    form.set(
      "payload",
      JSON.stringify({ slug: "notes", version: "2.0.0", changelog: "Multipart.", ownerHandle: "alice" }),
    );
    form.append("files", new File([skillMd], "SKILL.md"));
    form.append("files", new File([files["scripts/save.sh"]], "scripts/save.sh"));
    form.append("files", new File(["Extra.\n"], "references/extra.md"));
    const multipart = await app.request("/clawhub/api/v1/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${alice}` },
      body: form,
    });
    expect(multipart.status, await multipart.clone().text()).toBe(201);
    const v2 = (await call("GET", "/api/v1/skills/notes/versions/2.0.0")).json as unknown as VersionView;
    expect(v2.files.map((f) => [f.path, f.mode])).toEqual([
      ["SKILL.md", 0o644],
      ["references/extra.md", 0o644],
      ["scripts/save.sh", 0o755],
    ]);
    expect(v2.changelog).toBe("Multipart.");
    const noPayload = new FormData();
    noPayload.append("files", new File([skillMd], "SKILL.md"));
    const refused = await app.request("/clawhub/api/v1/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${alice}` },
      body: noPayload,
    });
    expect([refused.status, await refused.text()]).toEqual([400, "the form field `payload` must hold the JSON body"]);

    // Into a namespace the publisher belongs to; not into one they do not.
    const scoped = await clawhubPublish(alice, "notes", files, { ownerHandle: "team" });
    expect(scoped.json).toMatchObject({ skillId: "@team/notes" });
    const foreign = await clawhubPublish(bob, "notes", { ...files, "README.md": "Bob's.\n" }, { ownerHandle: "team" });
    expect([foreign.status, foreign.text]).toEqual([403, "you are not a member of @team"]);
    const nobody = await clawhubPublish(bob, "notes", files, { ownerHandle: "nobody" });
    expect(nobody.status).toBe(404);
    expect(nobody.text).toContain("no publisher @nobody here");

    const renamed = await clawhubPublish(alice, "other-name", files);
    expect(renamed.status).toBe(400);
    expect(renamed.text).toBe('the skill is named "other-name" but its SKILL.md says name: notes (they must be equal)');

    // Bytes that are not the sha256 the upload URL names are refused; so is a storage id nobody uploaded.
    const bad = await call("POST", `/clawhub/api/v1/skills/-/uploads/${"a".repeat(64)}`, {
      token: alice,
      raw: Buffer.from("x"),
    });
    expect([bad.status, bad.text]).toEqual([400, "the uploaded bytes do not have the sha256 in the upload URL"]);
    const unknown = await call("POST", "/clawhub/api/v1/skills", {
      token: alice,
      body: {
        slug: "notes",
        version: "9.0.0",
        files: [{ path: "SKILL.md", size: 1, sha256: "b".repeat(64), storageId: "0".repeat(24) }],
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("SKILL.md: no upload");
    const anonymous = await call("POST", "/clawhub/api/v1/skills/-/upload-url", {
      body: { path: "SKILL.md", size: 1, sha256: "b".repeat(64) },
    });
    expect([anonymous.status, anonymous.type]).toEqual([401, "text/plain; charset=UTF-8"]);
  });

  it("the uploads of a publish are removed once it is done, whatever its answer", async () => {
    const bytes = Buffer.from("---\nname: tidy\ndescription: Tidies up.\n---\n\n# Tidy\n");
    const up = await call("POST", `/clawhub/api/v1/skills/-/uploads/${sha256(bytes)}`, { token: alice, raw: bytes });
    const id = (up.json as { storageId: string }).storageId;
    expect((await store.readStaged(id))?.sha256).toBe(sha256(bytes));
    const done = await call("POST", "/clawhub/api/v1/skills", {
      token: alice,
      body: {
        slug: "tidy",
        version: "1.0.0",
        files: [{ path: "SKILL.md", size: bytes.byteLength, sha256: sha256(bytes), storageId: id }],
      },
    });
    expect(done.status).toBe(201);
    expect(await store.readStaged(id)).toBeUndefined();
  });

  it("a held malicious skill is blocked and not downloadable; a warned one is suspicious", async () => {
    const held = await publishZip(await skillZip("helper", { body: MALICIOUS_BODY }), alice);
    expect(held.version.hold).toBe("held");
    const skill = await call("GET", "/clawhub/api/v1/skills/helper");
    expect(skill.json).toMatchObject({
      latestVersion: null,
      moderation: { isMalwareBlocked: true, verdict: "malicious" },
    });
    expect((skill.json as { moderation: { reasonCodes: string[] } }).moderation.reasonCodes).toContain(
      "malicious.install_terminal_payload",
    );
    const download = await call("GET", "/clawhub/api/v1/download?slug=helper&version=1.0.0");
    expect(download.status).toBe(403);
    expect(download.text).toBe("helper@1.0.0 is held for review (its audit verdict is malicious); an admin decides");
    expect((await call("GET", "/clawhub/api/v1/skills/helper/install")).json).toMatchObject({
      ok: false,
      reason: "archive_version_missing",
    });
    const found = (await call("GET", "/clawhub/api/v1/search?q=helper")).json as { results: Array<{ slug: string }> };
    expect(found.results.map((r) => r.slug)).not.toContain("helper");
    // An admin still gets the bytes (to decide on them).
    expect((await call("GET", "/clawhub/api/v1/download?slug=helper&version=1.0.0", { token: admin })).status).toBe(
      200,
    );
    // Published through ClawHub's own publish: held, which its CLI shows as pending.
    const evil = await clawhubPublish(alice, "evil", {
      "SKILL.md": `---\nname: evil\ndescription: Sets things up.\n---\n\n${MALICIOUS_BODY}`,
    });
    expect(evil.json).toMatchObject({ ok: true, publicationStatus: "pending" });

    await publishZip(await skillZip("risky", { body: WARN_BODY }), alice);
    expect((await call("GET", "/clawhub/api/v1/skills/risky")).json).toMatchObject({
      moderation: { isSuspicious: true, isMalwareBlocked: false, verdict: "suspicious" },
    });
  });

  it("errors are one line of text; an unknown route says what is served; a bad token is refused", async () => {
    const missing = await call("POST", "/clawhub/api/v1/stars/greet", { token: alice });
    expect(missing.status).toBe(404);
    expect(missing.text).toMatch(/^no route POST \/clawhub\/api\/v1\/stars\/greet: this registry serves ClawHub's /);
    const badToken = await call("GET", "/clawhub/api/v1/whoami", { token: "skp_wrongwrongwrongwrongwrong" });
    expect([badToken.status, badToken.text]).toEqual([401, "the token is not valid (unknown, revoked or malformed)"]);
    expect((await call("GET", "/clawhub/api/v1/whoami", { token: bob })).json).toEqual({
      user: { handle: "bob", displayName: "bob", image: null, role: "user" },
    });
    const badQuery = await call("GET", "/clawhub/api/v1/resolve?slug=greet&hash=nothex");
    expect(badQuery.status).toBe(400);
    expect(badQuery.text.split("\n")).toHaveLength(1);
    // Our own API keeps its JSON errors.
    expect((await call("GET", "/api/v1/skills/nothing")).json).toMatchObject({ error: { code: "REGISTRY_NOT_FOUND" } });
  });

  it("the discovery file names the API and is served without a token; reads then need one", async () => {
    const closed = createRegistryApp(store, { readAccess: "token" });
    const found = await closed.request("/.well-known/clawhub.json");
    expect(await found.json()).toEqual({ apiBase: "http://localhost/clawhub" });
    const read = await closed.request("/clawhub/api/v1/search?q=greet");
    expect(read.status).toBe(401);
    expect(await read.text()).toBe("this registry needs a token to read (Authorization: Bearer <token>)");
    const off = createRegistryApp(store, { clawhub: false });
    expect((await off.request("/.well-known/clawhub.json")).status).toBe(404);
  });
});

describe("an index made before schema 2", () => {
  it("an upgraded database keeps the .skill download for older versions and lists the flat archive for new ones", async () => {
    const db = await testRegistryDb("sqlite");
    try {
      let store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
      const alice = (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
      const publish = async (name: string) => {
        const form = new FormData();
        form.set("archive", new Blob([await skillZip(name)]), "skill.zip");
        const app = createRegistryApp(store);
        await app.request("/api/v1/skills", {
          method: "POST",
          headers: { authorization: `Bearer ${alice}` },
          body: form,
        });
      };
      await publish("older");
      // Back to schema 2: no column, no migration 3 recorded (as a database made by the previous release).
      await sql`alter table registry_versions drop column flat_digest`.execute(store.database.kysely);
      await sql`delete from registry_migrations where version = 3`.execute(store.database.kysely);
      await store.close();
      store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
      await publish("newer");
      const app = createRegistryApp(store);
      const index = (await (await app.request("/.well-known/agent-skills/index.json")).json()) as {
        skills: Array<{ name: string; url: string; digest: string }>;
      };
      const byName = Object.fromEntries(index.skills.map((s) => [s.name, s]));
      expect(byName.older?.url).toMatch(/\/versions\/1\.0\.0\/download$/);
      expect(byName.newer?.url).toMatch(/\/versions\/1\.0\.0\/archive$/);
      for (const entry of index.skills) {
        const bytes = new Uint8Array(await (await app.request(new URL(entry.url).pathname)).arrayBuffer());
        expect(`sha256:${sha256(bytes)}`).toBe(entry.digest);
      }
      await store.close();
    } finally {
      await db.drop();
    }
  });
});
