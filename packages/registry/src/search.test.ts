// Search answers are a page of core's ranking (decision 0413): filters apply before ranking, so a filtered page is
// full however far down its skills rank, and `total` counts every match, not only the hits ranked for the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryStore, type Actor } from "./index.js";
import { skillZip, testRegistryDb, WARN_BODY, type TestRegistryDb } from "./test-support/fixtures.js";

// More matches than a page plus the 200 hits the registry used to rank for one.
const LEDGERS = 230;
const AUDITED = 3;

describe("search pages and totals", () => {
  let db: TestRegistryDb;
  let store: RegistryStore;

  beforeAll(async () => {
    db = await testRegistryDb("sqlite");
    store = await RegistryStore.open({ database: db.url, blobs: db.blobs });
    const made = await store.createToken({ user: "alice", scopes: ["read", "publish"] });
    const alice = (await store.authenticate(made.token)) as Actor;
    for (let i = 0; i < LEDGERS; i++) {
      const name = `ledger-${String(i).padStart(3, "0")}`;
      await store.publish(await skillZip(name, { description: "Keeps the ledger." }), {}, alice);
    }
    // Found only through a body paragraph, so they rank below every ledger skill; the audit warns about them.
    for (let i = 0; i < AUDITED; i++) {
      const body = `${WARN_BODY}\nThe ledger needs this.\n`;
      await store.publish(await skillZip(`setup-${i}`, { description: "Installs a tool.", body }), {}, alice);
    }
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const ledgers = Array.from({ length: LEDGERS }, (_, i) => `ledger-${String(i).padStart(3, "0")}`);
  const setups = Array.from({ length: AUDITED }, (_, i) => `setup-${i}`);

  it("total counts every match; pages follow the ranking (ties by key) to its end", async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < LEDGERS + AUDITED + 100; offset += 100) {
      const page = await store.listSkills({ q: "ledger", limit: 100, offset });
      expect(page.total).toBe(LEDGERS + AUDITED);
      seen.push(...page.skills.map((s) => s.skill));
    }
    expect(seen).toEqual([...ledgers, ...setups]);
    const first = await store.listSkills({ q: "ledger", limit: 5 });
    expect(first.total).toBe(LEDGERS + AUDITED);
    expect(first.skills.map((s) => s.skill)).toEqual(ledgers.slice(0, 5));
    expect(first.skills[0]?.confidence).toBeGreaterThan(0);
  });

  it("a filter applies before ranking: its matches are found however low they rank", async () => {
    const warned = await store.listSkills({ q: "ledger", verdict: "warn", limit: 2 });
    expect(warned.total).toBe(AUDITED);
    expect(warned.skills.map((s) => s.skill)).toEqual(setups.slice(0, 2));
    expect(warned.skills.every((s) => s.audit.verdict === "warn")).toBe(true);
    const rest = await store.listSkills({ q: "ledger", verdict: "warn", limit: 2, offset: 2 });
    expect(rest).toMatchObject({ total: AUDITED, skills: [{ skill: setups[2] }] });
    expect(await store.listSkills({ q: "ledger", namespace: "nobody" })).toEqual({ total: 0, skills: [] });
  });
});
