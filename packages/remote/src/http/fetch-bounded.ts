import { RemoteSourceError, safeText } from "../errors.js";

/** A time by which a whole piece of work must be done (a sync, one file), retries and streaming included. */
export interface Deadline {
  signal: AbortSignal;
  /** Why it ended, for the message ("the sync's deadline of 600000 ms (syncDeadlineMs) passed"). */
  what: string;
}

/** A deadline `ms` from now; its timer never keeps the process alive. */
export function deadlineIn(ms: number, what: string): Deadline {
  return { signal: AbortSignal.timeout(ms), what };
}

export interface HttpFetchOptions {
  /** Request headers (an Authorization header is sent only to `credentialOrigin`). */
  headers?: Record<string, string>;
  /** Authorization header value, sent only to this origin. */
  authorization?: { origin: string; value: string };
  /** Largest body accepted, in bytes; more is refused while it streams. */
  maxBytes: number;
  /** Per attempt (ms), the body included. */
  timeoutMs: number;
  /** Ends the request wherever it is (connecting, streaming the body, waiting to retry); never retried. */
  deadlines?: readonly Deadline[];
  /** Further attempts after a 408, 425, 429, 5xx or network failure. */
  retries: number;
  /** First backoff delay (ms); doubled each attempt, with jitter; a Retry-After header is honoured up to `maxRetryDelayMs`. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
  /** Origins redirects may lead to (the request's own origin always may). */
  allowedOrigins: ReadonlySet<string>;
  maxRedirects?: number;
  /** Strings to hide from messages. */
  secrets: readonly string[];
  /** A `fetch` implementation, for tests. Default the global one. */
  fetch?: typeof fetch;
}

export interface HttpResult {
  status: number;
  url: string;
  headers: Headers;
  bytes: Uint8Array;
}

const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * GET with the limits a remote source needs: a bounded body, retries with jittered exponential backoff on 429/5xx and
 * network errors, redirects followed by hand and only within the allowed origins (never from https to http). A 304 is
 * returned as is (for If-None-Match); any other non-2xx is an error naming the URL without credentials.
 */
export async function fetchBounded(url: string, options: HttpFetchOptions): Promise<HttpResult> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    let retryAfterMs: number | undefined;
    try {
      checkDeadlines(url, options);
      const result = await fetchOnce(url, options);
      if (!RETRY_STATUS.has(result.status)) return checkStatus(result, options);
      retryAfterMs = retryAfter(result.headers.get("retry-after"));
      lastError = new RemoteSourceError(`GET ${display(url, options)} answered ${result.status}`, "REMOTE_FETCH");
    } catch (error) {
      checkDeadlines(url, options, error);
      if (error instanceof RemoteSourceError && error.code !== "REMOTE_FETCH") throw error;
      lastError = error;
    }
    if (attempt === options.retries) break;
    const backoff = Math.min(options.maxRetryDelayMs, options.retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    await sleep(Math.min(options.maxRetryDelayMs, retryAfterMs ?? backoff), options.deadlines ?? []);
    checkDeadlines(url, options);
  }
  if (lastError instanceof RemoteSourceError) {
    throw new RemoteSourceError(`${lastError.message} (after ${options.retries + 1} attempts)`, "REMOTE_FETCH", {
      cause: lastError,
    });
  }
  const why =
    lastError instanceof Error
      ? lastError.cause instanceof Error
        ? lastError.cause.message
        : lastError.message
      : String(lastError);
  throw new RemoteSourceError(
    `GET ${display(url, options)} failed after ${options.retries + 1} attempts: ${safeText(why, options.secrets)}`,
    "REMOTE_FETCH",
  );
}

/** Throws the deadline error when a deadline has passed (whatever else went wrong meanwhile). */
function checkDeadlines(url: string, options: HttpFetchOptions, cause?: unknown): void {
  const passed = options.deadlines?.find((d) => d.signal.aborted);
  if (passed !== undefined)
    throw new RemoteSourceError(`GET ${display(url, options)}: ${passed.what}; stopped`, "REMOTE_FETCH", { cause });
}

/** Waits `ms`, or less when a deadline passes first. */
function sleep(ms: number, deadlines: readonly Deadline[]): Promise<void> {
  return new Promise((resolve) => {
    const signal = AbortSignal.any(deadlines.map((d) => d.signal));
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function checkStatus(result: HttpResult, options: HttpFetchOptions): HttpResult {
  if (result.status === 304 || (result.status >= 200 && result.status < 300)) return result;
  const what =
    result.status === 401 || result.status === 403
      ? " (credentials missing or refused)"
      : result.status === 404 || result.status === 410
        ? " (not found)"
        : "";
  const code =
    result.status === 404 || result.status === 410
      ? "REMOTE_CONFIG"
      : result.status === 401 || result.status === 403
        ? "REMOTE_ACCESS_DENIED"
        : "REMOTE_REFUSED";
  throw new RemoteSourceError(`GET ${display(result.url, options)} answered ${result.status}${what}`, code);
}

async function fetchOnce(start: string, options: HttpFetchOptions): Promise<HttpResult> {
  const doFetch = options.fetch ?? fetch;
  let url = new URL(start);
  const origins = new Set([url.origin, ...options.allowedOrigins]);
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.authorization !== undefined && options.authorization.origin === url.origin)
      headers.authorization = options.authorization.value;
    // One signal for connecting and for every chunk of the body: a trickling server is cut off mid-stream.
    const signal = AbortSignal.any([
      AbortSignal.timeout(options.timeoutMs),
      ...(options.deadlines ?? []).map((d) => d.signal),
    ]);
    const response = await doFetch(url, { headers, redirect: "manual", signal });
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (location === null)
        throw new RemoteSourceError(
          `GET ${display(url.href, options)} redirected without a Location`,
          "REMOTE_REFUSED",
        );
      const next = new URL(location, url);
      if (hop + 1 > (options.maxRedirects ?? 5))
        throw new RemoteSourceError(
          `GET ${display(start, options)}: more than ${options.maxRedirects ?? 5} redirects`,
          "REMOTE_REFUSED",
        );
      if (url.protocol === "https:" && next.protocol !== "https:") {
        throw new RemoteSourceError(
          `GET ${display(url.href, options)} redirected from https to ${next.protocol.replace(":", "")}; refused`,
          "REMOTE_REFUSED",
        );
      }
      if (!origins.has(next.origin)) {
        throw new RemoteSourceError(
          `GET ${display(url.href, options)} redirected to another host (${next.origin}); refused unless that origin is allowed`,
          "REMOTE_REFUSED",
        );
      }
      url = next;
      continue;
    }
    const bytes = response.status === 304 ? new Uint8Array(0) : await readBody(response, url.href, options);
    return { status: response.status, url: url.href, headers: response.headers, bytes };
  }
}

async function readBody(response: Response, url: string, options: HttpFetchOptions): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel();
    throw new RemoteSourceError(
      `GET ${display(url, options)}: ${declared} bytes is over the limit of ${options.maxBytes}`,
      "REMOTE_REFUSED",
    );
  }
  if (response.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > options.maxBytes) {
      await reader.cancel();
      throw new RemoteSourceError(
        `GET ${display(url, options)}: more than the limit of ${options.maxBytes} bytes`,
        "REMOTE_REFUSED",
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Retry-After in ms (seconds or an HTTP date), if present and sane. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function display(url: string, options: HttpFetchOptions): string {
  return safeText(url, options.secrets);
}
