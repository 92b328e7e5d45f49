/**
 * Values kept within a byte budget, the least recently used dropped first — approximately: a hit only marks its entry
 * (second chance, the CLOCK rule), so a hit allocates nothing and never rewrites the map. The fast path reads this
 * cache on every request; re-inserting on each hit put a fresh key string into a long-lived map per request, which the
 * young-generation collector then had to trace and copy (decision 0381). The MCP package's one such cache: serialised
 * answers and hot files both live in one.
 */
export class ByteBudgetCache<V extends { readonly byteLength: number }> {
  readonly #budget: number;
  readonly #entries = new Map<string, { value: V; used: boolean }>();
  #bytes = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** Bytes held now (never more than the budget). */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Keeps `value` unless it alone is over the budget or `key` is held already; drops what no longer fits. */
  set(key: string, value: V): void {
    if (value.byteLength > this.#budget || this.#entries.has(key)) return;
    this.#entries.set(key, { value, used: false });
    this.#bytes += value.byteLength;
    while (this.#bytes > this.#budget) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, { value: V; used: boolean }];
      this.#entries.delete(oldest);
      if (entry.used || oldest === key) {
        // Used since it last came round (or just set): a second chance, at the newest end.
        entry.used = false;
        this.#entries.set(oldest, entry);
      } else this.#bytes -= entry.value.byteLength;
    }
  }
}
