// SQLite statements are prepared once per SQL text and kept (connection.ts): what could go wrong with a kept
// statement — other parameters, a schema change under it, a streamed read left early, more texts than are kept —
// still gives the right rows.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlDatabase } from "./connection.js";

describe("kept SQLite statements", () => {
  let dir: string;
  let db: SqlDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "skillport-sql-statements-"));
    db = await SqlDatabase.open(`sqlite:${path.join(dir, "x.db")}`);
    await sql`create table t (id integer primary key, name text not null)`.execute(db.kysely);
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("run again with other parameters, and after the table changed shape", async () => {
    for (let i = 1; i <= 5; i++) await sql`insert into t (id, name) values (${i}, ${`n${i}`})`.execute(db.kysely);
    const byId = async (id: number) =>
      (await sql<{ name: string }>`select name from t where id = ${id}`.execute(db.kysely)).rows[0]?.name;
    expect([await byId(2), await byId(4), await byId(9)]).toEqual(["n2", "n4", undefined]);
    const all = async () => (await sql<Record<string, unknown>>`select * from t where id = 1`.execute(db.kysely)).rows;
    expect(await all()).toEqual([{ id: 1, name: "n1" }]);
    await sql`alter table t add column extra text not null default 'x'`.execute(db.kysely);
    expect(await all()).toEqual([{ id: 1, name: "n1", extra: "x" }]);
  });

  it("a streamed read left early frees its statement for the next query", async () => {
    const query = db.kysely.selectFrom("t" as never).select(sql`id`.as("id"));
    for await (const row of query.stream()) {
      expect(row).toEqual({ id: 1 });
      break;
    }
    expect((await query.execute()).length).toBe(5);
  });

  it("more distinct texts than are kept all still answer", async () => {
    for (let i = 0; i < 300; i++) {
      const rows = (await sql<{ v: number }>`select ${sql.lit(i)} + id as v from t where id = 1`.execute(db.kysely))
        .rows;
      expect(rows[0]?.v).toBe(i + 1);
    }
  });
});
