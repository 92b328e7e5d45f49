// Least-privilege declarations (issue 26, decision 0360): what a skill's scripts need, written as `metadata` keys
// with the `skillport.` prefix so the SKILL.md stays valid under agentskills.io, and the intersection with what the
// operator allows. A skill only narrows: anything it asks beyond the operator's policy is dropped and reported.

/** Every declaration key starts with this; other `metadata` keys are left alone. */
export const DECLARATION_PREFIX = "skillport.";

/** The declaration keys, each one space-separated string (or one scalar for the two budgets). */
export const DECLARATION_KEYS = [
  "skillport.network",
  "skillport.network-private",
  "skillport.env",
  "skillport.bins",
  "skillport.writes",
  "skillport.timeout",
  "skillport.memory",
] as const;

export type DeclarationKey = (typeof DECLARATION_KEYS)[number];

/** One network destination: a host name (or an IP literal), an optional port, optional path prefixes. */
export interface NetworkDestination {
  /** Lower case, no trailing dot; an IPv6 literal without brackets. */
  host: string;
  /** Undefined: 80 for plain HTTP and 443 for CONNECT. */
  port?: number;
  /** Path prefixes (each starting with `/`); only plain HTTP can be checked against them. Undefined: any path. */
  paths?: string[];
  /** May resolve to loopback, private, link-local or unique-local addresses (declared under `network-private`). */
  private: boolean;
}

export interface SkillDeclaration {
  network: NetworkDestination[];
  /** Environment variable names the scripts read. */
  env: string[];
  /** Programs the scripts start (names, or absolute paths). Observed, not enforced. */
  bins: string[];
  /** Workspace-relative folders the scripts write (POSIX, normalised, never `..`). */
  writes: string[];
  timeoutMs?: number;
  maxMemoryBytes?: number;
}

export interface DeclarationProblem {
  /** The metadata key the problem is in. */
  key: string;
  severity: "error" | "warning";
  message: string;
}

