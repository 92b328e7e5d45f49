import type { IncomingMessage, ServerResponse } from "node:http";
import type { CatalogSnapshot } from "../catalog.js";
import type { RegistryStore } from "../store.js";
import { anonymousKey, type HitCounter } from "./rate-limit.js";

/**
 * What a route says about an answer it built that may be given again without the app (decision 0417): its bytes, its
 * strong ETag, whether `If-None-Match: *` matches it, and how long it stays true — `"immutable"` (a file or archive of
 * a version asked for by its exact number, readable by anyone: decision 0411) or the catalog snapshot it was rendered
 * from (the well-known index: true while the change counter has not moved, decision 0410).
 */
export interface HotAnswer {
  body: Uint8Array;
  etag: string;
  /** `If-None-Match: *` answers 304 (files and archives do; the index compares ETags only). */
  star: boolean;
  until: "immutable" | CatalogSnapshot;
}

const described = new WeakMap<Response, HotAnswer>();

/** Marks `response` (a 200 or a 304) as one the hot path may replay; returns it. */
export function hot(response: Response, answer: HotAnswer): Response {
  described.set(response, answer);
  return response;
}

/** Whether an `If-None-Match` header names `etag` (or `*` where the answer allows it): one rule for both paths. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string, star: boolean): boolean {
  return (
    ifNoneMatch !== undefined &&
    ifNoneMatch.split(",").some((t) => {
      const tag = t.trim();
      return tag === etag || (star && tag === "*");
    })
  );
}

/**
 * Whether an `Accept-Encoding` header accepts gzip (`gzip`, `x-gzip` or `*`, without `q=0`): one rule for the route
 * that chooses the form and for the hot path's key.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding.split(",").some((part) => {
    const [coding = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "x-gzip" && coding !== "*") return false;
    return !params.some((p) => /^q=0(?:\.0{0,3})?$/.test(p));
  });
}

interface Entry {
  answer: HotAnswer;
  /** The 200's headers as the Node adapter wrote them (names in its order, `Content-Length` last). */
  ok?: Record<string, string | number>;
  /** The 304's headers as the Node adapter wrote them. */
  notModified?: Record<string, string>;
}

// The request targets and Host values the Node adapter (@hono/node-server) takes as they are: a path of plain
// characters with no query, no percent-escapes and no dot segments, so the app routes it exactly as written.
const PLAIN_PATH = /^(?:\/[A-Za-z0-9._~@+-]+)+$/;
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** `host + path` (and whether gzip is accepted) when the hot path may answer the request, else undefined. */
function keyOf(req: IncomingMessage): string | undefined {
  if (req.method !== "GET" || req.headers.authorization !== undefined) return undefined;
  const host = req.headers.host;
  const url = req.url;
  if (host === undefined || url === undefined || !PLAIN_HOST.test(host) || !PLAIN_PATH.test(url)) return undefined;
  if (DOT_SEGMENT.test(url)) return undefined;
  // The one request header besides If-None-Match an answer may depend on (the index's gzip form).
  return acceptsGzip(req.headers["accept-encoding"]) ? `${host}${url}\ngzip` : `${host}${url}`;
}

/**
 * Answers that the app gave an anonymous GET, replayed on Node's request and response before the app sees the request
 * (decision 0417, the registry's counterpart of the MCP fast path, decision 0380): the same checks the app's route would
 * pass (no token, reads public, the rate limit counted once on the same counter), the same headers in the same order
 * and the same bytes, recorded from the app's own answers rather than built a second time. Anything the app has not
 * answered before, and every error, goes to the app. Kept by host, path and gzip or not, least recently used out past
 * `maxBytes`; an answer tied to a snapshot is dropped at the first request that finds the counter moved.
 */
export class HotAnswers {
  readonly answered = { hot: 0, app: 0 };
  readonly #store: RegistryStore;
  readonly #limiter: HitCounter;
  readonly #maxRequests: number;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(store: RegistryStore, limiter: HitCounter, maxRequests: number, maxBytes = 64 * 1024 * 1024) {
    this.#store = store;
    this.#limiter = limiter;
    this.#maxRequests = maxRequests;
    this.#maxBytes = maxBytes;
  }

  /**
   * Keeps the app's answer to `req` when its route marked it (`hot`), the request was anonymous and reads are public.
   * Called by the app after its own headers are set, so what is kept is exactly what the adapter writes.
   */
  record(req: IncomingMessage | undefined, response: Response, readsPublic: boolean): void {
    const answer = described.get(response);
    if (answer === undefined || req === undefined || !readsPublic) return;
    const key = keyOf(req);
    if (key === undefined) return;
    if (response.status !== 200 && response.status !== 304) return;
    let entry = this.#entries.get(key);
    if (entry === undefined || entry.answer.etag !== answer.etag || entry.answer.until !== answer.until) {
      if (entry !== undefined) this.#drop(key, entry);
      entry = { answer };
      this.#entries.set(key, entry);
      this.#bytes += answer.body.byteLength;
    }
    // The adapter writes a Headers object's entries in its order (names lower-cased, sorted), then Content-Length.
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (response.status === 200) entry.ok = { ...headers, "Content-Length": answer.body.byteLength };
    else entry.notModified = headers;
    this.#evict();
  }

  /**
   * True when `req` was answered here; false: hand it to the app (nothing was written or counted). Synchronous unless
   * the answer depends on the catalog snapshot (one read of the change counter, as the app's route makes).
   */
  answer(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    const key = keyOf(req);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (key === undefined || entry === undefined) return this.#toApp();
    const { until } = entry.answer;
    if (until === "immutable") return this.#write(key, entry, req, res);
    return this.#store.snapshot().then((snap) => {
      if (snap === until) return this.#write(key, entry, req, res);
      if (this.#entries.get(key) === entry) this.#drop(key, entry);
      return this.#toApp();
    });
  }

  #write(key: string, entry: Entry, req: IncomingMessage, res: ServerResponse): boolean {
    const { answer } = entry;
    const notModified = etagMatches(req.headers["if-none-match"], answer.etag, answer.star);
    const headers = notModified ? entry.notModified : entry.ok;
    // Over the limit: the app counts this request and words the refusal.
    const address = anonymousKey(req.socket.remoteAddress);
    if (headers === undefined || !this.#limiter.allows(address, this.#maxRequests)) return this.#toApp();
    this.#limiter.hit(address, this.#maxRequests);
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    res.writeHead(notModified ? 304 : 200, headers);
    if (notModified) res.end();
    else res.end(answer.body);
    this.answered.hot++;
    return true;
  }

  #toApp(): false {
    this.answered.app++;
    return false;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.answer.body.byteLength;
  }

  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#drop(key, entry);
    }
  }
}
