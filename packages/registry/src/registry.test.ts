// The registry's REST API end to end in process (Hono's app.request), on SQLite and on PostgreSQL (a fresh schema in
// the `test` database per run): publish, idempotence, versions and tags, search and filters, holds, yank/undelete,
// namespaces, tokens, limits, hostile archives, the well-known index.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Hono } from "hono";
import { DeterministicZip, readArchive } from "@skillport/pack";
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

interface Ctx {
  db: TestRegistryDb;
  store: RegistryStore;
  app: Hono;
  admin: string;
  alice: string;
  bob: string;
  reader: string;
}

function form(archive: Uint8Array, fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  f.set("archive", new Blob([archive], { type: "application/zip" }), "skill.zip");
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

describe.each(dialects)("registry on %s", (dialect) => {
  const t = {} as Ctx;
  const call = async (
    method: string,
    url: string,
    options: { token?: string; body?: unknown; form?: FormData } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: FormData | string | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const res = await t.app.request(url, { method, headers, body });
    const type = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      json: type.includes("json") ? ((await res.json()) as Record<string, unknown>) : undefined,
      bytes: type.includes("json") ? undefined : new Uint8Array(await res.arrayBuffer()),
    };
  };
  const publish = (archive: Uint8Array, token: string, fields: Record<string, string> = {}) =>
    call("POST", "/api/v1/skills", { token, form: form(archive, fields) });

  beforeAll(async () => {
    t.db = await testRegistryDb(dialect);
    t.store = await RegistryStore.open({ database: t.db.url, blobs: t.db.blobs });
    t.app = createRegistryApp(t.store, { rateLimit: { requests: 100_000, publishes: 10_000 } });
    t.admin = (await t.store.createToken({ user: "root", scopes: ["admin"] })).token;
    t.alice = (await t.store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    t.bob = (await t.store.createToken({ user: "bob", scopes: ["read", "publish"] })).token;
    t.reader = (await t.store.createToken({ user: "carol", scopes: ["read"] })).token;
  });
  afterAll(async () => {
    await t.store?.close();
    await t.db?.drop();
  });

  it("publishes a version with files and digests; the same bytes again change nothing", async () => {
    const zip = await skillZip("pdf-tools", {
      description: "Fill and merge PDF forms.",
      files: { "scripts/fill.sh": "#!/bin/sh\necho filled\n" },
    });
    const first = await publish(zip, t.alice, { changelog: "First release." });
    expect(first.status).toBe(201);
    const v = (first.json as { version: VersionView }).version;
    expect(v).toMatchObject({
      skill: "pdf-tools",
      version: "1.0.0",
      tags: ["latest"],
      changelog: "First release.",
      publishedBy: "alice",
      yanked: false,
      hold: null,
    });
    expect(v.audit.verdict).toBe("pass");
    expect(v.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(v.files.map((f) => [f.path, f.mode])).toEqual([
      ["SKILL.md", 0o644],
      ["scripts/fill.sh", 0o755],
    ]);

    const again = await publish(zip, t.alice);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ created: false, version: { version: "1.0.0", digest: v.digest } });
    // The same files zipped differently (another folder name, another order) are the same content: still a no-op.
    const rezipped = await skillZip("pdf-tools", {
      description: "Fill and merge PDF forms.",
      files: { "scripts/fill.sh": "#!/bin/sh\necho filled\n" },
      folder: "renamed",
    });
    expect((await publish(rezipped, t.alice)).json).toMatchObject({ created: false });

    const file = await call("GET", "/api/v1/skills/pdf-tools/versions/1.0.0/files/scripts/fill.sh");
    expect(file.status).toBe(200);
    expect(Buffer.from(file.bytes ?? []).toString()).toBe("#!/bin/sh\necho filled\n");
    expect(file.headers.get("content-security-policy")).toContain("sandbox");
    expect(file.headers.get("x-content-sha256")).toBe(v.files[1]?.sha256);

    const download = await call("GET", "/api/v1/skills/pdf-tools/versions/latest/download");
    expect(download.status).toBe(200);
    const { createHash } = await import("node:crypto");
    expect(
      `sha256:${createHash("sha256")
        .update(download.bytes ?? new Uint8Array())
        .digest("hex")}`,
    ).toBe(v.digest);
  });

  it("versions are immutable, auto-bumped, semver-sorted; tags move; the changelog is kept per version", async () => {
    const conflict = await publish(await skillZip("pdf-tools", { body: "# changed\n" }), t.alice, { version: "1.0.0" });
    expect(conflict.status).toBe(409);
    const bumped = await publish(await skillZip("pdf-tools", { body: "# v2\n" }), t.alice, { changelog: "Second." });
    expect(bumped.json).toMatchObject({ created: true, version: { version: "1.0.1", tags: ["latest"] } });
    const pre = await publish(await skillZip("pdf-tools", { body: "# beta\n" }), t.alice, {
      version: "2.0.0-beta.1",
      tags: "beta",
    });
    expect(pre.json).toMatchObject({ version: { version: "2.0.0-beta.1", tags: ["beta"] } });
    const skill = (await call("GET", "/api/v1/skills/pdf-tools")).json as {
      version: string;
      tags: Record<string, string>;
      versions: Array<{ version: string; changelog: string }>;
    };
    expect(skill.version).toBe("1.0.1");
    expect(skill.tags).toEqual({ beta: "2.0.0-beta.1", latest: "1.0.1" });
    expect(skill.versions.map((x) => x.version)).toEqual(["2.0.0-beta.1", "1.0.1", "1.0.0"]);
    expect(skill.versions.find((x) => x.version === "1.0.0")?.changelog).toBe("First release.");
    expect(
      (await call("PUT", "/api/v1/skills/pdf-tools/tags/stable", { token: t.alice, body: { version: "1.0.0" } }))
        .status,
    ).toBe(200);
    expect((await call("GET", "/api/v1/skills/pdf-tools/versions/stable")).json).toMatchObject({ version: "1.0.0" });
    expect(
      (await call("PUT", "/api/v1/skills/pdf-tools/tags/stable", { token: t.bob, body: { version: "1.0.1" } })).status,
    ).toBe(403);
    expect((await publish(await skillZip("pdf-tools", { body: "# bob's\n" }), t.bob)).status).toBe(403);
    expect(
      (await publish(await skillZip("pdf-tools", { body: "# bad version\n" }), t.alice, { version: "1.0" })).status,
    ).toBe(400);
  });

  it("lists and searches with core's ranking; filters by namespace, tag and verdict", async () => {
    await publish(await skillZip("csv-report", { description: "Summarise CSV files into a Markdown report." }), t.bob);
    await publish(
      await skillZip("risky-installer", { description: "Installs the toolchain.", body: WARN_BODY }),
      t.bob,
    );
    const hits = (await call("GET", "/api/v1/skills?q=csv%20markdown%20report")).json as {
      skills: Array<{ skill: string; confidence: number }>;
    };
    expect(hits.skills[0]?.skill).toBe("csv-report");
    expect(hits.skills[0]?.confidence).toBeGreaterThan(0);
    const all = (await call("GET", "/api/v1/skills")).json as {
      total: number;
      skills: Array<{ skill: string; audit: { verdict: string; findings: unknown[] } }>;
    };
    expect(all.skills.map((s) => s.skill)).toEqual(["csv-report", "pdf-tools", "risky-installer"]);
    // warn findings travel in every answer that shows the version, listings included.
    const risky = all.skills.find((s) => s.skill === "risky-installer");
    expect(risky?.audit.verdict).toBe("warn");
    expect(risky?.audit.findings.length).toBeGreaterThan(0);
    expect(
      ((await call("GET", "/api/v1/skills?verdict=warn")).json as { skills: Array<{ skill: string }> }).skills.map(
        (s) => s.skill,
      ),
    ).toEqual(["risky-installer"]);
    expect(
      ((await call("GET", "/api/v1/skills?tag=beta")).json as { skills: Array<{ skill: string; version: string }> })
        .skills,
    ).toMatchObject([{ skill: "pdf-tools", version: "2.0.0-beta.1" }]);
    expect((await call("GET", "/api/v1/skills?limit=0")).status).toBe(400);
  });

  it("holds a malicious version from every listing and download until an admin decides", async () => {
    const res = await publish(
      await skillZip("helper-setup", { description: "Sets up helpers.", body: MALICIOUS_BODY }),
      t.bob,
    );
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ version: { hold: "held", audit: { verdict: "malicious" } } });
    const listed = (await call("GET", "/api/v1/skills?q=helpers%20setup")).json as { skills: Array<{ skill: string }> };
    expect(listed.skills.map((s) => s.skill)).not.toContain("helper-setup");
    expect(
      ((await call("GET", "/api/v1/skills")).json as { skills: Array<{ skill: string }> }).skills.map((s) => s.skill),
    ).not.toContain("helper-setup");
    for (const url of [
      "/api/v1/skills/helper-setup",
      "/api/v1/skills/helper-setup/versions/1.0.0",
      "/api/v1/skills/helper-setup/versions/1.0.0/download",
      "/api/v1/skills/helper-setup/versions/1.0.0/files/SKILL.md",
      "/api/v1/skills/helper-setup/versions/1.0.0/.well-known/agent-skills/index.json",
    ]) {
      const r = await call("GET", url, { token: t.bob });
      expect([403, 404], url).toContain(r.status);
    }
    const index = (await call("GET", "/.well-known/agent-skills/index.json")).json as {
      skills: Array<{ name: string }>;
    };
    expect(index.skills.map((s) => s.name)).not.toContain("helper-setup");
    const held = (await call("GET", "/api/v1/admin/held", { token: t.admin })).json as {
      held: Array<{ skill: string; findings: Array<{ code: string }> }>;
    };
    expect(held.held.map((h) => h.skill)).toEqual(["helper-setup"]);
    expect(held.held[0]?.findings.map((f) => f.code)).toContain("malicious.install_terminal_payload");
    expect((await call("GET", "/api/v1/admin/held", { token: t.alice })).status).toBe(403);
    expect(
      (
        await call("POST", "/api/v1/skills/helper-setup/versions/1.0.0/decision", {
          token: t.bob,
          body: { decision: "release" },
        })
      ).status,
    ).toBe(403);
    const released = await call("POST", "/api/v1/skills/helper-setup/versions/1.0.0/decision", {
      token: t.admin,
      body: { decision: "release", reason: "the payload is a documented test vector" },
    });
    expect(released.json).toMatchObject({ hold: null });
    expect((await call("GET", "/api/v1/skills/helper-setup/versions/1.0.0/download")).status).toBe(200);
  });

  it("yanks and undeletes with an audit-log entry each; a yanked version still downloads by its number", async () => {
    expect(
      (await call("POST", "/api/v1/skills/csv-report/versions/1.0.0/yank", { token: t.alice, body: {} })).status,
    ).toBe(403);
    const yanked = await call("POST", "/api/v1/skills/csv-report/versions/1.0.0/yank", {
      token: t.bob,
      body: { reason: "broken" },
    });
    expect(yanked.json).toMatchObject({ yanked: true });
    expect(
      ((await call("GET", "/api/v1/skills")).json as { skills: Array<{ skill: string }> }).skills.map((s) => s.skill),
    ).not.toContain("csv-report");
    expect(
      (
        (await call("GET", "/.well-known/agent-skills/index.json")).json as { skills: Array<{ name: string }> }
      ).skills.map((s) => s.name),
    ).not.toContain("csv-report");
    expect((await call("GET", "/api/v1/skills/csv-report/versions/1.0.0/download")).status).toBe(200);
    expect(
      (
        await call("POST", "/api/v1/skills/csv-report/versions/1.0.0/undelete", {
          token: t.bob,
          body: { reason: "fixed" },
        })
      ).json,
    ).toMatchObject({ yanked: false });
    const log = (await call("GET", "/api/v1/admin/log", { token: t.admin })).json as {
      entries: Array<{ action: string; actor: string; target: string; detail: { reason?: string } }>;
    };
    expect(log.entries.slice(0, 2).map((e) => [e.action, e.actor, e.target, e.detail.reason])).toEqual([
      ["undelete", "bob", "csv-report@1.0.0", "fixed"],
      ["yank", "bob", "csv-report@1.0.0", "broken"],
    ]);
    expect(log.entries.some((e) => e.action === "hold.release")).toBe(true);
  });

  it("namespaces: owners and members publish @team/skill; others may not", async () => {
    expect((await call("POST", "/api/v1/namespaces", { token: t.alice, body: { name: "acme" } })).status).toBe(201);
    expect((await call("POST", "/api/v1/namespaces", { token: t.bob, body: { name: "acme" } })).status).toBe(409);
    const zip = await skillZip("pdf-tools", { description: "Acme's own PDF skill.", body: "# acme pdf\n" });
    expect((await publish(zip, t.bob, { namespace: "acme" })).status).toBe(403);
    expect(
      (await call("PUT", "/api/v1/namespaces/acme/members/bob", { token: t.bob, body: { role: "member" } })).status,
    ).toBe(403);
    expect(
      (await call("PUT", "/api/v1/namespaces/acme/members/bob", { token: t.alice, body: { role: "member" } })).json,
    ).toMatchObject({
      members: [
        { user: "alice", role: "owner" },
        { user: "bob", role: "member" },
      ],
    });
    const res = await publish(zip, t.bob, { namespace: "acme" });
    expect(res.json).toMatchObject({
      created: true,
      version: { skill: "@acme/pdf-tools", namespace: "acme", version: "1.0.0" },
    });
    expect((await call("GET", "/api/v1/skills/@acme/pdf-tools")).json).toMatchObject({
      skill: "@acme/pdf-tools",
      description: "Acme's own PDF skill.",
    });
    expect((await call("GET", "/api/v1/skills/pdf-tools")).json).toMatchObject({ skill: "pdf-tools" });
    expect(
      ((await call("GET", "/api/v1/skills?namespace=acme")).json as { skills: Array<{ skill: string }> }).skills.map(
        (s) => s.skill,
      ),
    ).toEqual(["@acme/pdf-tools"]);
    expect((await publish(zip, t.bob, { namespace: "nope" })).status).toBe(404);
    expect((await call("DELETE", "/api/v1/namespaces/acme/members/alice", { token: t.alice })).status).toBe(409);
  });

  it("the well-known index lists spec names once, each with the archive's digest; a namespace has its own", async () => {
    const root = await call("GET", "/.well-known/agent-skills/index.json");
    const doc = root.json as {
      $schema: string;
      skills: Array<{ name: string; type: string; url: string; digest: string }>;
    };
    expect(doc.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    const names = doc.skills.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    // pdf-tools is unscoped and @acme/pdf-tools shares its bare name: the unscoped one is listed.
    const pdf = doc.skills.find((s) => s.name === "pdf-tools");
    expect(pdf?.url).toMatch(/\/api\/v1\/skills\/pdf-tools\/versions\/1\.0\.1\/archive$/);
    for (const s of doc.skills) {
      expect(s.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(s.type).toBe("archive");
      const bytes = (await call("GET", new URL(s.url).pathname)).bytes ?? new Uint8Array();
      const { createHash } = await import("node:crypto");
      expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(s.digest);
      // SKILL.md at the archive's top: clients of the discovery spec (Vercel's skills) read it there.
      expect((await readArchive(bytes, { stripWrapper: false })).files.map((f) => f.path)).toContain("SKILL.md");
    }
    // Revalidation: the same index again is a 304 for a client that sends its ETag.
    const etag = root.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(
      (await t.app.request("/.well-known/agent-skills/index.json", { headers: { "if-none-match": etag } })).status,
    ).toBe(304);
    const acme = (await call("GET", "/@acme/.well-known/agent-skills/index.json")).json as {
      skills: Array<{ name: string; url: string }>;
    };
    expect(acme.skills).toMatchObject([{ name: "pdf-tools" }]);
    expect(acme.skills[0]?.url).toContain("/api/v1/skills/@acme/pdf-tools/versions/1.0.0/archive");
    // One version as a source address: its own index lists exactly that version (what `audit --diff` compares).
    for (const [base, version] of [
      ["/api/v1/skills/pdf-tools/versions/1.0.0", "1.0.0"],
      ["/api/v1/skills/pdf-tools/versions/latest", "1.0.1"],
      ["/api/v1/skills/@acme/pdf-tools/versions/1.0.0", "1.0.0"],
    ] as const) {
      const one = (await call("GET", `${base}/.well-known/agent-skills/index.json`)).json as {
        skills: Array<{ name: string; url: string; digest: string }>;
      };
      expect(one.skills.map((s) => s.name)).toEqual(["pdf-tools"]);
      expect(one.skills[0]?.url).toMatch(new RegExp(`/versions/${version.replaceAll(".", "\\.")}/archive$`));
    }
    expect(
      (await call("GET", "/api/v1/skills/pdf-tools/versions/9.9.9/.well-known/agent-skills/index.json")).status,
    ).toBe(404);
  });

  it("tokens: only hashes are stored; scopes are enforced; a bad token is refused, not ignored", async () => {
    const made = await call("POST", "/api/v1/tokens", { token: t.alice, body: { scopes: ["read"], label: "ci" } });
    expect(made.status).toBe(201);
    const token = (made.json as { token: string }).token;
    expect((await call("GET", "/api/v1/whoami", { token })).json).toEqual({ user: "alice", scopes: ["read"] });
    expect((await call("POST", "/api/v1/tokens", { token: t.alice, body: { scopes: ["admin"] } })).status).toBe(403);
    expect(
      (await call("POST", "/api/v1/tokens", { token: t.alice, body: { user: "bob", scopes: ["read"] } })).status,
    ).toBe(403);
    expect((await publish(await skillZip("reader-skill"), t.reader)).status).toBe(403);
    expect((await publish(await skillZip("anon-skill"), "")).status).toBe(401);
    expect((await call("GET", "/api/v1/skills", { token: "skp_notarealtokenbutlongenough123" })).status).toBe(401);
    const rows = await t.store.database.kysely
      .selectFrom("registry_tokens" as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(t.alice);
    const id = (made.json as { id: string }).id;
    expect((await call("DELETE", `/api/v1/tokens/${id}`, { token: t.bob })).status).toBe(404);
    expect((await call("DELETE", `/api/v1/tokens/${id}`, { token: t.alice })).status).toBe(200);
    expect((await call("GET", "/api/v1/whoami", { token })).status).toBe(401);
  });

  it("refuses hostile and oversized uploads with one clear line, storing nothing", async () => {
    const escape = new DeterministicZip();
    escape.add({ path: "evil/../../etc/cron.d/x", mode: 0o644, bytes: Buffer.from("x") });
    escape.add({ path: "evil/SKILL.md", mode: 0o644, bytes: Buffer.from("---\nname: evil\ndescription: d\n---\n") });
    const traversal = await publish(await escape.finish(), t.alice);
    expect(traversal.status).toBe(422);
    expect((traversal.json as { error: { code: string; message: string } }).error.code).toBe(
      "REGISTRY_INVALID_PACKAGE",
    );
    const two = new DeterministicZip();
    two.add({ path: "a/SKILL.md", mode: 0o644, bytes: Buffer.from("---\nname: a\ndescription: d\n---\n") });
    two.add({ path: "b/SKILL.md", mode: 0o644, bytes: Buffer.from("---\nname: b\ndescription: d\n---\n") });
    expect((await publish(await two.finish(), t.alice)).status).toBe(422);
    expect((await publish(await skillZip("Bad_Name"), t.alice)).status).toBe(422);
    expect((await publish(new Uint8Array(Buffer.from("not a zip")), t.alice)).status).toBe(422);
    const small = createRegistryApp(t.store, {});
    const big = new FormData();
    big.set("archive", new Blob([new Uint8Array(t.store.limits.maxUploadBytes + 512 * 1024)]), "big.zip");
    const res = await small.request("/api/v1/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${t.alice}` },
      body: big,
    });
    expect(res.status).toBe(413);
    expect((await small.request("/api/v1/skills/evil")).status).toBe(404);
  });

  it("rate limits per token and per address answer 429 with Retry-After", async () => {
    const limited = createRegistryApp(t.store, { rateLimit: { requests: 3, windowMs: 60_000 } });
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await limited.request("/api/v1/skills", { headers: { authorization: `Bearer ${t.reader}` } })).status,
      );
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const res = await limited.request("/api/v1/skills", { headers: { authorization: `Bearer ${t.reader}` } });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.request("/api/v1/skills", { headers: { authorization: `Bearer ${t.bob}` } })).status).toBe(
      200,
    );
  });

  it("keeps one blob per distinct archive and nothing else", () => {
    const files = readdirSync(path.join(t.db.blobs, "sha256"), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    expect(files.every((f) => /^[0-9a-f]{64}$/.test(f.name))).toBe(true);
    for (const f of files) {
      const { createHash } = require_("node:crypto");
      expect(
        createHash("sha256")
          .update(readFileSync(path.join(f.parentPath, f.name)))
          .digest("hex"),
      ).toBe(f.name);
    }
  });
});

import { createRequire } from "node:module";
const require_ = createRequire(import.meta.url) as (id: "node:crypto") => typeof import("node:crypto");
