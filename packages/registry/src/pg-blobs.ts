import { sql } from "kysely";
import { withMigrationLock, type SqlDatabase } from "@skillport/sql";
import { sha256Hex, type BlobStore } from "./blobs.js";
import { RegistryError } from "./errors.js";

/** Bytes per row: a 16 MiB upload is 16 rows. */
const CHUNK_BYTES = 1024 * 1024;
const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Blobs in the registry's own PostgreSQL database, for several instances without a shared folder: `bytea` chunks of
 * 1 MiB in `registry_blob_chunks (digest, seq, bytes)`, all chunks of a blob written in one transaction (a reader sees
 * none or all; a crash mid-write leaves nothing, since the server rolls the transaction back), and every read checked
 * against the digest. The table is created by the store itself under the sql package's migration lock.
 */
export class PostgresBlobStore implements BlobStore {
  readonly database: SqlDatabase;

  constructor(database: SqlDatabase) {
    if (database.dialect !== "postgres")
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `blobs in the database need PostgreSQL; ${database.display} is ${database.dialect}`,
      );
    this.database = database;
  }

  /** Opens the store on `database`, creating its table when missing. */
  static async open(database: SqlDatabase): Promise<PostgresBlobStore> {
    const store = new PostgresBlobStore(database);
    await store.prepare();
    return store;
  }

  /** Creates the chunk table when missing (once, under the migration lock: several servers may start together). */
  async prepare(): Promise<void> {
    await withMigrationLock(this.database, "skillport-registry-blobs", async (db) => {
      await sql`create table if not exists registry_blob_chunks (digest varchar(64) not null, seq integer not null, bytes bytea not null, primary key (digest, seq))`.execute(
        db,
      );
    });
  }

  /** `_upload` names nothing here: an unfinished write is a rolled-back transaction, never a temp entry. */
  async put(digest: string, bytes: Uint8Array, _upload: string): Promise<void> {
    checkDigest(digest);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    await this.database.kysely.transaction().execute(async (trx) => {
      // Content-addressed: the same digest is the same bytes. Publishers of one blob queue on its first chunk's row;
      // whoever comes second finds the blob whole and writes nothing.
      const first =
        await sql`insert into registry_blob_chunks (digest, seq, bytes) values (${digest}, 0, ${buffer.subarray(0, CHUNK_BYTES)}) on conflict (digest, seq) do nothing`.execute(
          trx,
        );
      if (Number(first.numAffectedRows ?? 0) === 0) return;
      for (let seq = 1; seq * CHUNK_BYTES < buffer.byteLength; seq++)
        await sql`insert into registry_blob_chunks (digest, seq, bytes) values (${digest}, ${seq}, ${buffer.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES)})`.execute(
          trx,
        );
    });
  }

  async get(digest: string): Promise<Uint8Array | undefined> {
    checkDigest(digest);
    // As base64 rather than bytea's hex text: a third less to send and decode (1 MiB read: ~30% less time, ~45% less
    // client CPU, measured under load); Node's decoder skips the line breaks PostgreSQL puts in.
    const { rows } = await sql<{
      b64: string;
    }>`select encode(bytes, 'base64') as b64 from registry_blob_chunks where digest = ${digest} order by seq`.execute(
      this.database.kysely,
    );
    if (rows.length === 0) return undefined;
    const bytes = Buffer.concat(rows.map((r) => Buffer.from(r.b64, "base64")));
    if (sha256Hex(bytes) !== digest)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `blob ${digest.slice(0, 12)}… is damaged in the store (its bytes do not match its digest)`,
      );
    return bytes;
  }

  async remove(digest: string): Promise<void> {
    checkDigest(digest);
    await sql`delete from registry_blob_chunks where digest = ${digest}`.execute(this.database.kysely);
  }

  /** Nothing to do: an unfinished write is a rolled-back transaction, never a leftover. */
  async discardUpload(): Promise<void> {}
}

function checkDigest(digest: string): void {
  if (!DIGEST.test(digest))
    throw new RegistryError("REGISTRY_BAD_REQUEST", "a blob digest is 64 lowercase hex characters");
}
