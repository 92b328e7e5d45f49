/** Host classes the rules share: raw IPv4 addresses, tunnels, collection endpoints, well-known installers. */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A public IPv4 literal (loopback, private, link-local and unspecified addresses are not). */
export function isPublicIpv4(host: string): boolean {
  const m = IPV4.exec(host);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  if ([a, b, Number(m[3]), Number(m[4])].some((n) => n > 255)) return false;
  if (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  )
    return false;
  return true;
}

/** Cloud instance-metadata endpoints: credentials for whoever can reach them. */
export const METADATA_HOST = /^(?:169\.254\.169\.254|metadata\.google\.internal|100\.100\.100\.200|fd00:ec2::254)$/i;

const TUNNEL =
  /(?:^|\.)(?:ngrok\.io|ngrok-free\.app|ngrok\.app|ngrok-free\.dev|trycloudflare\.com|loca\.lt|localtunnel\.me|serveo\.net|localhost\.run|lhr\.life|pinggy\.(?:io|link|online)|bore\.pub|tunnelmole\.net|playit\.gg|telebit\.cloud)$/i;
export const isTunnelHost = (host: string): boolean => TUNNEL.test(host);

// Services whose main use in an attack is receiving what a victim sends (request bins, paste and drop sites, OAST).
const COLLECTOR =
  /(?:^|\.)(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|hookbin\.com|beeceptor\.com|requestcatcher\.com|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|burpcollaborator\.net|oastify\.com|canarytokens\.com|dnslog\.cn|ceye\.io|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|rentry\.co|transfer\.sh|file\.io|0x0\.st|temp\.sh|bashupload\.com|anonfiles\.com|gofile\.io)$/i;
export const isCollectorHost = (host: string): boolean => COLLECTOR.test(host);

// Chat webhooks: often a legitimate notifier, also a known exfiltration channel — worth a look, not an alarm.
const CHAT_HOOK = /(?:discord(?:app)?\.com\/api\/webhooks|hooks\.slack\.com\/|api\.telegram\.org\/bot)/i;
export const isChatWebhook = (url: string): boolean => CHAT_HOOK.test(url);

// Vendor installers a piped install is documented with. Such a pipe is still reported, at `review`.
const KNOWN_INSTALLER =
  /^https?:\/\/(?:astral\.sh\/|aka\.ms\/|bun\.sh\/install|sh\.rustup\.rs|get\.docker\.com|deno\.land\/install|(?:www\.)?deno\.land\/x\/install|get\.pnpm\.io\/|install\.python-poetry\.org|raw\.githubusercontent\.com\/(?:Homebrew|nvm-sh)\/|fnm\.vercel\.app\/install|cli\.github\.com\/|claude\.ai\/install|ollama\.com\/install|get\.helm\.sh\/|sdk\.cloud\.google\.com)/i;
export const isKnownInstaller = (url: string): boolean => KNOWN_INSTALLER.test(url);

/** `http(s)://…` URLs with their host, from one line of text. */
export const URL_PATTERN =
  /\b(?:https?|ftp|wss?|tcp):\/\/(\[[0-9a-f:]+\]|[^\s/:"'`<>)\]}|\\,;]+)(?::\d+)?[^\s"'`<>)\]}|\\]*/gi;

// Not global: a shared global pattern would carry `lastIndex` from one caller to the next.
const ONE_URL = new RegExp(URL_PATTERN.source, "i");

export function hostOf(url: string): string {
  const m = ONE_URL.exec(url);
  return (m?.[1] ?? "").toLowerCase().replace(/\.$/, "");
}
