// The hot path in front of the app (decision 0417): answers the app gave anonymous GETs — files and archives by exact
// version, the well-known indexes — replayed on Node's request and response. Each is compared byte for byte (status
// line, every header in order, body) with the app's own answer to the same request, over a raw socket; the counters
// say which path answered. Everything the app must decide (tokens, held versions, tags, reads needing a token, the
// rate limit's refusal, a catalog that moved) still goes to the app.
import { connect } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryStore, serveRegistry, type Actor, type RunningRegistry } from "./index.js";
import { MALICIOUS_BODY, skillZip, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";

const INDEX = "/.well-known/agent-skills/index.json";
const FILE = "/api/v1/skills/alpha/versions/1.0.0/files/references/notes.md";

/** The whole answer to one request as it came off the socket, the Date header's value blanked. */
function raw(port: number, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("end", () =>
      resolve(
        Buffer.concat(chunks)
          .toString("latin1")
          .replace(/\r\nDate: [^\r]*/, "\r\nDate: -"),
      ),
    );
    socket.on("error", reject);
    const lines = Object.entries({ host: `127.0.0.1:${port}`, connection: "close", ...headers }).map(
      ([k, v]) => `${k}: ${v}\r\n`,
    );
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
  });
}

const status = (answer: string) => Number(answer.slice(9, 12));
const header = (answer: string, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)`, "i").exec(answer.slice(0, answer.indexOf("\r\n\r\n")))?.[1];

describe("the hot path", () => {
  let db: TestRegistryDb;
  let registry: RunningRegistry;
  let other: RegistryStore;
  let alice: Actor;
  let adminToken: string;

  beforeAll(async () => {
    db = await testRegistryDb("sqlite");
    registry = await serveRegistry({ database: db.url, blobs: db.blobs, mcp: false, rateLimit: { requests: 1000 } });
    // Another server's store on the same database: its publishes move the change counter.
    other = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    adminToken = (await other.createToken({ user: "root", scopes: ["admin"] })).token;
    alice = (await other.authenticate(
      (await other.createToken({ user: "alice", scopes: ["read", "publish"] })).token,
    )) as Actor;
    await other.publish(
      await skillZip("alpha", { files: { "references/notes.md": "# Notes\n\n<script>alert(1)</script>\n" } }),
      {},
      alice,
    );
    await other.publish(await skillZip("evil", { body: MALICIOUS_BODY }), {}, alice);
    await other.createNamespace("team", alice);
    await other.publish(await skillZip("gamma"), { namespace: "team" }, alice);
  });
  afterAll(async () => {
    await registry?.close();
    await other?.close();
    await db?.drop();
  });

  /** The first answer (the app's, unless an earlier test asked the same), then the hot path's: the same bytes. */
  async function replayed(path: string, headers: Record<string, string> = {}): Promise<string> {
    const first = await raw(registry.port, path, headers);
    const { hot } = registry.answered;
    const second = await raw(registry.port, path, headers);
    expect(registry.answered.hot).toBe(hot + 1);
    expect(second).toBe(first);
    return second;
  }

  it("answers a file by exact version as the app does: headers (type, nosniff, CSP, caching, ETag) and bytes", async () => {
    const answer = await replayed(FILE);
    expect(status(answer)).toBe(200);
    expect(header(answer, "content-type")).toBe("text/plain; charset=utf-8");
    expect(header(answer, "x-content-type-options")).toBe("nosniff");
    expect(header(answer, "content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(header(answer, "referrer-policy")).toBe("no-referrer");
    expect(header(answer, "cache-control")).toBe("public, max-age=31536000, immutable");
    expect(answer.endsWith("<script>alert(1)</script>\n")).toBe(true);
    const etag = header(answer, "etag") ?? "";
    expect(status(await replayed(FILE, { "if-none-match": etag }))).toBe(304);
    expect(status(await replayed(FILE, { "if-none-match": "*" }))).toBe(304);
    expect(status(await replayed(FILE, { "if-none-match": '"sha256-other"' }))).toBe(200);
  });

  it("answers a .skill download and the well-known indexes (root and namespace) as the app does", async () => {
    expect(header(await replayed("/api/v1/skills/alpha/versions/1.0.0/download"), "content-type")).toBe(
      "application/zip",
    );
    expect(header(await replayed("/api/v1/skills/@team/gamma/versions/1.0.0/download"), "x-skill-version")).toBe(
      "1.0.0",
    );
    const index = await replayed(INDEX);
    expect(header(index, "cache-control")).toBe("no-cache");
    expect(status(await replayed(INDEX, { "if-none-match": header(index, "etag") ?? "" }))).toBe(304);
    expect(status(await replayed(INDEX, { "if-none-match": "*" }))).toBe(200);
    expect(await replayed("/@team" + INDEX)).toContain('"name":"gamma"');
  });

  it("sends the index gzipped to a client that accepts gzip, compressed once, with its own ETag", async () => {
    const plain = await replayed(INDEX);
    const zipped = await replayed(INDEX, { "accept-encoding": "gzip, deflate, br" });
    expect(header(zipped, "content-encoding")).toBe("gzip");
    expect(header(zipped, "vary")).toBe("accept-encoding");
    expect(header(plain, "vary")).toBe("accept-encoding");
    expect(header(plain, "content-encoding")).toBeUndefined();
    const bodyOf = (answer: string) => Buffer.from(answer.slice(answer.indexOf("\r\n\r\n") + 4), "latin1");
    expect(gunzipSync(bodyOf(zipped)).equals(bodyOf(plain))).toBe(true);
    expect(bodyOf(zipped).byteLength).toBeLessThan(bodyOf(plain).byteLength);
    const etag = header(zipped, "etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(etag).not.toBe(header(plain, "etag"));
    expect(status(await replayed(INDEX, { "accept-encoding": "gzip", "if-none-match": etag }))).toBe(304);
    // Refused by q=0, or not named: the plain form.
    expect(header(await replayed(INDEX, { "accept-encoding": "gzip;q=0, identity" }), "etag")).toBe(
      header(plain, "etag"),
    );
    expect(header(await raw(registry.port, INDEX, { "accept-encoding": "br" }), "content-encoding")).toBeUndefined();
  });

  it("gives the index of the moved catalog at once after another server publishes", async () => {
    const before = await replayed(INDEX);
    await other.publish(await skillZip("beta"), {}, alice);
    const { hot } = registry.answered;
    const after = await raw(registry.port, INDEX);
    expect(registry.answered.hot).toBe(hot);
    expect(header(after, "etag")).not.toBe(header(before, "etag"));
    expect(after).toContain('"name":"beta"');
    expect(await replayed(INDEX)).toBe(after);
  });

  it("leaves to the app what the app must decide: tokens, tags, HEAD, query strings, escapes, dot segments, held versions", async () => {
    await replayed(FILE);
    const { hot } = registry.answered;
    const withToken = await raw(registry.port, FILE, { authorization: `Bearer ${adminToken}` });
    expect(header(withToken, "cache-control")).toBe("private, max-age=31536000, immutable");
    expect(status(await raw(registry.port, FILE, { authorization: "Bearer wrong" }))).toBe(401);
    const tagged = "/api/v1/skills/alpha/versions/latest/files/references/notes.md";
    for (let i = 0; i < 2; i++) expect(header(await raw(registry.port, tagged), "cache-control")).toBe("no-cache");
    expect(status(await raw(registry.port, FILE, {}, "HEAD"))).toBe(200);
    expect(status(await raw(registry.port, `${FILE}?x=1`))).toBe(200);
    // An admin reads the held version's file; anonymous requests after it are still refused, by the app.
    const held = "/api/v1/skills/evil/versions/1.0.0/files/SKILL.md";
    expect(status(await raw(registry.port, held, { authorization: `Bearer ${adminToken}` }))).toBe(200);
    for (let i = 0; i < 2; i++) expect(status(await raw(registry.port, held))).toBe(403);
    // Spellings of a replayed path or host that the app, not the hot path, must interpret: a %-escape, dot segments,
    // another case of the host (each asked twice, so a recorded answer would have been replayed the second time).
    const variants: Array<[string, Record<string, string>]> = [
      [FILE.replace("notes.md", "notes%2Emd"), {}],
      [FILE.replace("references/", "references/../references/"), {}],
      [FILE.replace("references/", "./references/"), {}],
      [FILE, { host: `LOCALHOST:${registry.port}` }],
    ];
    for (const [path, headers] of variants) for (let i = 0; i < 2; i++) await raw(registry.port, path, headers);
    expect(registry.answered.hot).toBe(hot);
  });
});

describe("the hot path and the app's rules", () => {
  let db: TestRegistryDb;
  let store: RegistryStore;

  beforeAll(async () => {
    db = await testRegistryDb("sqlite");
    store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    const token = (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
    await store.publish(
      await skillZip("alpha", { files: { "references/notes.md": "notes\n" } }),
      {},
      (await store.authenticate(token)) as Actor,
    );
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("counts its answers against the same rate limit, and the app words the refusal", async () => {
    const registry = await serveRegistry({ database: db.url, blobs: db.blobs, mcp: false, rateLimit: { requests: 3 } });
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await raw(registry.port, FILE));
      expect(answers.map(status)).toEqual([200, 200, 200, 429, 429]);
      expect(registry.answered.hot).toBe(2);
      expect(answers[3]).toContain('"code":"REGISTRY_RATE_LIMITED"');
      expect(header(answers[3] ?? "", "retry-after")).toMatch(/^\d+$/);
    } finally {
      await registry.close();
    }
  });

  it("answers nothing itself when reads need a token, or when turned off", async () => {
    for (const options of [{ readAccess: "token" as const }, { fastPath: false }]) {
      const registry = await serveRegistry({ database: db.url, blobs: db.blobs, mcp: false, ...options });
      try {
        for (let i = 0; i < 3; i++) await raw(registry.port, FILE);
        expect(registry.answered.hot).toBe(0);
      } finally {
        await registry.close();
      }
    }
  });
});
