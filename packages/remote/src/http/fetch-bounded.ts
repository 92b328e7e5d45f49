import { RemoteSourceError, safeText } from "../errors.js";

export interface HttpFetchOptions {
  /** Request headers (an Authorization header is sent only to `credentialOrigin`). */
  headers?: Record<string, string>;
  /** Authorization header value, sent only to this origin. */
  authorization?: { origin: string; value: string };
  /** Largest body accepted, in bytes; more is refused while it streams. */
  maxBytes: number;
  /** Per attempt (ms). */
  timeoutMs: number;
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
      const result = await fetchOnce(url, options);
      if (!RETRY_STATUS.has(result.status)) return checkStatus(result, options);
      retryAfterMs = retryAfter(result.headers.get("retry-after"));
      lastError = new RemoteSourceError(`GET ${display(url, options)} answered ${result.status}`, "REMOTE_FETCH");
    } catch (error) {
      if (error instanceof RemoteSourceError && error.code !== "REMOTE_FETCH") throw error;
      lastError = error;
    }
    if (attempt === options.retries) break;
    const backoff = Math.min(options.maxRetryDelayMs, options.retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.maxRetryDelayMs, retryAfterMs ?? backoff)));
  }
  if (lastError instanceof RemoteSourceError) {
    throw new RemoteSourceError(`${lastError.message} (after ${options.retries + 1} attempts)`, "REMOTE_FETCH", { cause: lastError });
  }
  const why = lastError instanceof Error ? (lastError.cause instanceof Error ? lastError.cause.message : lastError.message) : String(lastError);
  throw new RemoteSourceError(`GET ${display(url, options)} failed after ${options.retries + 1} attempts: ${safeText(why, options.secrets)}`, "REMOTE_FETCH");
}

function checkStatus(result: HttpResult, options: HttpFetchOptions): HttpResult {
  if (result.status === 304 || (result.status >= 200 && result.status < 300)) return result;
  const what = result.status === 401 || result.status === 403 ? " (credentials missing or refused)" : result.status === 404 || result.status === 410 ? " (not found)" : "";
  const code = result.status === 404 || result.status === 410 ? "REMOTE_CONFIG" : result.status === 401 || result.status === 403 ? "REMOTE_ACCESS_DENIED" : "REMOTE_REFUSED";
  throw new RemoteSourceError(`GET ${display(result.url, options)} answered ${result.status}${what}`, code);
}

async function fetchOnce(start: string, options: HttpFetchOptions): Promise<HttpResult> {
  const doFetch = options.fetch ?? fetch;
  let url = new URL(start);
  const origins = new Set([url.origin, ...options.allowedOrigins]);
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.authorization !== undefined && options.authorization.origin === url.origin) headers.authorization = options.authorization.value;
    const response = await doFetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(options.timeoutMs) });
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      if (location === null) throw new RemoteSourceError(`GET ${display(url.href, options)} redirected without a Location`, "REMOTE_REFUSED");
      const next = new URL(location, url);
      if (hop + 1 > (options.maxRedirects ?? 5)) throw new RemoteSourceError(`GET ${display(start, options)}: more than ${options.maxRedirects ?? 5} redirects`, "REMOTE_REFUSED");
      if (url.protocol === "https:" && next.protocol !== "https:") {
        throw new RemoteSourceError(`GET ${display(url.href, options)} redirected from https to ${next.protocol.replace(":", "")}; refused`, "REMOTE_REFUSED");
      }
      if (!origins.has(next.origin)) {
        throw new RemoteSourceError(`GET ${display(url.href, options)} redirected to another host (${next.origin}); refused unless that origin is allowed`, "REMOTE_REFUSED");
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
    throw new RemoteSourceError(`GET ${display(url, options)}: ${declared} bytes is over the limit of ${options.maxBytes}`, "REMOTE_REFUSED");
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
      throw new RemoteSourceError(`GET ${display(url, options)}: more than the limit of ${options.maxBytes} bytes`, "REMOTE_REFUSED");
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
