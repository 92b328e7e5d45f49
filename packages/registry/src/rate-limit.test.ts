// Rate limits shared by the processes of one registry on PostgreSQL (decision 0419): two apps on two stores on one
// database stand for two servers behind a load balancer; one client's requests through both count against one limit.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistryHttp, type RegistryHttp } from "./http/app.js";
import { WindowCounter } from "./http/rate-limit.js";
import { RegistryStore } from "./index.js";
import { postgresAvailable, testRegistryDb, type TestRegistryDb } from "./test-support/fixtures.js";

const LIST = "/api/v1/skills";

describe.skipIf(!(await postgresAvailable()))("rate limits shared on PostgreSQL", () => {
  let db: TestRegistryDb;
  let stores: RegistryStore[];
  let one: RegistryHttp;
  let two: RegistryHttp;

  beforeAll(async () => {
    db = await testRegistryDb("postgres");
    stores = [
      await RegistryStore.open({ database: db.url, blobs: db.blobs }),
      await RegistryStore.open({ database: db.url, blobs: db.blobs }),
    ];
    // A long sync interval: the test decides when hits are exchanged.
    const options = { rateLimit: { requests: 10, syncMs: 3_600_000 } };
    one = createRegistryHttp(stores[0] as RegistryStore, options);
    two = createRegistryHttp(stores[1] as RegistryStore, options);
  });
  afterAll(async () => {
    for (const s of stores ?? []) await s.close();
    await db?.drop();
  });

  const statuses = async (http: RegistryHttp, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await http.app.request(LIST)).status);
    return out;
  };

  it("one client's requests through two servers count against one limit", async () => {
    expect(await statuses(one, 6)).toEqual([200, 200, 200, 200, 200, 200]);
    await one.syncRateLimits();
    expect(await statuses(two, 1)).toEqual([200]);
    await two.syncRateLimits();
    // The second server now knows of the first's 6: 3 more make 10, the next is refused.
    expect(await statuses(two, 4)).toEqual([200, 200, 200, 429]);
    await two.syncRateLimits();
    // The first server admits what it has not heard of until its next exchange, then refuses too.
    expect(await statuses(one, 1)).toEqual([200]);
    await one.syncRateLimits();
    expect(await statuses(one, 1)).toEqual([429]);
  });

  it("removes the rows of windows that have ended", async () => {
    const store = stores[1] as RegistryStore;
    const rows = async () =>
      (await sql<{ slot: string }>`select slot from registry_rate`.execute(store.database.kysely)).rows.map((r) =>
        Number(r.slot),
      );
    // A window of 1 s that ended at 2 s after the epoch, then the current one.
    expect((await store.countHits(1000, 1, new Map([["old", 3]]))).get("old")).toBe(3);
    expect(await rows()).toContain(2000);
    await store.countHits(1000, Math.floor(Date.now() / 1000), new Map([["new", 1]]));
    expect(await rows()).not.toContain(2000);
  });
});

describe("WindowCounter", () => {
  it("keeps the hits of a failed exchange for the next one", async () => {
    const sent: Array<Record<string, number>> = [];
    let fail = true;
    const counter = new WindowCounter(
      3_600_000,
      async (_window, hits) => {
        sent.push(Object.fromEntries(hits));
        if (fail) throw new Error("database gone");
        return new Map([...hits].map(([k, n]) => [k, n + 5]));
      },
      3_600_000,
    );
    counter.hit("a", 100);
    counter.hit("a", 100);
    await counter.sync();
    fail = false;
    counter.hit("a", 100);
    await counter.sync();
    expect(sent).toEqual([{ a: 2 }, { a: 3 }]);
    // 3 of its own, 5 others' as the database answered.
    expect(counter.allows("a", 9)).toBe(true);
    expect(counter.allows("a", 8)).toBe(false);
  });

  it("alone, counts this process's hits only", () => {
    const counter = new WindowCounter(3_600_000);
    expect([1, 2, 3].map(() => counter.hit("k", 2) === undefined)).toEqual([true, true, false]);
  });
});
