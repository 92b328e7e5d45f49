/** The request-rate counter the app counts with; the hot path counts a replayed answer on the same one (decision 0417). */
export interface HitCounter {
  /** Whether one more hit on `key` stays within `max` (counts nothing). */
  allows(key: string, max: number): boolean;
  /** Counts one hit; the ms until the window ends when over `max`, else undefined. */
  hit(key: string, max: number): number | undefined;
}

/** The rate-limit key of a request without a token: its peer address (one rule for the app and the hot path). */
export function anonymousKey(remoteAddress: string | undefined): string {
  return `a:${remoteAddress ?? "unknown"}`;
}

/**
 * Adds this process's hits per key to the window's shared counts and answers each sent key's total over every
 * process (`RegistryStore.countHits`: PostgreSQL).
 */
export type ShareHits = (window: number, hits: ReadonlyMap<string, number>) => Promise<Map<string, number>>;

/**
 * Fixed-window request counters. Alone (SQLite, or no sharing) each process counts its own share (decision 0345).
 * With `share`, processes on one PostgreSQL share the counts (decision 0419): a hit is decided at once from this
 * process's count plus the other processes' as last heard, and the hits since the last exchange are sent
 * `syncMs` after the first of them, one statement for every key, whose answer brings the others' counts up to date.
 * So the limit holds across processes to within what they admit in one exchange; a failed exchange keeps its hits
 * for the next one. Old windows are dropped as time moves.
 */
export class WindowCounter implements HitCounter {
  readonly #windowMs: number;
  readonly #share: ShareHits | undefined;
  readonly #syncMs: number;
  #window = 0;
  /** This process's hits in the window. */
  #counts = new Map<string, number>();
  /** Other processes' hits in the window, as of the last exchange that sent the key. */
  #others = new Map<string, number>();
  /** This process's hits not yet sent. */
  #unsent = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> = Promise.resolve();

  constructor(windowMs: number, share?: ShareHits, syncMs = 250) {
    this.#windowMs = windowMs;
    this.#share = share;
    this.#syncMs = syncMs;
  }

  allows(key: string, max: number): boolean {
    this.#roll(Date.now());
    return this.#seen(key) < max;
  }

  /** Counts one hit; the ms until the window ends when over `max`, else undefined. */
  hit(key: string, max: number): number | undefined {
    const now = Date.now();
    const window = this.#roll(now);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    if (this.#share !== undefined) {
      this.#unsent.set(key, (this.#unsent.get(key) ?? 0) + 1);
      this.#timer ??= setTimeout(() => void this.sync(), this.#syncMs).unref();
    }
    return this.#seen(key) > max ? (window + 1) * this.#windowMs - now : undefined;
  }

  /** Sends the unsent hits now, after any exchange under way; tests and shutdown call it. */
  sync(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // One exchange at a time, in order: each sends what is unsent when its turn comes.
    this.#syncing = this.#syncing.then(() => this.#exchange());
    return this.#syncing;
  }

  async #exchange(): Promise<void> {
    if (this.#share === undefined || this.#unsent.size === 0) return;
    const window = this.#window;
    const sent = this.#unsent;
    this.#unsent = new Map();
    let totals: Map<string, number>;
    try {
      totals = await this.#share(window, sent);
    } catch {
      // The database did not answer: the hits go with the next exchange, and this process keeps counting them.
      if (window === this.#window) for (const [key, n] of sent) this.#unsent.set(key, (this.#unsent.get(key) ?? 0) + n);
      return;
    }
    if (window !== this.#window) return;
    for (const [key, total] of totals) this.#others.set(key, Math.max(0, total - this.#sentCount(key)));
  }

  #seen(key: string): number {
    return (this.#counts.get(key) ?? 0) + (this.#others.get(key) ?? 0);
  }

  /** This process's hits on `key` that the database has (all of them but the unsent). */
  #sentCount(key: string): number {
    return (this.#counts.get(key) ?? 0) - (this.#unsent.get(key) ?? 0);
  }

  #roll(now: number): number {
    const window = Math.floor(now / this.#windowMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
      this.#others = new Map();
      this.#unsent = new Map();
    }
    return window;
  }
}
