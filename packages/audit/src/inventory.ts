import type { InventoryItem, InventoryKind, InventoryLocation } from "./types.js";
import { hostOf, URL_PATTERN } from "./hosts.js";
import type { TextIndex } from "./text.js";
import { CREDENTIAL, PATTERN_RULES } from "./rules.js";

/** Every word `inventoryOf` asks about (the scanner finds them in one pass). */
export const INVENTORY_WORDS = [
  "://",
  "npx",
  "bunx",
  "dlx",
  "uvx",
  "pipx",
  "uv",
  "pip",
  "npm",
  "go",
  "docker",
  "podman",
  "cargo",
  "gem",
  "brew",
  "mcp",
  "curl",
  "wget",
  "iwr",
  "invoke-webrequest",
  "chmod",
];

const CREDENTIAL_ALL = new RegExp(CREDENTIAL.source, "gi");
const CREDENTIAL_HINT = PATTERN_RULES.find((r) => r.code === "suspicious.credential_store_access")?.hint ?? [""];

const RUNNER =
  /\b(?:npx|bunx|pnpm\s+dlx|yarn\s+dlx|uvx|pipx\s+(?:run|install)|uv\s+tool\s+(?:run|install)|pip3?\s+install|npm\s+(?:i|install|exec)|go\s+(?:run|install)|docker\s+run|podman\s+run|cargo\s+install|gem\s+install|brew\s+install)\b(?:\s+(?:-{1,2}[\w-]+(?:=\S+)?))*\s+([^\s`'"|;&)]+)/gi;
const MCP_ADD = /\b(?:claude|codex|gemini)\s+mcp\s+add\s+(?:(?:-{1,2}[\w-]+(?:[ =]\S+)?)\s+)*([\w.@/-]+)/gi;
const DOWNLOAD_OUT =
  /\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n]{0,200}?(?:\s-o\s*|\s-O\s+|--output(?:=|\s+)|-OutFile\s+)["']?([^\s"'|;&]+)/gi;
const CHMOD_X = /\bchmod\s+(?:\+x|[0-7]?[0-7][0-7][1357])\s+["']?([^\s"'|;&]+)/gi;
const PROGRAM_URL = /\.(?:exe|msi|dmg|pkg|appimage|deb|rpm|apk|bin|zip|7z|rar|tar\.gz|tgz|sh|ps1|bat|jar)(?:[?#]|$)/i;

/** Collects inventory items; `add` merges locations of the same kind and value. */
export class InventoryBuilder {
  readonly #items = new Map<string, InventoryItem>();

  add(kind: InventoryKind, value: string, where: InventoryLocation): void {
    const key = `${kind}\u0000${value}`;
    const item = this.#items.get(key);
    if (!item) this.#items.set(key, { kind, value, locations: [where] });
    else if (item.locations.length < 50 && !item.locations.some((l) => l.file === where.file && l.line === where.line))
      item.locations.push(where);
  }

  /** Sorted by kind then value, so equal skills give equal inventories. */
  items(): InventoryItem[] {
    return [...this.#items.values()].sort((a, b) =>
      a.kind === b.kind ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.kind < b.kind ? -1 : 1,
    );
  }
}

/** URLs and their hosts, package runners, MCP servers and programs fetched or made executable, in one text. */
export function inventoryOf(file: string, index: TextIndex, into: InventoryBuilder): void {
  const text = index.text;
  const has = (...words: string[]) => words.some((w) => index.words.has(w));
  const at = (offset: number): InventoryLocation => ({ file, ...index.position(offset) });
  URL_PATTERN.lastIndex = 0;
  if (has("://"))
    for (const m of text.matchAll(URL_PATTERN)) {
      const url = m[0].replace(/[.,:;!?*_~]+$/, "");
      into.add("url", url, at(m.index));
      const host = hostOf(url);
      if (host) into.add("domain", host, at(m.index));
      if (PROGRAM_URL.test(url)) into.add("binary", url, at(m.index));
    }
  if (has("npx", "bunx", "dlx", "uvx", "pipx", "uv", "pip", "npm", "go", "docker", "podman", "cargo", "gem", "brew"))
    for (const m of text.matchAll(RUNNER)) {
      const command = m[0].replace(/\s+/g, " ").trim();
      const target = m[1] ?? "";
      if (/^(?:-|\.|\/|\$)/.test(target) || /^requirements/.test(target)) continue;
      into.add("package-runner", command, at(m.index));
    }
  if (has("mcp")) for (const m of text.matchAll(MCP_ADD)) into.add("mcp-server", m[1] ?? m[0], at(m.index));
  if (has("curl", "wget", "iwr", "invoke-webrequest"))
    for (const m of text.matchAll(DOWNLOAD_OUT)) into.add("binary", m[1] ?? "", at(m.index));
  if (has("chmod")) for (const m of text.matchAll(CHMOD_X)) into.add("binary", m[1] ?? "", at(m.index));
  if (CREDENTIAL_HINT.some((w) => index.words.has(w)))
    for (const m of text.matchAll(CREDENTIAL_ALL)) into.add("credential-path", m[0], at(m.index));
  if (/\.json$/i.test(file) && text.includes("mcpServers")) mcpServersFromJson(file, text, into);
}

/** `{"mcpServers": {name: {command, args} | {url}}}` in a bundled JSON file. */
function mcpServersFromJson(file: string, text: string, into: InventoryBuilder): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  const servers = (value as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== "object" || servers === null) return;
  for (const [name, spec] of Object.entries(servers)) {
    const s = spec as { command?: unknown; args?: unknown; url?: unknown };
    const how =
      typeof s.url === "string"
        ? s.url
        : [s.command, ...(Array.isArray(s.args) ? s.args : [])].filter((x) => typeof x === "string").join(" ");
    into.add("mcp-server", how ? `${name}: ${how}` : name, { file, line: 0, column: 0 });
  }
}
