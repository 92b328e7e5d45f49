// MCP at /mcp on a running registry (SQLite): the SDK's client lists, gets and reads the published skills with every
// file verified against its digest, held and yanked versions are never served, a publish swaps the snapshot, and the
// registry's token rule and the MCP server's Host check apply. The skill page's MCP line, in process.
import { createHash } from "node:crypto";
import { request } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, describe, expect, it } from "vitest";
import { createRegistryApp, RegistryStore, serveRegistry, type RunningRegistry } from "./index.js";
import { MALICIOUS_BODY, publishOver, skillZip, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function start(options: { readAccess?: "public" | "token" } = {}) {
  const db: TestRegistryDb = await testRegistryDb("sqlite");
  cleanup.push(() => db.drop());
  const registry = await serveRegistry({
    database: db.url,
    blobs: db.blobs,
    rateLimit: { requests: 1e6 },
    ...options,
  });
  cleanup.push(() => registry.close());
  const token = (await registry.store.createToken({ user: "alice", scopes: ["read", "publish"] })).token;
  const alice = (await registry.store.authenticate(token))!;
  return { registry, token, alice };
}

async function connect(url: string, era: "legacy" | "modern", token?: string) {
  const client = new Client(
    { name: "registry-test", version: "1.0.0" },
    { versionNegotiation: { mode: era === "modern" ? "auto" : "legacy" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
    ),
  );
  cleanup.push(() => client.close());
  return new SkillsClient(client);
}

/** Resolves when the registry's MCP snapshot has `name` (or, with `gone`, no longer has it). */
function swapped(registry: RunningRegistry, name: string, gone = false): Promise<void> {
  return new Promise((resolve) => {
    const off = registry.mcp!.server.onChange((change) => {
      if ((gone ? change.removed : [...change.added, ...change.changed]).includes(name)) {
        off();
        resolve();
      }
    });
  });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("the registry's /mcp", () => {
  for (const era of ["legacy", "modern"] as const) {
    it(`${era}: lists the current version of each published skill, reads every file verified; held and yanked are not served; a publish appears`, async () => {
      const { registry, token, alice } = await start();
      const { store } = registry;
      await store.publish(
        await skillZip("pdf-tools", {
          files: { "references/forms.md": "# Forms v1\n", "scripts/fill.py": "print(1)\n" },
        }),
        {},
        alice,
      );
      const v2 = await store.publish(
        await skillZip("pdf-tools", {
          files: { "references/forms.md": "# Forms v2\n", "scripts/fill.py": "print(2)\n" },
        }),
        {},
        alice,
      );
      await store.publish(await skillZip("csv-clean"), {}, alice);
      await store.publish(await skillZip("setup-helper", { body: MALICIOUS_BODY }), {}, alice);
      await store.publish(await skillZip("old-news"), {}, alice);
      await store.setYanked("", "old-news", "1.0.0", true, "withdrawn", alice);
      // Each publish swaps the snapshot in the background; sync waits until it matches the database.
      await registry.mcp!.sync();

      const client = await connect(`${registry.url}/mcp`, era);
      expect(client.supported).toBe(true);
      const listing = await client.list();
      expect(listing.skills.map((s) => s.frontmatter.name).sort()).toEqual(["csv-clean", "pdf-tools"]);
      const pdf = listing.skills.find((s) => s.frontmatter.name === "pdf-tools")!;
      expect((await client.get(pdf.uri)).skill.uri).toBe(pdf.uri);
      if (pdf.resources === "dynamic") throw new Error("dynamic entry");
      const digests = new Map(v2.version.files.map((f) => [f.path, f.sha256]));
      expect(pdf.resources.length).toBe(digests.size);
      for (const resource of pdf.resources) {
        const file = await client.read(pdf, resource.uri);
        expect(file.verified).toBe(true);
        const path = decodeURIComponent(resource.uri.slice(pdf.uri.length - "SKILL.md".length));
        expect(sha256(file.bytes), path).toBe(digests.get(path));
      }
      expect((await client.read(pdf, "references/forms.md")).text).toBe("# Forms v2\n");

      // A 2025-era session is told at once (list_changed); with no session open (stateless 2026-07-28 requests) the
      // snapshot is only marked stale and the next request brings it up to date first.
      const appeared = era === "legacy" ? swapped(registry, "fresh") : undefined;
      expect(await publishOver(registry.url, token, await skillZip("fresh"))).toBe(201);
      await appeared;
      if (era === "modern") {
        // Nothing rebuilt in the meantime (a rebuild re-reads the whole catalog): stale until asked.
        await new Promise((r) => setTimeout(r, 500));
        expect(registry.mcp!.server.snapshot.skills.map((s) => s.name)).not.toContain("fresh");
      }
      expect((await client.list()).skills.map((s) => s.frontmatter.name).sort()).toEqual([
        "csv-clean",
        "fresh",
        "pdf-tools",
      ]);
      const gone = era === "legacy" ? swapped(registry, "csv-clean", true) : undefined;
      await store.setYanked("", "csv-clean", "1.0.0", true, "withdrawn", alice);
      await gone;
      expect((await client.list()).skills.map((s) => s.frontmatter.name).sort()).toEqual(["fresh", "pdf-tools"]);
    });
  }

  it("a registry whose reads need a token asks for one at /mcp; a foreign Host is refused", async () => {
    const { registry, token, alice } = await start({ readAccess: "token" });
    await registry.store.publish(await skillZip("csv-clean"), {}, alice);
    await registry.mcp!.sync();
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const anonymous = await fetch(`${registry.url}/mcp`, { method: "POST", headers, body: initialize });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("REGISTRY_UNAUTHORIZED");
    const client = await connect(`${registry.url}/mcp`, "legacy", token);
    expect((await client.list()).skills.map((s) => s.frontmatter.name)).toEqual(["csv-clean"]);
    const rebinding = await rawPost(`${registry.url}/mcp`, "evil.example:80", token, initialize);
    expect(rebinding.status).toBe(403);
    expect(rebinding.text).toContain("DNS rebinding");
  });
});

describe("two registries on one SQLite file", () => {
  it("the other one's /mcp learns of a publish by polling the change counter", async () => {
    const db = await testRegistryDb("sqlite");
    cleanup.push(() => db.drop());
    const open = async () => {
      const r = await serveRegistry({ database: db.url, blobs: db.blobs, mcp: { pollIntervalMs: 50 } });
      cleanup.push(() => r.close());
      return r;
    };
    const a = await open();
    const b = await open();
    expect(b.mcp!.notified).toBe(false);
    const token = (await a.store.createToken({ user: "alice", scopes: ["publish"] })).token;
    // A client with a session on B: B applies changes as they come instead of at its next request.
    await connect(`${b.url}/mcp`, "legacy");
    const appeared = swapped(b, "fresh");
    expect(await publishOver(a.url, token, await skillZip("fresh"))).toBe(201);
    await appeared;
    expect(b.mcp!.server.snapshot.skills.map((s) => s.name)).toEqual(["fresh"]);
  });
});

describe("the skill page's MCP line", () => {
  it("shows `claude mcp add … /mcp` when the app mounts MCP, and not otherwise", async () => {
    const db = await testRegistryDb("sqlite");
    cleanup.push(() => db.drop());
    const store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    cleanup.push(() => store.close());
    const alice = await store.authenticate(
      (await store.createToken({ user: "alice", scopes: ["read", "publish"] })).token,
    );
    await store.publish(await skillZip("csv-clean"), {}, alice);
    const { RegistryMcp } = await import("./index.js");
    const mcp = await RegistryMcp.open(store);
    cleanup.push(() => mcp.close());
    const line = "claude mcp add --transport http skillport-registry http://localhost/mcp";
    const page = async (app: ReturnType<typeof createRegistryApp>) =>
      (await app.request("http://localhost/ui/skills/csv-clean")).text();
    expect(await page(createRegistryApp(store, { modules: [mcp.module] }))).toContain(line);
    expect(await page(createRegistryApp(store))).not.toContain("claude mcp add");
  });
});

/** fetch cannot set Host: a raw request claiming another host name (what a DNS-rebinding page sends). */
function rawPost(url: string, host: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          host,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
