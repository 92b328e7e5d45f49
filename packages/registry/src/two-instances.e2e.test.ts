// Two registry processes on one PostgreSQL (a fresh schema in the `test` database) while 8 publishers publish at once,
// each to both servers in turn: every publish gets a distinct version, nothing is lost, and afterwards both servers
// give the same answers — listings, search, every version, the well-known index — byte for byte (URLs aside).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryStore } from "./index.js";
import { postgresAvailable, skillZip, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";
import { startServerProcess, type ServerProcess } from "./test-support/processes.js";

const available = await postgresAvailable();
const PUBLISHERS = 8;
const ROUNDS = 4;

// Blobs in a shared folder, and in the database itself (`--blobs postgres`: no shared volume).
describe.skipIf(!available).each(["folder", "postgres"] as const)(
  "two server processes on one PostgreSQL, blobs in a %s",
  (blobKind) => {
    let db: TestRegistryDb;
    const servers: ServerProcess[] = [];
    const tokens: string[] = [];

    beforeAll(async () => {
      db = await testRegistryDb("postgres");
      const store = await RegistryStore.open({
        database: db.url,
        blobs: blobKind === "postgres" ? "postgres" : db.blobs,
      });
      for (let i = 0; i < PUBLISHERS; i++)
        tokens.push((await store.createToken({ user: `user${i}`, scopes: ["read", "publish"] })).token);
      const owner = await store.authenticate(tokens[0] as string);
      await store.createNamespace("team", owner!);
      for (let i = 1; i < PUBLISHERS; i++) await store.setMember("team", `user${i}`, "member", owner!);
      await store.close();
      // Both servers share the database and the blob folder (the multi-instance layout: a shared volume).
      const blobs = blobKind === "postgres" ? "postgres" : db.blobs;
      servers.push(await startServerProcess(db.url, blobs), await startServerProcess(db.url, blobs));
    }, 120_000);

    afterAll(async () => {
      for (const s of servers) await s.stop().catch(() => undefined);
      await db?.drop();
    });

    async function publish(
      url: string,
      token: string,
      archive: Uint8Array,
      fields: Record<string, string>,
    ): Promise<{ status: number; version?: string }> {
      const form = new FormData();
      form.set("archive", new Blob([archive]), "s.zip");
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      const res = await fetch(`${url}/api/v1/skills`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const body = (await res.json()) as { version?: { version: string } };
      return { status: res.status, version: body.version?.version };
    }

    it("8 concurrent publishers through both servers: distinct versions, none lost, the same answers from each", async () => {
      const results = await Promise.all(
        tokens.map(async (token, p) => {
          const out: Array<{ status: number; version?: string }> = [];
          for (let r = 0; r < ROUNDS; r++) {
            const server = servers[(p + r) % 2] as ServerProcess;
            // One shared skill everyone bumps (auto versions), one skill of their own, and a re-publish of known bytes.
            out.push(
              await publish(
                server.url,
                token,
                await skillZip("shared", { body: `# shared\n\nby ${p} in round ${r}\n` }),
                { namespace: "team" },
              ),
            );
            out.push(
              await publish(server.url, token, await skillZip(`own-${p}`, { body: `# own ${p}\n\nround ${r}\n` }), {}),
            );
            out.push(
              await publish(server.url, token, await skillZip("shared", { body: `# shared\n\nby ${p} in round 0\n` }), {
                namespace: "team",
              }),
            );
            // Reads in between make each server build (and keep) catalog snapshots while the other one writes.
            for (const s of servers) await (await fetch(`${s.url}/api/v1/skills?q=shared`)).arrayBuffer();
          }
          return out;
        }),
      );
      const flat = results.flat();
      expect(flat.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
      const sharedVersions = results.flatMap((rs) => rs.filter((_, i) => i % 3 === 0).map((r) => r.version));
      expect(new Set(sharedVersions).size).toBe(PUBLISHERS * ROUNDS);

      const fetchJson = async (url: string) => {
        const res = await fetch(url);
        expect(res.status, url).toBe(200);
        return (await res.text()).replaceAll(servers[0]!.url, "ORIGIN").replaceAll(servers[1]!.url, "ORIGIN");
      };
      const paths = [
        "/api/v1/skills?limit=100",
        "/api/v1/skills?q=shared",
        "/api/v1/skills/@team/shared",
        "/.well-known/agent-skills/index.json",
        "/@team/.well-known/agent-skills/index.json",
        // Bytes through each server's blob store (a folder both mount, or the database).
        "/api/v1/skills/@team/shared/versions/1.0.0/download",
        `/api/v1/skills/own-0/versions/1.0.${ROUNDS - 1}/files/SKILL.md`,
        ...Array.from({ length: PUBLISHERS * ROUNDS }, (_, i) => `/api/v1/skills/@team/shared/versions/1.0.${i}`),
      ];
      for (const path of paths) {
        const [a, b] = await Promise.all(servers.map((s) => fetchJson(`${s.url}${path}`)));
        expect(a, path).toBe(b);
      }
      const list = JSON.parse(await fetchJson(`${servers[0]!.url}/api/v1/skills?limit=100`)) as { total: number };
      expect(list.total).toBe(PUBLISHERS + 1);
      const shared = JSON.parse(await fetchJson(`${servers[1]!.url}/api/v1/skills/@team/shared`)) as {
        version: string;
        versions: unknown[];
      };
      expect(shared.versions).toHaveLength(PUBLISHERS * ROUNDS);
      expect(shared.version).toBe(`1.0.${PUBLISHERS * ROUNDS - 1}`);
    }, 300_000);
  },
);
