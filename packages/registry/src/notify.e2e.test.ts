// Two registry instances on one PostgreSQL (a fresh schema), blobs in the database, polling turned off (an hour):
// a publish and a yank through A reach B's /mcp by LISTEN/NOTIFY alone — B's MCP client lists the new skill, B's
// search answers it — and a registry in another schema of the same database is not disturbed.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRegistry, type RunningRegistry } from "./index.js";
import { postgresAvailable, skillZip, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";

const available = await postgresAvailable();
const HOUR = 3_600_000;

describe.skipIf(!available)("instances on one PostgreSQL learn of changes by NOTIFY", () => {
  const dbs: TestRegistryDb[] = [];
  const running: RunningRegistry[] = [];
  let a: RunningRegistry;
  let b: RunningRegistry;
  let other: RunningRegistry;
  let token: string;
  let client: Client;

  beforeAll(async () => {
    const db = await testRegistryDb("postgres");
    const otherDb = await testRegistryDb("postgres");
    dbs.push(db, otherDb);
    const start = async (url: string) => {
      const r = await serveRegistry({ database: url, blobs: "postgres", mcp: { pollIntervalMs: HOUR } });
      running.push(r);
      return r;
    };
    a = await start(db.url);
    b = await start(db.url);
    other = await start(otherDb.url);
    token = (await a.store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    client = new Client({ name: "notify-test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`)));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    for (const r of running) await r.close().catch(() => undefined);
    for (const db of dbs) await db.drop();
  });

  const changeOn = (r: RunningRegistry, name: string, kind: "added" | "removed") =>
    new Promise<void>((resolve) => {
      const off = r.mcp!.server.onChange((change) => {
        if (change[kind].includes(name)) {
          off();
          resolve();
        }
      });
    });

  it("a publish on A is listed by B's /mcp and found by B's search; a yank on A leaves B's /mcp", async () => {
    expect(a.mcp!.notified && b.mcp!.notified).toBe(true);
    const skills = new SkillsClient(client);
    expect((await skills.list()).skills).toEqual([]);
    let otherChanged = false;
    other.mcp!.server.onChange((c) => {
      if (c.added.length + c.removed.length + c.changed.length > 0) otherChanged = true;
    });

    const onB = changeOn(b, "fresh", "added");
    const form = new FormData();
    form.set("archive", new Blob([await skillZip("fresh", { description: "Freshly published for the notify test." })]));
    const res = await fetch(`${a.url}/api/v1/skills`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    await onB;
    const listed = (await skills.list()).skills;
    expect(listed.map((s) => s.frontmatter.name)).toEqual(["fresh"]);
    const file = await skills.read(listed[0]!);
    expect(file.verified).toBe(true);
    const search = (await (await fetch(`${b.url}/api/v1/skills?q=freshly`)).json()) as {
      skills: Array<{ name: string }>;
    };
    expect(search.skills.map((s) => s.name)).toEqual(["fresh"]);

    const goneOnB = changeOn(b, "fresh", "removed");
    const yank = await fetch(`${a.url}/api/v1/skills/fresh/versions/1.0.0/yank`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "test" }),
    });
    expect(yank.status).toBe(200);
    await goneOnB;
    expect((await skills.list()).skills).toEqual([]);
    // The other schema's registry heard the same channel and ignored it: its payload names another schema.
    await other.mcp!.sync();
    expect(otherChanged).toBe(false);
    expect(other.mcp!.server.snapshot.skills).toEqual([]);
  }, 60_000);
});
