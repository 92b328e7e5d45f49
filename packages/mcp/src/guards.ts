/** 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1";
}

export interface HostOriginGuardOptions {
  /** The address the server is bound to. */
  host: string;
  port: number;
  /** Host header values allowed besides the bound address (a name the server is reached by). */
  allowedHosts?: readonly string[];
  /** Browser origins allowed besides the server's own (`http://host:port`). */
  allowedOrigins?: readonly string[];
}

/**
 * DNS-rebinding protection for an MCP endpoint (decision 0333): the Host header must name the bound address (any
 * loopback name when it is loopback) or an allowed host; an Origin, when sent, must be the server's own or allowed.
 * Returns the refusal's message, or undefined when the request may go on.
 */
export function hostOriginGuard(
  options: HostOriginGuardOptions,
): (host: string, origin: string | undefined) => string | undefined {
  const { host, port } = options;
  const names = isLoopback(host) ? ["localhost", "127.0.0.1", "[::1]"] : [host.includes(":") ? `[${host}]` : host];
  const hosts = new Set([
    ...names.map((n) => `${n}:${port}`),
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ]);
  const origins = new Set([
    ...names.map((n) => `http://${n}:${port}`),
    ...(options.allowedOrigins ?? []).map((o) => o.toLowerCase()),
  ]);
  return (hostHeader, origin) => {
    const h = hostHeader.toLowerCase();
    if (!hosts.has(h)) return `Host ${JSON.stringify(h)} is not allowed (DNS rebinding protection)`;
    if (origin !== undefined && !origins.has(origin.toLowerCase()))
      return `Origin ${JSON.stringify(origin)} is not allowed`;
    return undefined;
  };
}
