import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { lookup } from "node:dns/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { NetworkDestination } from "@skillport/core";

/**
 * The egress proxy (decision 0361): runs outside the sandbox on a unix socket that is bound into it (the sandbox's
 * network namespace stays unshared). It speaks HTTP CONNECT and plain HTTP (absolute-form requests), lets through only
 * the destinations it was given, resolves names itself and connects to the address it checked (no second lookup a
 * rebinding DNS server could answer differently), refuses IP literals that were not declared as such and names that
 * resolve to loopback/private/link-local ranges unless declared under `network-private`, and records every attempt.
 */

/** One attempt to reach something, allowed or not. */
export interface EgressEvent {
  /** ms since the epoch. */
  at: number;
  kind: "connect" | "http";
  /** The host as asked (lower case). */
  host: string;
  port: number;
  /** Plain HTTP only: the path asked for. */
  path?: string;
  method?: string;
  allowed: boolean;
  /** Why it was denied (the same text the sandboxed program receives). */
  reason?: string;
  /** The address connected to (allowed) or that made it denied. */
  address?: string;
  /** Bytes sent to the destination (allowed attempts). */
  bytesOut?: number;
  /** `keepSamples`, plain HTTP: the request head and the start of its body (what would have been sent). */
  sample?: string;
}

export interface EgressProxyOptions {
  /** The destinations allowed (the effective policy's). Empty: every attempt is denied and logged. */
  allow: readonly NetworkDestination[];
  /** Resolves a host name to addresses. Default: the system resolver (`dns.lookup`, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
  /** Sees each attempt as it happens. */
  onEvent?: (event: EgressEvent) => void;
  /** Most events kept in `events` (the rest are counted in `droppedEvents`). Default 1,000. */
  maxEvents?: number;
  /** Most connections open at once; more are refused. Default 64. */
  maxConnections?: number;
  /** Time a client has to send its request head. Default 10 s. */
  headTimeoutMs?: number;
  /** Bytes allowed in a request head. Default 16 KiB. */
  maxHeadBytes?: number;
  /**
   * Keep each plain-HTTP request's head and the first 4 KiB of its body in the event (`sample`); a denied request's
   * body is awaited up to 300 ms. For detonation (`audit --dynamic` looks for planted credentials in what was sent).
   */
  keepSamples?: boolean;
}

/** Where the proxy's socket appears inside the sandbox, and the loopback port the in-sandbox forwarder listens on. */
export const EGRESS_SOCKET_IN_SANDBOX = "/run/skillport/egress.sock";
export const EGRESS_PORT_IN_SANDBOX = 3128;

const DEFAULT_MAX_EVENTS = 1000;