export interface DeclarationResult {
  /** Undefined when the metadata holds no `skillport.` key: the skill declares nothing (today's default applies). */
  declaration: SkillDeclaration | undefined;
  problems: DeclarationProblem[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_ENTRIES = 64;
const MAX_TIMEOUT_MS = 600_000;
const MIN_MEMORY_BYTES = 16 * 1024 * 1024;

/** Reads the declaration from a skill's `metadata` (any value: malformed shapes become problems, never throws). */
export function readDeclaration(metadata: unknown): DeclarationResult {
  const problems: DeclarationProblem[] = [];
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
    return { declaration: undefined, problems };
  const entries = Object.entries(metadata as Record<string, unknown>).filter(([key]) =>
    key.startsWith(DECLARATION_PREFIX),
  );
  if (entries.length === 0) return { declaration: undefined, problems };
  const declaration: SkillDeclaration = { network: [], env: [], bins: [], writes: [] };
  for (const [key, raw] of entries) {
    const problem = (message: string, severity: DeclarationProblem["severity"] = "error"): void => {
      problems.push({ key, severity, message });
    };
    if (!(DECLARATION_KEYS as readonly string[]).includes(key)) {
      problem(`unknown declaration key '${key}': the keys are ${DECLARATION_KEYS.join(", ")}`, "warning");
      continue;
    }
    const text = scalarText(raw);
    if (text === undefined) {
      problem(`'${key}' must be one string (space-separated entries), not a list or a mapping`);
      continue;
    }
    const words = text.split(/[\s,]+/).filter(Boolean);
    if (words.length > MAX_ENTRIES) {
      problem(`'${key}' lists ${words.length} entries; at most ${MAX_ENTRIES}`);
      continue;
    }
    switch (key as DeclarationKey) {
      case "skillport.network":
      case "skillport.network-private":
        for (const word of words) {
          const parsed = parseDestination(word, key === "skillport.network-private");
          if (typeof parsed === "string") problem(`'${key}': ${parsed}`);
          else mergeDestination(declaration.network, parsed);
        }
        break;
      case "skillport.env":
        for (const word of words) {
          if (ENV_NAME.test(word)) addOnce(declaration.env, word);
          else problem(`'${key}': '${word}' is not an environment variable name`);
        }
        break;
      case "skillport.bins":
        for (const word of words) {
          if (word.includes("\0") || (word.includes("/") && !word.startsWith("/")) || word.split("/").includes("..")) {
            problem(`'${key}': '${word}' must be a program name or an absolute path`);
          } else addOnce(declaration.bins, word);
        }
        break;
      case "skillport.writes":
        for (const word of words) {
          const rel = workspacePath(word);
          if (rel === undefined)
            problem(`'${key}': '${word}' must be a folder inside the workspace (relative, no '..')`);
          else addOnce(declaration.writes, rel);
        }
        break;
      case "skillport.timeout": {
        const ms = parseDuration(text);
        if (ms === undefined)
          problem(`'${key}': '${text}' is not a duration (e.g. 30s, 500ms, 2m) between 1 ms and 600 s`);
        else declaration.timeoutMs = ms;
        break;
      }
      case "skillport.memory": {
        const bytes = parseBytes(text);
        if (bytes === undefined) problem(`'${key}': '${text}' is not a size of at least 16MiB (e.g. 256MiB, 1GiB)`);
        else declaration.maxMemoryBytes = bytes;
        break;
      }
    }
  }
  return { declaration, problems };
}

function scalarText(raw: unknown): string | undefined {
  if (typeof raw === "string") return raw.trim();
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  if (raw === null) return "";
  return undefined;
}

function addOnce(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/** `host[:port][/path…]`: a DNS name, an IPv4 literal or a bracketed IPv6 literal. A string is the problem. */
export function parseDestination(word: string, isPrivate: boolean): NetworkDestination | string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return `'${word}': write host[:port][/path] without a scheme`;
  const slash = word.indexOf("/", word.startsWith("[") ? word.indexOf("]") : 0);
  const hostPort = slash < 0 ? word : word.slice(0, slash);
  const pathPart = slash < 0 ? undefined : word.slice(slash);
  let host: string;
  let portText: string | undefined;
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) return `'${word}': unclosed '['`;
    host = hostPort.slice(1, close).toLowerCase();
    const rest = hostPort.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return `'${word}': expected ':port' after ']'`;
    portText = rest === "" ? undefined : rest.slice(1);
    if (!isIPv6(host)) return `'${word}': '${host}' is not an IPv6 address`;
  } else {
    const colon = hostPort.lastIndexOf(":");
    host = (colon < 0 ? hostPort : hostPort.slice(0, colon)).toLowerCase().replace(/\.$/, "");
    portText = colon < 0 ? undefined : hostPort.slice(colon + 1);
    if (!isHostName(host) && !isIPv4(host)) return `'${word}': '${host}' is not a host name or an IP address`;
  }
  const destination: NetworkDestination = { host, private: isPrivate };
  if (portText !== undefined) {
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) return `'${word}': the port must be a number from 1 to 65535`;
    destination.port = port;
  }
  if (pathPart !== undefined && pathPart !== "/") {
    if (/[\s?#\0]/.test(pathPart) || pathPart.split("/").some((s) => s === ".." || s === "."))
      return `'${word}': the path must be a plain prefix (no '..', '?' or '#')`;
    destination.paths = [pathPart];
  }
  return destination;
}

function mergeDestination(list: NetworkDestination[], d: NetworkDestination): void {
  const same = list.find((x) => x.host === d.host && x.port === d.port && x.private === d.private);
  if (same === undefined) {
    list.push(d);
    return;
  }
  // One entry without a path allows every path.
  if (same.paths === undefined || d.paths === undefined) delete same.paths;
  else for (const p of d.paths) addOnce(same.paths, p);
}

function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  // All-numeric names (`2130706433`, `127.1`) are IP tricks, not names.
  if (labels.every((l) => /^(0x[0-9a-f]+|\d+)$/i.test(l))) return false;
  return labels.every((l) => HOST_LABEL.test(l));
}

