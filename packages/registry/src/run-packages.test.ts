// Package archives for the runner pool (decision 0378), through the HTTP API in process, on SQLite and PostgreSQL:
// stored under the versionId a deploy computes, idempotent, refused when the layout is wrong or a skill is malicious,
// scoped, and kept by the sweep that removes blobs nobody uses.
import { createHash } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { sql } from "kysely";
import { DeterministicZip, packDirectory } from "@skillport/pack";
import { createRegistryApp, RegistryStore } from "./index.js";
import { MALICIOUS_BODY, testRegistryDb, type TestRegistryDb, testDialects } from "./test-support/fixtures.js";

const dialects = await testDialects();
const EXAMPLE_DIR = path.resolve(import.meta.dirname, "../../../examples/package");
const skillMd = (name: string, body = "# Steps\n\nDo it.\n") =>
  `---\nname: ${name}\ndescription: Does ${name} things. Use when asked for ${name}.\n---\n\n${body}`;

async function packageZip(files: Record<string, string>): Promise<Uint8Array> {
  const zip = new DeterministicZip();
  for (const [p, text] of Object.entries(files)) zip.add({ path: p, mode: 0o644, bytes: Buffer.from(text) });
  return zip.finish();
}

describe.each(dialects)("runner packages on %s", (dialect) => {
  let db: TestRegistryDb;
  let store: RegistryStore;
  let app: Hono;
  let publisher: string;
  let reader: string;
  let example: { archive: Uint8Array; versionId: string };

  const put = (archive: Uint8Array, token?: string) => {
    const form = new FormData();
    form.set("archive", new Blob([archive], { type: "application/zip" }), "package.zip");
    return app.request("/api/v1/packages", {
      method: "POST",
      body: form,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  };

  beforeAll(async () => {
    db = await testRegistryDb(dialect);
    store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    app = createRegistryApp(store, { rateLimit: { requests: 100_000, publishes: 10_000 } });
    publisher = (await store.createToken({ user: "ci", scopes: ["read", "publish"] })).token;
    reader = (await store.createToken({ user: "carol", scopes: ["read"] })).token;
    example = await packDirectory(EXAMPLE_DIR);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("stores a package under the versionId a deploy computes; the same bytes again change nothing", async () => {
    const first = await put(example.archive, publisher);
    expect(first.status).toBe(201);
    const body = (await first.json()) as { created: boolean; package: Record<string, unknown> };
    const digest = `sha256:${createHash("sha256").update(example.archive).digest("hex")}`;
    expect(body).toMatchObject({
      created: true,
      package: { versionId: example.versionId, digest, size: example.archive.byteLength, uploadedBy: "ci" },
    });
    expect(body.package.skills).toEqual(["extract-emails", "format-report", "word-stats"]);
    const again = await put(example.archive, publisher);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ created: false, package: { versionId: example.versionId, digest } });

    const got = await app.request(`/api/v1/packages/${example.versionId}`);
    expect(got.status).toBe(200);
    expect(got.headers.get("x-content-digest")).toBe(digest);
    expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(example.archive))).toBe(true);
  });

  it("refuses a wrong layout, a malicious skill, a missing or read-only token; unknown ids are 404", async () => {
    const noSkills = await put(await packageZip({ "README.md": "no skills here\n" }), publisher);
    expect(noSkills.status).toBe(422);
    expect(((await noSkills.json()) as { error: { message: string } }).error.message).toMatch(/skills\//);

    const evil = await put(
      await packageZip({ "skills/helper/SKILL.md": skillMd("helper", MALICIOUS_BODY) }),
      publisher,
    );
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ error: { code: "REGISTRY_HELD" } });

    const fine = await packageZip({ "skills/helper/SKILL.md": skillMd("helper") });
    expect((await put(fine)).status).toBe(401);
    expect((await put(fine, reader)).status).toBe(403);

    expect((await app.request(`/api/v1/packages/${"a".repeat(24)}`)).status).toBe(404);
    expect((await app.request("/api/v1/packages/..%2f..%2fetc")).status).toBe(400);
  });

  it("the sweep of an unfinished upload of the same bytes keeps the package's blob", async () => {
    const fine = await packageZip({ "skills/keeper/SKILL.md": skillMd("keeper") });
    const stored = (await (await put(fine, publisher)).json()) as { package: { versionId: string; digest: string } };
    // What a crash during a second upload of these bytes leaves: an upload row naming the blob.
    const blob = stored.package.digest.slice("sha256:".length);
    await sql`insert into registry_uploads (id, blob, started_at) values (${"c0ffee00c0ffee00"}, ${blob}, ${"2000-01-01T00:00:00.000Z"})`.execute(
      store.database.kysely,
    );
    expect(await store.sweep(0)).toEqual({ uploads: 1, blobs: 0 });
    const got = await app.request(`/api/v1/packages/${stored.package.versionId}`);
    expect(got.status).toBe(200);
  });
});
