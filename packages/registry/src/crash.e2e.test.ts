// A crash mid-publish leaves no half version: a real server process is killed with SIGKILL while uploads are in flight
// (once at the worst moment — blob written, version not committed — and then at random moments), the store is opened
// again, and every invariant holds: each version's blob is there and matches its digest, no upload row is left, and no
// blob on disk is unused. Runs the built package (test-support/server.mjs), on SQLite and on PostgreSQL.
import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { RegistryStore } from "./index.js";
import { startServerProcess, type ServerProcess } from "./test-support/processes.js";
import {
  postgresAvailable,
  publishOver,
  skillZip,
  testRegistryDb,
  type Dialect,
  type TestRegistryDb,
} from "./test-support/fixtures.js";

type Blobs = "folder" | "postgres";
const cases: Array<[Dialect, Blobs]> = [
  ["sqlite", "folder"],
  ...((await postgresAvailable())
    ? ([
        ["postgres", "folder"],
        ["postgres", "postgres"],
      ] as Array<[Dialect, Blobs]>)
    : []),
];

function blobFiles(root: string): string[] {
  const dir = path.join(root, "sha256");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** The blobs stored: files in the folder, or the digests of the chunks in the database. */
async function storedBlobs(store: RegistryStore, kind: Blobs, folder: string): Promise<string[]> {
  if (kind === "folder") return blobFiles(folder);
  const { rows } = await sql<{
    digest: string;
  }>`select distinct digest from registry_blob_chunks order by digest`.execute(store.database.kysely);
  return rows.map((r) => r.digest);
}

/** Every version's blob exists and hashes to its name; nothing else is stored; no upload rows remain. */
async function checkConsistent(store: RegistryStore, kind: Blobs, blobs: string): Promise<number> {
  const versions = (
    await sql<{ blob: string }>`select blob from registry_versions`.execute(store.database.kysely)
  ).rows.map((r) => r.blob);
  for (const blob of versions) expect(await store.blobs.get(blob), blob).toBeDefined();
  for (const f of await storedBlobs(store, kind, blobs)) {
    const name = path.basename(f);
    expect(name, "a temp file was left").toMatch(/^[0-9a-f]{64}$/);
    // A chunked blob was checked against its digest by get (which would throw); a file is hashed here.
    if (kind === "folder") expect(createHash("sha256").update(readFileSync(f)).digest("hex")).toBe(name);
    else expect(await store.blobs.get(name)).toBeDefined();
    expect(versions, `blob ${name} is stored but no version uses it`).toContain(name);
  }
  const uploads = await sql`select id from registry_uploads`.execute(store.database.kysely);
  expect(uploads.rows).toEqual([]);
  return versions.length;
}

describe.each(cases)("kill -9 during publish on %s, blobs in a %s", (dialect, blobKind) => {
  let db: TestRegistryDb | undefined;
  let server: ServerProcess | undefined;
  const blobsOf = (d: TestRegistryDb): string => (blobKind === "postgres" ? "postgres" : d.blobs);
  afterEach(async () => {
    await server?.kill9().catch(() => undefined);
    await db?.drop();
  });

  it("killed after the blob is written and before the commit: restart sweeps the orphan; nothing half-published", async () => {
    db = await testRegistryDb(dialect);
    const setup = await RegistryStore.open({ database: db.url, blobs: blobsOf(db) });
    const token = (await setup.createToken({ user: "alice", scopes: ["publish", "read"] })).token;
    await setup.close();

    // A committed version first, from a normal server.
    server = await startServerProcess(db.url, blobsOf(db));
    expect(await publishOver(server.url, token, await skillZip("steady"))).toBe(201);
    await server.stop();

    const marker = path.join(db.blobs, "..", "paused");
    server = await startServerProcess(db.url, blobsOf(db), marker);
    const inFlight = publishOver(server.url, token, await skillZip("crashy")).catch(() => "connection lost");
    for (let i = 0; i < 200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(marker)).toBe(true);
    const upload = readFileSync(marker, "utf8");
    // steady's blob and crashy's, written but not committed
    const during = await RegistryStore.open({ database: db.url, blobs: blobsOf(db), sweepOnOpen: false });
    expect(await storedBlobs(during, blobKind, db.blobs)).toHaveLength(2);
    await during.close();
    await server.kill9();
    expect(await inFlight).toBe("connection lost");
    rmSync(marker);

    const store = await RegistryStore.open({ database: db.url, blobs: blobsOf(db), sweepAfterMs: 0 });
    try {
      expect(await checkConsistent(store, blobKind, db.blobs)).toBe(1);
      expect(await storedBlobs(store, blobKind, db.blobs)).toHaveLength(1);
      expect((await store.listSkills({})).skills.map((s) => s.skill)).toEqual(["steady"]);
      const log = await sql<{
        action: string;
        target: string;
      }>`select action, target from registry_log where action = 'publish'`.execute(store.database.kysely);
      expect(log.rows.map((r) => r.target)).toEqual(["steady@1.0.0"]);
      expect(upload).toMatch(/^[0-9a-f]+$/);
      // The same upload again succeeds: the sweep left nothing in its way.
      const again = await store.publish(await skillZip("crashy"), {}, await store.authenticate(token));
      expect(again).toMatchObject({ created: true, version: { version: "1.0.0" } });
      expect(await checkConsistent(store, blobKind, db.blobs)).toBe(2);
    } finally {
      await store.close();
    }
  });

  it("killed at random moments with 12 uploads in flight, three times: every restart is consistent", async () => {
    db = await testRegistryDb(dialect);
    const setup = await RegistryStore.open({ database: db.url, blobs: blobsOf(db) });
    const token = (await setup.createToken({ user: "alice", scopes: ["publish", "read"] })).token;
    await setup.close();
    let published = 0;
    for (let round = 0; round < 3; round++) {
      server = await startServerProcess(db.url, blobsOf(db));
      const archives = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          skillZip(`skill-${round}-${i}`, { files: { "data.txt": "x".repeat(20_000 + i) } }),
        ),
      );
      const results = archives.map((a) => publishOver(server!.url, token, a).catch(() => 0));
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 60)));
      await server.kill9();
      const statuses = await Promise.all(results);
      const store = await RegistryStore.open({ database: db.url, blobs: blobsOf(db), sweepAfterMs: 0 });
      try {
        const count = await checkConsistent(store, blobKind, db.blobs);
        // Every 201 the client saw is a committed version (more may have committed after the answer was lost).
        expect(count).toBeGreaterThanOrEqual(published + statuses.filter((s) => s === 201).length);
        published = count;
      } finally {
        await store.close();
      }
    }
  });
});
