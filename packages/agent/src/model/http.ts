import { AgentError } from "../errors.js";

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  /** HTTP status that caused the retry; undefined for a network error. */
  status: number | undefined;
  reason: string;
}

export interface HttpOptions {
  /** Retries after 429, 5xx (529 included) and network errors. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry (with jitter). Default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait between attempts, Retry-After included. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Per-request timeout until response headers arrive. Default 120 s. */
  timeoutMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

export interface PostOptions extends HttpOptions {
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /** Removed from every error message (the API key). */
  secrets?: readonly string[];
  /** Names the server in messages, e.g. "OpenAI-compatible server at http://…". */
  label: string;
}

/** POSTs JSON and returns the OK response, retrying what is worth retrying; throws AgentError otherwise. Never logs. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: PostOptions,
): Promise<Response> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 3;
  const base = options.retryBaseMs ?? 500;
  const cap = options.maxRetryDelayMs ?? 60_000;
  const payload = JSON.stringify(body);
  const redact = (text: string) => redactSecrets(text, options.secrets ?? []);
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(options.signal);
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetchFn(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: payload,
        signal,
      });
    } catch (error) {
      throwIfAborted(options.signal);
      const reason = networkReason(error);
      if (attempt >= maxRetries) {
        throw new AgentError("MODEL_UNREACHABLE", `cannot reach the ${options.label}: ${redact(reason)}`, {
          cause: error,
        });
      }
      const delayMs = backoff(base, attempt, cap);
      options.onRetry?.({ attempt: attempt + 1, delayMs, status: undefined, reason });
      await sleep(delayMs, options.signal);
      continue;
    }
    if (response.ok) {
      // A wrong base URL often reaches a web UI that answers 200 with a page: no API reply to read.
      if (/^\s*text\/html\b/i.test(response.headers.get("content-type") ?? "")) {
        await response.body?.cancel().catch(() => undefined);
        throw new AgentError(
          "MODEL_PROTOCOL",
          `the ${options.label} answered with a web page (text/html), not an API reply: check the base URL`,
        );
      }
      return response;
    }
    const text = redact(await response.text().catch(() => ""));
    const retryable = response.status === 429 || response.status >= 500;
    if (retryable && attempt < maxRetries) {
      const delayMs = Math.min(retryAfterMs(response.headers) ?? backoff(base, attempt, cap), cap);
      options.onRetry?.({ attempt: attempt + 1, delayMs, status: response.status, reason: `HTTP ${response.status}` });
      await sleep(delayMs, options.signal);
      continue;
    }
    const detail = errorDetail(text);
    const code = response.status === 401 || response.status === 403 ? "MODEL_AUTH" : "MODEL_HTTP";
    throw new AgentError(code, `the ${options.label} answered HTTP ${response.status}${detail ? `: ${detail}` : ""}`, {
      status: response.status,
    });
  }
}

/** A model server's base URL without trailing slashes; it must be an absolute http:// or https:// address. */
export function modelBaseUrl(value: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:")
    throw new AgentError("AGENT_CONFIG", `base URL ${JSON.stringify(value)} must start with http:// or https://`);
  return value.replace(/\/+$/, "");
}

/** Retry-After in seconds or as an HTTP date; OpenAI's retry-after-ms too. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function backoff(base: number, attempt: number, cap: number): number {
  const exp = base * 2 ** attempt;
  return Math.min(cap, Math.round(exp * (0.75 + Math.random() * 0.5)));
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  if (error instanceof Error && error.name === "TimeoutError") return "no answer before the timeout";
  return error instanceof Error ? error.message : String(error);
}

function errorDetail(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof json.error === "string"
        ? json.error
        : typeof json.error?.message === "string"
          ? json.error.message
          : typeof json.message === "string"
            ? json.message
            : undefined;
    if (message) return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 500);
}

function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AgentError("AGENT_ABORTED", "the run was cancelled");
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AgentError("AGENT_ABORTED", "the run was cancelled"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Server-sent events from a response body (`event:` and `data:` lines; comments and ids ignored). */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  try {
    for (;;) {
      throwIfAborted(signal);
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
    const tail = parseBlock((buffer + decoder.decode()).replace(/\r\n?/g, "\n"));
    if (tail) yield tail;
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length === 0 && event === undefined ? undefined : { event, data: data.join("\n") };
}
