import { describe, expect, it } from "vitest";
import { ByteBudgetCache } from "./byte-cache.js";

const bytes = (n: number) => new Uint8Array(n);

describe("ByteBudgetCache", () => {
  it("holds at most its budget, drops the entries not used since they last came round, and keeps the used ones", () => {
    const cache = new ByteBudgetCache<Uint8Array>(10);
    const a = bytes(4);
    cache.set("a", a);
    cache.set("b", bytes(4));
    expect(cache.get("a")).toBe(a);
    cache.set("c", bytes(4));
    // b was not used: it goes, a (used) stays, as does c (just set).
    expect(cache.bytes).toBe(8);
    const held = () => ["a", "b", "c", "d"].filter((k) => cache.get(k) !== undefined);
    expect(held()).toEqual(["a", "c"]);
    // Both were used by held(): each gets its second chance, then the first to come round again (c) goes; d stays.
    cache.set("d", bytes(4));
    expect(cache.bytes).toBe(8);
    expect(held()).toEqual(["a", "d"]);
  });

  it("keeps nothing over its budget, and a key once (a second set of it changes neither value nor size)", () => {
    const cache = new ByteBudgetCache<Uint8Array>(4);
    cache.set("big", bytes(5));
    expect([cache.get("big"), cache.bytes]).toEqual([undefined, 0]);
    const first = bytes(3);
    cache.set("k", first);
    cache.set("k", bytes(3));
    expect([cache.get("k"), cache.bytes]).toEqual([first, 3]);
    const none = new ByteBudgetCache<Uint8Array>(0);
    none.set("x", bytes(0));
    none.set("y", bytes(1));
    expect(none.bytes).toBe(0);
  });
});
