// The PostgreSQL blob store: chunks written in one transaction, read back whole and checked against the digest;
// the same blob twice at once is stored once; damaged bytes are refused, never served; `--blobs postgres` is the
// default of a PostgreSQL registry and publish/download go through it.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { SqlDatabase } from "@skillport/sql";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresBlobStore, RegistryStore } from "./index.js";
import { sha256Hex } from "./blobs.js";
import { postgresAvailable, skillZip, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";

const available = await postgresAvailable();

describe.skipIf(!available)("PostgresBlobStore", () => {
  let db: TestRegistryDb | undefined;
  let database: SqlDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    await db?.drop();
  });

  async function open(): Promise<PostgresBlobStore> {
    db = await testRegistryDb("postgres");
    database = await SqlDatabase.open(db.url);
    return PostgresBlobStore.open(database);
  }

  it("stores 2.5 MiB as three chunks in one go, reads them back verified, removes them", async () => {
    const blobs = await open();
    const bytes = randomBytes(2.5 * 1024 * 1024);
    const digest = sha256Hex(bytes);
    expect(await blobs.get(digest)).toBeUndefined();
    await blobs.put(digest, bytes, "0123456789ab");
    const rows = await sql<{
      n: number | string;
    }>`select count(*) as n from registry_blob_chunks where digest = ${digest}`.execute(database!.kysely);
    expect(Number(rows.rows[0]?.n)).toBe(3);
    expect(Buffer.from((await blobs.get(digest))!).equals(bytes)).toBe(true);
    await blobs.remove(digest);
    expect(await blobs.get(digest)).toBeUndefined();
  });

  it("the same blob put eight times at once is stored once and whole", async () => {
    const blobs = await open();
    const bytes = randomBytes(1.5 * 1024 * 1024);
    const digest = sha256Hex(bytes);
    await Promise.all(Array.from({ length: 8 }, (_, i) => blobs.put(digest, bytes, `00000000000${i}`)));
    const rows = await sql<{
      seq: number;
    }>`select seq from registry_blob_chunks where digest = ${digest} order by seq`.execute(database!.kysely);
    expect(rows.rows.map((r) => Number(r.seq))).toEqual([0, 1]);
    expect(Buffer.from((await blobs.get(digest))!).equals(bytes)).toBe(true);
  });

  it("refuses bytes that no longer match their digest", async () => {
    const blobs = await open();
    const bytes = Buffer.from("package bytes");
    const digest = sha256Hex(bytes);
    await blobs.put(digest, bytes, "0123456789ab");
    await sql`update registry_blob_chunks set bytes = ${Buffer.from("tampered bytes")} where digest = ${digest}`.execute(
      database!.kysely,
    );
    await expect(blobs.get(digest)).rejects.toThrow(/damaged/);
  });

  it("a registry opened with blobs: 'postgres' publishes into the database and downloads from it", async () => {
    db = await testRegistryDb("postgres");
    const store = await RegistryStore.open({ database: db.url, blobs: "postgres" });
    try {
      expect(store.blobs).toBeInstanceOf(PostgresBlobStore);
      const alice = await store.authenticate((await store.createToken({ user: "alice", scopes: ["publish"] })).token);
      const { version } = await store.publish(
        await skillZip("in-db", { files: { "data.txt": "x".repeat(5000) } }),
        {},
        alice,
      );
      const download = await store.download("", "in-db", "1.0.0", undefined);
      expect(`sha256:${download.digest}`).toBe(version.digest);
      expect((await store.readFile("", "in-db", "1.0.0", "data.txt", undefined)).bytes.byteLength).toBe(5000);
    } finally {
      await store.close();
    }
  });

  it("is refused on SQLite with one clear message", async () => {
    db = await testRegistryDb("sqlite");
    await expect(RegistryStore.open({ database: db.url, blobs: "postgres" })).rejects.toThrow(
      /blobs in the database need PostgreSQL/,
    );
  });
});
