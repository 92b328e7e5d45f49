import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SkillServer } from "./server.js";
import { serveHttp, type HttpServeHandle, type HttpServeOptions } from "./http.js";
import { folderRegistry, httpClient } from "./test-support/clients.js";

const TOKEN = "test-token-0123456789abcdef";
const VERSION = "2025-11-25";
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-mcp-fast-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function skillDir(root: string, name: string, body = "# Body\n"): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill. Use when testing.\n---\n${body}`,
  );
  return dir;
}

/** Five skills; alpha has nested folders, a binary file and text JSON must escape (quotes, controls, U+2028, emoji). */
function corpus(root: string): void {
  for (const n of ["alpha", "beta", "gamma", "delta", "epsilon"]) skillDir(root, n);
  const alpha = path.join(root, "alpha");
  mkdirSync(path.join(alpha, "references", "deep"), { recursive: true });
  writeFileSync(path.join(alpha, "references", "guide.md"), 'Say "hi"\\n\ttab \u2028 line sep, é, 数据, 🙂\n');
  writeFileSync(path.join(alpha, "references", "deep", "x.txt"), "x");
  writeFileSync(path.join(alpha, "references", "a.json"), '{"a": 1}\n');
  writeFileSync(path.join(alpha, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 0xff]));
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A 2025-era session opened over plain HTTP, and requests in it exactly as a client sends them. */
async function session(http: HttpServeHandle) {
  const post = async (message: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(http.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: typeof message === "string" ? message : JSON.stringify(message),
    });
    const out: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (key !== "date") out[key] = value;
    });
    return { status: res.status, headers: out, body: await res.text() };
  };
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const sid = init.headers["mcp-session-id"];
  if (sid === undefined) throw new Error(`no session: ${init.body}`);
  const inSession = { "mcp-session-id": sid, "mcp-protocol-version": VERSION };
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, inSession);
  return {
    sid,
    rpc: (message: unknown, headers: Record<string, string> = {}) => post(message, { ...inSession, ...headers }),
  };
}

async function serveTwice(root: string, options: HttpServeOptions = {}) {
  const skills = await SkillServer.create(await folderRegistry(root), { watch: false, pageSize: 2 });
  cleanup.push(() => skills.close());
  const fast = await serveHttp(skills, { token: TOKEN, rateLimit: 1_000_000, ...options });
  cleanup.push(() => fast.close());
  const sdk = await serveHttp(skills, { token: TOKEN, rateLimit: 1_000_000, fastPath: false });
  cleanup.push(() => sdk.close());
  return { skills, fast, sdk, a: await session(fast), b: await session(sdk) };
}

/** The answer with the session id taken out (the two sessions' ids differ, nothing else may). */
function sameBut(answer: Answer, sid: string): Answer {
  return {
    ...answer,
    headers: { ...answer.headers, "mcp-session-id": answer.headers["mcp-session-id"] === sid ? "S" : "?" },
  };
}

describe("answers from the snapshot (the fast path of 2025-era sessions)", () => {
  it("every request kind answers byte for byte what the SDK answers, headers included; errors stay the SDK's", async () => {
    const root = path.join(tmp, "same");
    corpus(root);
    const { fast, sdk, a, b } = await serveTwice(root);
    const cursor = (
      JSON.parse((await b.rpc({ jsonrpc: "2.0", id: 1, method: "skills/list", params: {} })).body) as {
        result: { nextCursor: string };
      }
    ).result.nextCursor;
    // Every page, to find alpha wherever it sorts.
    const entries: Array<{ uri: string; frontmatter: { name: string }; resources: Array<{ uri: string }> }> = [];
    for (let c: string | undefined, i = 0; i === 0 || c !== undefined; i++) {
      const page = JSON.parse(
        (await b.rpc({ jsonrpc: "2.0", id: 1, method: "skills/list", params: c === undefined ? {} : { cursor: c } }))
          .body,
      ) as { result: { skills: typeof entries; nextCursor?: string } };
      entries.push(...page.result.skills);
      c = page.result.nextCursor;
    }
    const alpha = entries.find((s) => s.frontmatter.name === "alpha");
    if (alpha === undefined) throw new Error("alpha missing");
    const rootUri = alpha.uri.slice(0, -"/SKILL.md".length);
    const rootPage = JSON.parse(
      (await b.rpc({ jsonrpc: "2.0", id: 1, method: "resources/directory/read", params: { uri: rootUri } })).body,
    ) as { result: { nextCursor: string } };

    const served: unknown[] = [
      { jsonrpc: "2.0", id: 7, method: "skills/list" },
      { jsonrpc: "2.0", id: "s-1", method: "skills/list", params: {} },
      { jsonrpc: "2.0", id: 8, method: "skills/list", params: { cursor } },
      { jsonrpc: "2.0", id: 9, method: "skills/get", params: { uri: alpha.uri } },
      ...alpha.resources.map((r, i) => ({
        jsonrpc: "2.0",
        id: 100 + i,
        method: "resources/read",
        params: { uri: r.uri },
      })),
      { jsonrpc: "2.0", id: 10, method: "resources/directory/read", params: { uri: rootUri } },
      {
        jsonrpc: "2.0",
        id: 11,
        method: "resources/directory/read",
        params: { uri: rootUri, cursor: rootPage.result.nextCursor },
      },
      { jsonrpc: "2.0", id: 12, method: "resources/directory/read", params: { uri: `${rootUri}/references` } },
      { jsonrpc: "2.0", id: 13, method: "resources/directory/read", params: { uri: `${rootUri}/` } },
    ];
    const sdkBefore = sdk.answered.sdk;
    for (const message of served) {
      const want = await b.rpc(message);
      const got = await a.rpc(message);
      expect(sameBut(got, a.sid), JSON.stringify(message)).toEqual(sameBut(want, b.sid));
      expect(got.status).toBe(200);
    }
    expect(fast.answered.fast).toBe(served.length);
    expect(sdk.answered.fast).toBe(0);
    expect(sdk.answered.sdk - sdkBefore).toBe(served.length);
    // The blob and the escapes really were exercised.
    const bodies = await Promise.all(
      alpha.resources.map((r) => a.rpc({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: r.uri } })),
    );
    expect(bodies.some((x) => x.body.includes('"blob":"iVBORwAAAf8="'))).toBe(true);
    expect(bodies.some((x) => x.body.includes("\u2028") && x.body.includes('\\"hi\\"'))).toBe(true);

    // Answers the snapshot cannot give alone, or that are errors, are the SDK's: same bytes on both servers.
    const fastBefore = fast.answered.fast;
    const declined: Array<[unknown, Record<string, string>?]> = [
      [{ jsonrpc: "2.0", id: 20, method: "skills/get", params: { uri: `${rootUri}/nope/SKILL.md` } }],
      [{ jsonrpc: "2.0", id: 21, method: "resources/read", params: { uri: `${rootUri}/missing.md` } }],
      [{ jsonrpc: "2.0", id: 22, method: "skills/list", params: { cursor: "not-a-cursor" } }],
      [{ jsonrpc: "2.0", id: 23, method: "resources/read", params: { uri: `${alpha.uri}#frag` } }],
      [{ jsonrpc: "2.0", id: 24, method: "skills/list", params: { _meta: { progressToken: 1 } } }],
      [{ jsonrpc: "2.0", id: 26, method: "tools/list" }],
      [[{ jsonrpc: "2.0", id: 27, method: "skills/list" }]],
      [{ jsonrpc: "2.0", id: 28, method: "skills/list" }, { "mcp-protocol-version": "2025-06-18" }],
      [{ jsonrpc: "2.0", id: 29, method: "skills/list" }, { accept: "application/json" }],
      [{ jsonrpc: "2.0", id: 30, method: "skills/list" }, { "content-type": "text/plain" }],
      [{ jsonrpc: "2.0", id: 31.5, method: "skills/list" }],
      ["{not json"],
    ];
    for (const [message, headers] of declined) {
      const want = await b.rpc(message, headers);
      const got = await a.rpc(message, headers);
      expect(sameBut(got, a.sid), JSON.stringify(message)).toEqual(sameBut(want, b.sid));
    }
    expect(fast.answered.fast).toBe(fastBefore);
  });

  it("a snapshot swap invalidates the serialised answers: new pages and files at once, a retained version from the SDK", async () => {
    const root = path.join(tmp, "swap");
    corpus(root);
    const { skills, fast, a, b } = await serveTwice(root);
    const walk = async (rpc: typeof a.rpc) => {
      const out: Array<{ uri: string; frontmatter: { name: string; description: string } }> = [];
      for (let c: string | undefined, i = 0; i === 0 || c !== undefined; i++) {
        const page = JSON.parse(
          (await rpc({ jsonrpc: "2.0", id: i, method: "skills/list", params: c === undefined ? {} : { cursor: c } }))
            .body,
        ) as { result: { skills: typeof out; nextCursor?: string } };
        out.push(...page.result.skills);
        c = page.result.nextCursor;
      }
      return out;
    };
    const before = await walk(a.rpc);
    const oldBeta = before.find((s) => s.frontmatter.name === "beta");
    if (oldBeta === undefined) throw new Error("beta missing");
    const read = (rpc: typeof a.rpc, uri: string) =>
      rpc({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri } }).then(
        (r) => JSON.parse(r.body) as { result?: { contents: Array<{ text: string }> }; error?: { code: number } },
      );
    expect((await read(a.rpc, oldBeta.uri)).result?.contents[0]?.text).toContain("# Body");

    skillDir(root, "beta", "# Changed body\n");
    const change = await skills.refresh();
    expect(change.changed).toEqual(["beta"]);
    const after = await walk(a.rpc);
    expect(after).toEqual(await walk(b.rpc));
    const newBeta = after.find((s) => s.frontmatter.name === "beta");
    if (newBeta === undefined) throw new Error("beta missing");
    expect(newBeta.uri).not.toBe(oldBeta.uri);
    expect((await read(a.rpc, newBeta.uri)).result?.contents[0]?.text).toContain("# Changed body");
    // The replaced version is still readable (retained), answered by the SDK, with its own old bytes.
    const counted = fast.answered.fast;
    const old = await read(a.rpc, oldBeta.uri);
    expect(old.result?.contents[0]?.text).toContain("# Body");
    expect(old.result?.contents[0]?.text).not.toContain("Changed");
    expect(fast.answered.fast).toBe(counted);
  });

  it("the guards and the session check run before it: token, Host, rate limit, body size, unknown or closed session", async () => {
    const root = path.join(tmp, "guards");
    corpus(root);
    const skills = await SkillServer.create(await folderRegistry(root), { watch: false });
    cleanup.push(() => skills.close());
    const http = await serveHttp(skills, { token: TOKEN, rateLimit: 12, maxBodyBytes: 512 });
    cleanup.push(() => http.close());
    const { sid, rpc } = await session(http);
    const list = { jsonrpc: "2.0", id: 1, method: "skills/list" };
    expect((await rpc(list)).status).toBe(200);
    expect(http.answered.fast).toBe(1);
    expect((await rpc(list, { authorization: "Bearer wrong-wrong-wrong-wrong" })).status).toBe(401);
    expect((await rpc(list, { authorization: "" })).status).toBe(401);
    expect((await rpc(list, { origin: "https://evil.example" })).status).toBe(403);
    expect((await rpc({ ...list, params: { cursor: "x".repeat(600) } })).status).toBe(413);
    const unknown = await rpc(list, { "mcp-session-id": "00000000-0000-4000-8000-000000000000" });
    expect([unknown.status, unknown.body]).toEqual([404, expect.stringContaining("Session not found")]);
    const closed = await fetch(http.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": sid, "mcp-protocol-version": VERSION },
    });
    expect(closed.status).toBe(200);
    expect((await rpc(list)).status).toBe(404);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await rpc(list)).status);
    expect(statuses).toContain(429);
    expect(http.answered.fast).toBe(1);
  });

  it("2026-07-28 requests (per request, no session) are the SDK's", async () => {
    const root = path.join(tmp, "modern");
    corpus(root);
    const skills = await SkillServer.create(await folderRegistry(root), { watch: false });
    cleanup.push(() => skills.close());
    const http = await serveHttp(skills, { token: TOKEN, rateLimit: 1_000_000 });
    cleanup.push(() => http.close());
    const client = await httpClient(http.url, TOKEN, "modern");
    cleanup.push(client.close);
    const listing = await client.skills.list();
    expect(listing).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(await client.skills.read(listing.skills[0] as (typeof listing.skills)[number])).toMatchObject({
      verified: true,
    });
    expect(http.answered.fast).toBe(0);
    expect(http.answered.sdk).toBeGreaterThan(0);
  });
});