function isIPv4(host: string): boolean {
  const parts = host.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(host: string): boolean {
  return (
    host.includes(":") &&
    /^[0-9a-f:.]+$/i.test(host) &&
    (host.match(/::/g)?.length ?? 0) <= 1 &&
    host.split(":").length <= 8
  );
}

/** A workspace-relative folder, normalised (`./out/` → `out`), or undefined when it could leave the workspace. */
function workspacePath(word: string): string | undefined {
  if (word.startsWith("/") || word.includes("\0") || word.includes("\\")) return undefined;
  const parts = word.split("/").filter((s) => s !== "" && s !== ".");
  if (parts.length === 0 || parts.some((s) => s === "..")) return undefined;
  return parts.join("/");
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Math.round(Number(m[1]) * DURATION_UNITS[m[2] ?? "s"]!);
  return ms >= 1 && ms <= MAX_TIMEOUT_MS ? ms : undefined;
}

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

function parseBytes(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[m?.[2]?.toLowerCase() ?? "x"];
  if (!m || unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes >= MIN_MEMORY_BYTES ? bytes : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The operator's policy and the intersection.

/** What the operator (session, CLI flags, registry) allows any skill at most. */
export interface OperatorPolicy {
  /** "none" (default): no network at all; "public": any destination that resolves to public addresses; or a list. */
  network?: "none" | "public" | readonly NetworkDestination[];
  /** Variable names a skill may receive when it declares them. Default none. */
  env?: readonly string[];
  /** Workspace folders a skill may write when it declares them. Default: anywhere in the workspace. */
  writes?: "workspace" | readonly string[];
  /** Longest run the operator allows (ms). */
  timeoutMs?: number;
  /** Most memory the operator allows (bytes). */
  maxMemoryBytes?: number;
}

/** One part of a declaration the operator's policy did not grant (or granted narrower). */
export interface Narrowing {
  what: "network" | "env" | "writes" | "timeout" | "memory";
  /** The declared entry, as text. */
  asked: string;
  /** What was granted instead, as text; undefined: nothing. */
  granted?: string;
  reason: string;
}

export interface EffectivePolicy {
  /** The skill declared something (else the defaults below apply: no network, no variables, the whole workspace). */
  declared: boolean;
  network: NetworkDestination[];
  env: string[];
  /** Programs the skill declared (for the observation record); "any" when it declared none. */
  bins: string[] | "any";
  /** "workspace": the whole workspace is writable (no `skillport.writes`); else only these folders. */
  writes: string[] | "workspace";
  timeoutMs?: number;
  maxMemoryBytes?: number;
  narrowed: Narrowing[];
}

export function destinationText(d: NetworkDestination): string {
  const host = d.host.includes(":") ? `[${d.host}]` : d.host;
  const base = d.port === undefined ? host : `${host}:${d.port}`;
  return d.paths === undefined ? base : d.paths.map((p) => base + p).join(" ");
}

function pathWithin(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`) || parent === "/";
}

/** The part of a declared destination an operator rule grants, or undefined. */
function grantDestination(d: NetworkDestination, rule: NetworkDestination): NetworkDestination | undefined {
  if (rule.host !== d.host || (d.private && !rule.private)) return undefined;
  if (rule.port !== undefined && d.port !== undefined && rule.port !== d.port) return undefined;
  const granted: NetworkDestination = { host: d.host, private: d.private };
  const port = d.port ?? rule.port;
  if (port !== undefined) granted.port = port;
  if (rule.paths === undefined) {
    if (d.paths !== undefined) granted.paths = [...d.paths];
  } else if (d.paths === undefined) {
    granted.paths = [...rule.paths];
  } else {
    const paths = d.paths.filter((p) => rule.paths!.some((r) => p.startsWith(r)));
    if (paths.length === 0) return undefined;
    granted.paths = paths;
  }
  return granted;
}

/**
 * The rights of a run: intersection(operator policy, declaration). No declaration: no network, no variables, the
 * whole workspace writable, the operator's budgets — today's default. Every declared right the operator does not grant
 * is dropped (or narrowed) and listed in `narrowed`.
 */
export function effectivePolicy(operator: OperatorPolicy, declaration: SkillDeclaration | undefined): EffectivePolicy {
  const narrowed: Narrowing[] = [];
  const opTimeout = operator.timeoutMs;
  const opMemory = operator.maxMemoryBytes;
  const base: EffectivePolicy = {
    declared: declaration !== undefined,
    network: [],
    env: [],
    bins: "any",
    writes: "workspace",
    narrowed,
  };
  if (opTimeout !== undefined) base.timeoutMs = opTimeout;
  if (opMemory !== undefined) base.maxMemoryBytes = opMemory;
  if (declaration === undefined) return base;
  base.bins = [...declaration.bins];

  const opNetwork = operator.network ?? "none";
  for (const d of declaration.network) {
    const asked = destinationText(d);
    if (opNetwork === "none") {
      narrowed.push({ what: "network", asked, reason: "the operator allows no network" });
      continue;
    }
    if (opNetwork === "public") {
      if (d.private) narrowed.push({ what: "network", asked, reason: "the operator allows public destinations only" });
      else base.network.push(structuredClone(d));
      continue;
    }
    const grants = opNetwork
      .map((rule) => grantDestination(d, rule))
      .filter((g): g is NetworkDestination => g !== undefined);
    if (grants.length === 0) {
      narrowed.push({ what: "network", asked, reason: "not in the operator's allowed destinations" });
      continue;
    }
    for (const g of grants) mergeDestination(base.network, g);
    const grantedText = grants.map(destinationText).join(" ");
    if (grantedText !== asked)
      narrowed.push({
        what: "network",
        asked,
        granted: grantedText,
        reason: "narrowed to the operator's allowed destinations",
      });
  }

  const opEnv = operator.env ?? [];
  for (const name of declaration.env) {
    if (opEnv.includes(name)) base.env.push(name);
    else narrowed.push({ what: "env", asked: name, reason: "the operator does not pass this variable" });
  }

  const opWrites = operator.writes ?? "workspace";
  if (declaration.writes.length > 0) {
    const writes: string[] = [];
    for (const w of declaration.writes) {
      if (opWrites === "workspace" || opWrites.some((o) => pathWithin(w, o))) writes.push(w);
      else narrowed.push({ what: "writes", asked: w, reason: "outside the folders the operator lets skills write" });
    }
    base.writes = writes;
  } else if (opWrites !== "workspace") {
    base.writes = [...opWrites];
  }

  if (declaration.timeoutMs !== undefined) {
    if (opTimeout !== undefined && declaration.timeoutMs > opTimeout) {
      narrowed.push({
        what: "timeout",
        asked: `${declaration.timeoutMs}ms`,
        granted: `${opTimeout}ms`,
        reason: "longer than the operator allows",
      });
    } else base.timeoutMs = declaration.timeoutMs;
  }
  if (declaration.maxMemoryBytes !== undefined) {
    if (opMemory !== undefined && declaration.maxMemoryBytes > opMemory) {
      narrowed.push({
        what: "memory",
        asked: `${declaration.maxMemoryBytes}`,
        granted: `${opMemory}`,
        reason: "more than the operator allows",
      });
    } else base.maxMemoryBytes = declaration.maxMemoryBytes;
  }
  return base;
}

/** Line of each `metadata` sub-key in the SKILL.md text (1-based), found under the `metadata:` line. */
export function metadataKeyLines(text: string, metadataLine: number): Map<string, { line: number; column: number }> {
  const lines = text.split(/\r\n|\r|\n/);
  const out = new Map<string, { line: number; column: number }>();
  for (let i = metadataLine; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (!/^\s/.test(line)) break;
    const m = /^(\s+)(["']?)([^"':]+)\2\s*:/.exec(line);
    if (m && !out.has(m[3]!)) out.set(m[3]!, { line: i + 1, column: m[1]!.length + 1 });
  }
  return out;
}
