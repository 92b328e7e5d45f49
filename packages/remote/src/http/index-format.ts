import { isSafeSkillId } from "@skillport/core";
import { RemoteSourceError } from "../errors.js";
import type { RemoteSkipped } from "../snapshot-source.js";

/** One artifact of the Agent Skills discovery index v0.2.0 (`/.well-known/agent-skills/index.json`). */
export interface IndexEntry {
  name: string;
  type: "skill-md" | "archive";
  description: string;
  /** Absolute, resolved against the index URL. */
  url: string;
  /** Lowercase hex SHA-256 of the artifact's exact bytes. */
  sha256: string;
  /** Advertised size, when the index gives one (an extension; verified when present). */
  size?: number;
}

export interface ParsedIndex {
  entries: IndexEntry[];
  /** Entries left out, and why (nothing is dropped silently). */
  skipped: RemoteSkipped[];
}

const SCHEMA = /^https:\/\/schemas\.agentskills\.io\/discovery\/0\.2\.\d+\/schema\.json$/;

/**
 * Parses a discovery index: `{ "$schema": ".../discovery/0.2.0/schema.json", "skills": [{ name, type, description,
 * url, digest: "sha256:<hex>" }] }`. The document as a whole must have that shape; an entry that does not (an unsafe
 * name, an unknown type, a missing digest, a URL that is not http(s)) is skipped and reported. Duplicate names: the
 * first wins, the rest are reported. Entry URLs resolve against `indexUrl` (where the index was finally read).
 */
export function parseDiscoveryIndex(
  bytes: Uint8Array,
  indexUrl: string,
  maxSkills: number,
  label: string = indexUrl,
): ParsedIndex {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new RemoteSourceError(`${label}: the skills index is not valid UTF-8 JSON`, "REMOTE_CONFIG");
  }
  if (!isRecord(doc) || !Array.isArray(doc.skills)) {
    throw new RemoteSourceError(`${label}: not an Agent Skills discovery index (no "skills" array)`, "REMOTE_CONFIG");
  }
  const schema = doc.$schema;
  if (typeof schema !== "string" || !SCHEMA.test(schema)) {
    throw new RemoteSourceError(
      `${label}: unsupported index schema ${JSON.stringify(schema ?? null)} (version 0.2.x is read)`,
      "REMOTE_CONFIG",
    );
  }
  if (doc.skills.length > maxSkills) {
    throw new RemoteSourceError(
      `${label}: the index lists ${doc.skills.length} skills, over the limit of ${maxSkills}`,
      "REMOTE_REFUSED",
    );
  }
  const entries: IndexEntry[] = [];
  const skipped: RemoteSkipped[] = [];
  const seen = new Set<string>();
  doc.skills.forEach((raw, i) => {
    const where = isRecord(raw) && typeof raw.name === "string" ? raw.name : `skills[${i}]`;
    const problem = entryProblem(raw);
    if (problem !== undefined) return void skipped.push({ where, reason: problem });
    const entry = raw as Record<string, string | number>;
    const name = entry.name as string;
    if (seen.has(name))
      return void skipped.push({ where, reason: "a second entry with this name; the first is served" });
    let url: URL;
    try {
      url = new URL(entry.url as string, indexUrl);
    } catch {
      return void skipped.push({ where, reason: "its url is not a valid URL" });
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      return void skipped.push({ where, reason: `its url is not http(s) (${url.protocol})` });
    seen.add(name);
    entries.push({
      name,
      type: entry.type as IndexEntry["type"],
      description: typeof entry.description === "string" ? entry.description : "",
      url: url.href,
      sha256: (entry.digest as string).slice("sha256:".length),
      ...(typeof entry.size === "number" && { size: entry.size }),
    });
  });
  return { entries, skipped };
}

function entryProblem(raw: unknown): string | undefined {
  if (!isRecord(raw)) return "not an object";
  if (typeof raw.name !== "string" || !isSafeSkillId(raw.name)) return "its name is not a safe skill id";
  if (raw.type !== "skill-md" && raw.type !== "archive")
    return `unknown type ${JSON.stringify(raw.type ?? null)} (skill-md and archive are read)`;
  if (typeof raw.url !== "string" || raw.url === "") return "no url";
  if (typeof raw.digest !== "string" || !/^sha256:[0-9a-f]{64}$/.test(raw.digest))
    return 'no digest of the form "sha256:<64 lowercase hex>"';
  if (raw.size !== undefined && (typeof raw.size !== "number" || !Number.isSafeInteger(raw.size) || raw.size < 0))
    return "its size is not a whole number of bytes";
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
