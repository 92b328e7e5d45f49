// What the registry keeps in process memory (decisions 0410, 0411) and how it goes stale: the rendered well-known
// index and search are per catalog snapshot, so a publish or a yank — through this server or another one on the same
// database — shows at once; files are cached by their archive's digest, which never changes, and served with ETags,
// 304s and immutable caching only when asked for by an exact version.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { ArchiveCache, servedFiles, type ServedFile } from "./archive-cache.js";
import { createRegistryApp, RegistryStore, type Actor } from "./index.js";
import {
  MALICIOUS_BODY,
  skillZip,
  testRegistryDb,
  type TestRegistryDb,
  testDialects,
} from "./test-support/fixtures.js";

const dialects = await testDialects();
const INDEX = "/.well-known/agent-skills/index.json";

describe.each(dialects)("caches on %s", (dialect) => {
  let db: TestRegistryDb;
  // Two stores on one database stand for two server processes.
  let one: RegistryStore;
  let two: RegistryStore;
  let app: Hono;
  let admin: Actor;
  let alice: Actor;
  let aliceToken: string;

  beforeAll(async () => {
    db = await testRegistryDb(dialect);
    one = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    two = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    app = createRegistryApp(one, { rateLimit: { requests: 100_000 } });
    const made = await two.createToken({ user: "root", scopes: ["admin"] });
    admin = (await two.authenticate(made.token)) as Actor;
    aliceToken = (await two.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    alice = (await two.authenticate(aliceToken)) as Actor;
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await db?.drop();
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.request(url, { headers });
  const names = async (url = INDEX) =>
    ((await (await get(url)).json()) as { skills: Array<{ name: string; url: string }> }).skills;

  it("the well-known index follows publishes and yanks made through another server, with a new ETag each time", async () => {
    await two.publish(await skillZip("alpha", { description: "Alpha does things." }), {}, alice);
    const first = await get(INDEX);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    expect((await get(INDEX, { "if-none-match": etag })).status).toBe(304);

    await two.publish(await skillZip("beta", { description: "Beta does other things." }), {}, alice);
    const second = await get(INDEX);
    expect(second.headers.get("etag")).not.toBe(etag);
    expect((await get(INDEX, { "if-none-match": etag })).status).toBe(200);
    expect((await names()).map((s) => s.name)).toEqual(["alpha", "beta"]);

    await two.setYanked("", "beta", "1.0.0", true, "broken", alice);
    expect((await names()).map((s) => s.name)).toEqual(["alpha"]);
    await two.setYanked("", "beta", "1.0.0", false, "fixed", alice);
    expect((await names()).map((s) => s.name)).toEqual(["alpha", "beta"]);
  });

  it("each origin gets its own rendering of the index", async () => {
    const here = await names("http://one.example" + INDEX);
    const there = await names("http://two.example" + INDEX);
    expect(here[0]?.url).toMatch(/^http:\/\/one\.example\/api\/v1\/skills\/alpha\/versions\/1\.0\.0\/archive$/);
    expect(there[0]?.url).toMatch(/^http:\/\/two\.example\//);
  });

  it("search and listings show another server's publish and yank at once", async () => {
    const search = async () =>
      ((await (await get("/api/v1/skills?q=gamma%20rays")).json()) as { skills: Array<{ skill: string }> }).skills.map(
        (s) => s.skill,
      );
    const listed = async () =>
      ((await (await get("/api/v1/skills?limit=100")).json()) as { skills: Array<{ skill: string }> }).skills.map(
        (s) => s.skill,
      );
    // Each asked twice: the second answer comes from the snapshot's answers, which must not outlive it.
    for (let i = 0; i < 2; i++) {
      expect(await search()).toEqual([]);
      expect(await listed()).not.toContain("gamma");
    }
    await two.publish(await skillZip("gamma", { description: "Measures gamma rays." }), {}, alice);
    for (let i = 0; i < 2; i++) {
      expect(await search()).toEqual(["gamma"]);
      expect(await listed()).toContain("gamma");
    }
    // A new version is analysed anew (the documents kept across snapshots are keyed by the archive's digest).
    const searchFor = async (q: string) =>
      (
        (await (await get(`/api/v1/skills?q=${encodeURIComponent(q)}`)).json()) as { skills: Array<{ skill: string }> }
      ).skills.map((s) => s.skill);
    await two.publish(await skillZip("gamma", { description: "Counts cosmic muons." }), {}, alice);
    expect(await searchFor("rays")).toEqual([]);
    expect(await searchFor("cosmic muons")).toEqual(["gamma"]);
    await two.setYanked("", "gamma", "1.0.1", true, "wrong", alice);
    expect(await searchFor("rays")).toEqual(["gamma"]);
    expect(await searchFor("cosmic muons")).toEqual([]);
    await two.setYanked("", "gamma", "1.0.0", true, "wrong", alice);
    expect(await search()).toEqual([]);
    expect(await listed()).not.toContain("gamma");
  });

  it("a file asked by exact version is immutable with an ETag and 304; through a tag it is revalidated and moves", async () => {
    await two.publish(await skillZip("delta", { files: { "references/a.md": "one\n" } }), {}, alice);
    const exact = await get("/api/v1/skills/delta/versions/1.0.0/files/references/a.md");
    expect(await exact.text()).toBe("one\n");
    expect(exact.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = exact.headers.get("etag") ?? "";
    expect(etag).toBe(`"sha256-${exact.headers.get("x-content-sha256")}"`);
    const again = await get("/api/v1/skills/delta/versions/1.0.0/files/references/a.md", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);

    const tagged = await get("/api/v1/skills/delta/versions/latest/files/references/a.md");
    expect(tagged.headers.get("cache-control")).toBe("no-cache");
    await two.publish(await skillZip("delta", { files: { "references/a.md": "two\n" } }), {}, alice);
    expect(await (await get("/api/v1/skills/delta/versions/latest/files/references/a.md")).text()).toBe("two\n");
    expect(await (await get("/api/v1/skills/delta/versions/1.0.0/files/references/a.md")).text()).toBe("one\n");
    // With a token the answer may be cached by that client only.
    const mine = await get("/api/v1/skills/delta/versions/1.0.1/files/references/a.md", {
      authorization: `Bearer ${aliceToken}`,
    });
    expect(mine.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");

    const download = await get("/api/v1/skills/delta/versions/1.0.1/download");
    expect(download.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const archiveTag = download.headers.get("etag") ?? "";
    expect((await get("/api/v1/skills/delta/versions/1.0.1/download", { "if-none-match": archiveTag })).status).toBe(
      304,
    );
    expect((await get("/api/v1/skills/delta/versions/latest/download")).headers.get("cache-control")).toBe("no-cache");

    // The flat archive the well-known index lists: its ETag is the digest the index names.
    const flat = await get("/api/v1/skills/delta/versions/1.0.1/archive");
    expect(flat.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const flatTag = flat.headers.get("etag") ?? "";
    expect(flatTag).toBe(
      `"sha256-${createHash("sha256")
        .update(new Uint8Array(await flat.arrayBuffer()))
        .digest("hex")}"`,
    );
    const version = (await (await get("/api/v1/skills/delta/versions/1.0.1")).json()) as { flatDigest: string };
    expect(flatTag).toBe(`"${version.flatDigest.replace(":", "-")}"`);
    expect((await get("/api/v1/skills/delta/versions/1.0.1/archive", { "if-none-match": flatTag })).status).toBe(304);
    expect((await get("/api/v1/skills/delta/versions/latest/archive")).headers.get("cache-control")).toBe("no-cache");
  });

  it("a held version's files stay refused after an admin read them, until an admin releases it", async () => {
    await two.publish(await skillZip("epsilon", { body: MALICIOUS_BODY }), {}, alice);
    const adminToken = (await two.createToken({ user: "root", scopes: ["admin"] }, admin)).token;
    const url = "/api/v1/skills/epsilon/versions/1.0.0/files/SKILL.md";
    const seen = await get(url, { authorization: `Bearer ${adminToken}` });
    expect(seen.status).toBe(200);
    expect(seen.headers.get("cache-control")).toMatch(/^private/);
    expect((await get(url)).status).toBe(403);
    expect((await get(url, { authorization: `Bearer ${aliceToken}` })).status).toBe(403);
    await two.decide("", "epsilon", "1.0.0", "release", "a test vector", admin);
    expect((await get(url)).status).toBe(200);
  });

  it("a yanked version's files still answer by number, not through latest", async () => {
    await two.setYanked("", "alpha", "1.0.0", true, "gone", alice);
    expect((await get("/api/v1/skills/alpha/versions/1.0.0/files/SKILL.md")).status).toBe(200);
    expect((await get("/api/v1/skills/alpha/versions/latest/files/SKILL.md")).status).toBe(404);
  });
});

describe("ArchiveCache", () => {
  const files = (size: number): Map<string, ServedFile> =>
    servedFiles([{ path: "a.bin", bytes: new Uint8Array(size), mode: 0o644 }]);

  it("loads a digest once, and drops the least recently used archives past its budget", async () => {
    const cache = new ArchiveCache(250);
    const loads: string[] = [];
    const get = (digest: string) =>
      cache.get(digest, async () => {
        loads.push(digest);
        return files(100);
      });
    await Promise.all([get("a"), get("a")]);
    await get("b");
    await get("a"); // a is now the most recently used
    await get("c"); // 300 bytes: b goes
    await get("a");
    await get("b");
    expect(loads).toEqual(["a", "b", "c", "b"]);
  });

  it("forgets a failed load, so the next request tries again", async () => {
    const cache = new ArchiveCache(1000);
    let calls = 0;
    const load = async () => {
      calls++;
      if (calls === 1) throw new Error("blob missing");
      return files(1);
    };
    await expect(cache.get("x", load)).rejects.toThrow("blob missing");
    expect((await cache.get("x", load)).get("a.bin")?.entry.size).toBe(1);
    expect(calls).toBe(2);
  });

  it("says which files are text: UTF-8 without NUL", () => {
    const served = servedFiles([
      { path: "t.md", bytes: Buffer.from("héllo\n"), mode: 0o644 },
      { path: "n.bin", bytes: Uint8Array.of(104, 0, 105), mode: 0o644 },
      { path: "l.bin", bytes: Uint8Array.of(0xc3, 0x28), mode: 0o755 },
    ]);
    expect([...served.values()].map((f) => [f.entry.path, f.text, f.entry.mode])).toEqual([
      ["t.md", true, 0o644],
      ["n.bin", false, 0o644],
      ["l.bin", false, 0o755],
    ]);
  });
});