/** Addresses a name may resolve to only when declared under `network-private` (and an IP literal only when declared). */
const NON_PUBLIC = new net.BlockList();
for (const [net4, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NON_PUBLIC.addSubnet(net4, prefix, "ipv4");
for (const [net6, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
  ["64:ff9b::", 96],
] as const)
  NON_PUBLIC.addSubnet(net6, prefix, "ipv6");

/** True for loopback, private, link-local, unique-local, CGNAT, documentation, multicast, mapped and NAT64 addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) is judged as the IPv4 address it is.
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
    if (mapped) {
      if (mapped[1] !== undefined) return isNonPublicAddress(mapped[1]);
      const hi = parseInt(mapped[2]!, 16);
      const lo = parseInt(mapped[3]!, 16);
      return isNonPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return NON_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

async function systemResolve(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

interface Decision {
  allowed: boolean;
  reason?: string;
  address?: string;
}

/** A running proxy. `socketPath` is bound into the sandbox at EGRESS_SOCKET_IN_SANDBOX. */
export class EgressProxy {
  readonly socketPath: string;
  readonly events: EgressEvent[] = [];
  droppedEvents = 0;
  private readonly dir: string;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Listeners added with `listenAlso` (a sandbox launcher's forwarder reaches the proxy through one). */
  private readonly extra = new Set<net.Server>();
  private readonly options: EgressProxyOptions;
  private readonly resolve: (host: string) => Promise<string[]>;

  private constructor(options: EgressProxyOptions, dir: string) {
    this.options = options;
    this.resolve = options.resolve ?? systemResolve;
    this.dir = dir;
    this.socketPath = path.join(dir, "egress.sock");
    this.server = net.createServer((client) => this.accept(client));
    this.server.maxConnections = options.maxConnections ?? 64;
  }

  /** Starts a proxy on a fresh socket in a folder only this user can enter (mode 0700). */
  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "skillport-egress-"));
    const proxy = new EgressProxy(options, dir);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(proxy.socketPath, () => resolve());
    });
    // The socket itself is reachable by the sandbox's uid through the bind mount; the 0700 folder keeps other host
    // users away from it.
    chmodSync(proxy.socketPath, 0o666);
    proxy.server.unref();
    return proxy;
  }

  /**
   * Serves the same proxy on one more unix socket (mode 0666; its folder decides who reaches it) until the returned
   * function is called. A bubblewrap launcher's forwarder, started before this run's proxy existed, connects there
   * (decision 0430).
   */
  async listenAlso(socketPath: string): Promise<() => void> {
    const server = net.createServer((client) => this.accept(client));
    server.maxConnections = this.server.maxConnections;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    chmodSync(socketPath, 0o666);
    server.unref();
    this.extra.add(server);
    return () => {
      if (this.extra.delete(server)) server.close();
    };
  }

  /** Events since `from` (an index into `events`). */
  since(from: number): EgressEvent[] {
    return this.events.slice(from);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    for (const server of this.extra) server.close();
    this.extra.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private record(event: EgressEvent): void {
    if (this.events.length < (this.options.maxEvents ?? DEFAULT_MAX_EVENTS)) this.events.push(event);
    else this.droppedEvents++;
    this.options.onEvent?.(event);
  }

  private accept(client: net.Socket): void {
    this.sockets.add(client);
    client.on("close", () => this.sockets.delete(client));
    client.on("error", () => client.destroy());
    client.setTimeout(this.options.headTimeoutMs ?? 10_000, () => client.destroy());
    const maxHead = this.options.maxHeadBytes ?? 16 * 1024;
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > maxHead) this.refuse(client, 431, "request head too large");
        return;
      }
      client.off("data", onData);
      client.pause();
      client.setTimeout(0);
      void this.handle(client, head.subarray(0, end).toString("latin1"), head.subarray(end + 4));
    };
    client.on("data", onData);
  }

  private async handle(client: net.Socket, headText: string, rest: Buffer): Promise<void> {
    const [requestLine = "", ...headerLines] = headText.split("\r\n");
    const [method = "", target = ""] = requestLine.split(" ");
    if (method === "CONNECT") {
      const hp = splitHostPort(target, 443);
      if (hp === undefined) return this.refuse(client, 400, `bad CONNECT target '${target.slice(0, 100)}'`);
      const event: EgressEvent = { at: Date.now(), kind: "connect", host: hp.host, port: hp.port, allowed: false };
      const decision = await this.decide(hp.host, hp.port, undefined);
      return this.finish(client, event, decision, (upstream) => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (rest.length > 0) upstream.write(rest);
      });
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return this.refuse(client, 400, "the proxy takes absolute http:// URLs and CONNECT only");
    }
    if (url.protocol !== "http:")
      return this.refuse(client, 400, `scheme ${url.protocol} not proxied; use CONNECT for https`);
    const host = normaliseHost(url.hostname);
    const port = url.port === "" ? 80 : Number(url.port);
    const pathAsked = url.pathname + url.search;
    const event: EgressEvent = { at: Date.now(), kind: "http", host, port, path: pathAsked, method, allowed: false };
    const decision = await this.decide(host, port, url.pathname);
    if (this.options.keepSamples)
      event.sample = `${headText}\r\n\r\n${(decision.allowed ? rest : await bodyStart(client, rest, headerLines)).subarray(0, SAMPLE_BYTES).toString("latin1")}`;
    return this.finish(client, event, decision, (upstream) => {
      // Origin-form request line, our Host (never the client's: no virtual-host switch), one request per connection.
      const headers = headerLines.filter((l) => !/^(host|proxy-[a-z-]*|connection|keep-alive)\s*:/i.test(l));
      const authority = port === 80 ? url.host.replace(/:80$/, "") : url.host;
      upstream.write(
        `${method} ${pathAsked} HTTP/1.1\r\nHost: ${authority}\r\n${headers.map((l) => `${l}\r\n`).join("")}Connection: close\r\n\r\n`,
      );
      if (rest.length > 0) upstream.write(rest);
    });
  }

  /** Logs the attempt; connects and pipes when allowed, answers 403 with the reason when not. */
  private finish(
    client: net.Socket,
    event: EgressEvent,
    decision: Decision,
    start: (upstream: net.Socket) => void,
  ): void {
    event.allowed = decision.allowed;
    if (decision.address !== undefined) event.address = decision.address;
    if (!decision.allowed || decision.address === undefined) {
      event.reason = decision.reason ?? "denied";
      this.record(event);
      return this.refuse(client, 403, event.reason);
    }
    this.record(event);
    const upstream = net.connect({ host: decision.address, port: event.port });
    let connected = false;
    this.sockets.add(upstream);
    upstream.on("close", () => {
      this.sockets.delete(upstream);
      event.bytesOut = upstream.bytesWritten;
      client.destroy();
    });
    upstream.on("error", () => {
      if (!connected) event.reason = "the destination did not accept the connection";
      if (!client.destroyed && client.bytesWritten === 0)
        this.refuse(client, 502, `cannot connect to ${event.host}:${event.port}`);
      upstream.destroy();
    });
    upstream.once("connect", () => {
      connected = true;
      start(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    client.on("close", () => upstream.destroy());
  }

  private async decide(host: string, port: number, urlPath: string | undefined): Promise<Decision> {
    const literal = net.isIP(host) !== 0;
    const rules = this.options.allow.filter((r) => r.host === host);
    const rule = rules.find((r) => (r.port ?? (urlPath === undefined ? 443 : 80)) === port);
    if (rule === undefined) {
      if (literal) return { allowed: false, reason: `raw IP address not declared: ${host}:${port}` };
      if (looksNumeric(host)) return { allowed: false, reason: `numeric host name refused: ${host}` };
      return { allowed: false, reason: `destination not declared: ${host}:${port}` };
    }
    if (rule.paths !== undefined) {
      if (urlPath === undefined) {
        return {
          allowed: false,
          reason: `${host} is declared with path prefixes, which HTTPS hides from the proxy; declare the host without a path`,
        };
      }
      if (hasDotSegment(urlPath) || !rule.paths.some((p) => urlPath.startsWith(p))) {
        return {
          allowed: false,
          reason: `path not declared: ${host}${urlPath.slice(0, 200)} (declared ${rule.paths.join(" ")})`,
        };
      }
    }
    let addresses: string[];
    if (literal) addresses = [host];
    else {
      try {
        addresses = await this.resolve(host);
      } catch {
        return { allowed: false, reason: `cannot resolve ${host}` };
      }
      if (addresses.length === 0) return { allowed: false, reason: `cannot resolve ${host}` };
    }
    if (!rule.private) {
      const bad = addresses.find(isNonPublicAddress);
      if (bad !== undefined) {
        return {
          allowed: false,
          address: bad,
          reason: `${host} resolves to a loopback or private address (${bad}); such a destination must be declared under skillport.network-private`,
        };
      }
    }
    return { allowed: true, address: addresses[0]! };
  }

  private refuse(client: net.Socket, status: number, reason: string): void {
    const body = `skillport egress proxy: ${reason}\n`;
    const phrase =
      status === 403
        ? "Forbidden by Skillport: destination not declared"
        : status === 400
          ? "Bad Request"
          : status === 431
            ? "Request Header Fields Too Large"
            : "Bad Gateway";
    client.end(
      `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Skillport-Egress: denied\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
}

const SAMPLE_BYTES = 4096;

/** The first bytes of a denied request's body: what arrived with the head, plus what follows within 300 ms. */
function bodyStart(client: net.Socket, rest: Buffer, headerLines: readonly string[]): Promise<Buffer> {
  const length = Number(/^content-length\s*:\s*(\d+)/im.exec(headerLines.join("\n"))?.[1] ?? 0);
  const want = Math.min(length, SAMPLE_BYTES);
  if (rest.length >= want) return Promise.resolve(rest);
  return new Promise((resolve) => {
    let body = rest;
    const done = (): void => {
      clearTimeout(timer);
      client.off("data", onData);
      client.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      body = Buffer.concat([body, chunk]);
      if (body.length >= want) done();
    };
    const timer = setTimeout(done, 300);
    client.on("data", onData);
    client.resume();
  });
}

function normaliseHost(host: string): string {
  const h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return h.toLowerCase().replace(/\.$/, "");
}

function splitHostPort(target: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+)(?::(\d{1,5}))?$/.exec(target);
  if (!m) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port >= 1 && port <= 65535)) return undefined;
  return { host: normaliseHost(m[1]!), port };
}

/** `2130706433`, `0x7f.1`, `127.1`: forms resolvers turn into addresses. */
function looksNumeric(host: string): boolean {
  return host.split(".").every((l) => /^(0x[0-9a-f]*|\d+)$/i.test(l));
}

function hasDotSegment(p: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(p);
  } catch {
    return true;
  }
  return decoded.split("/").some((s) => s === ".." || s === ".") || decoded.includes("\\");
}
