import { readFile } from "node:fs/promises";
import path from "node:path";
import { isSafeSkillId } from "@skillport/core";
import { isMissing, writeFileAtomic } from "@skillport/fs";
import { InstallError } from "./errors.js";
import { sha256 } from "./digest.js";

/** The project lockfile Vercel's `skills` CLI reads and writes (decision 0300). */
export const LOCK_FILE = "skills-lock.json";
/** What that lockfile cannot hold, beside it (decision 0300). */
export const SIDECAR_FILE = "skillport-lock.json";

/** One skill in `skills-lock.json`, in Vercel's shape (version 1). Unknown fields are kept on rewrite. */
export interface LockEntry {
  /** Where it came from as the user wrote it: `owner/repo`, a path, an address. */
  source: string;
  /** Branch, tag or commit the user asked for. */
  ref?: string;
  /** `github`, `git`, `local`, `well-known`, `npm`. */
  sourceType: string;
  /** The skill's SKILL.md inside the source (POSIX), to re-fetch just this skill. */
  skillPath?: string;
  /** sha256 over the installed folder (see `computedHash`). */
  computedHash: string;
  [unknown: string]: unknown;
}

export interface LockFile {
  version: number;
  skills: Record<string, LockEntry>;
}

/** What the sidecar adds for one skill; valid only while `computedHash` equals the lock entry's. */
export interface SidecarEntry {
  computedHash: string;
  /** The commit (git) or revision the files were taken from. */
  commit?: string;
  /** sha256 of each file, by path. */
  files: Record<string, string>;
  /** Agents the skill was linked or copied into, and how. */
  agents: Record<string, "link" | "copy">;
  /** What the audit said about these bytes at install, and the consent given for them (decision 0350). */
  audit?: AuditRecord;
  /**
   * Installed under another name (`add --as`, decision 0420): the skill's name upstream and the `computedHash` of
   * its upstream bytes. The installed SKILL.md says this entry's name instead; restores rewrite it the same way.
   */
  upstream?: UpstreamName;
}

export interface UpstreamName {
  name: string;
  computedHash: string;
}

/**
 * The audit of one installed skill as the sidecar keeps it. The install library stores it and never judges it; the
 * verdict scale (`pass` < `review` < `warn` < `malicious`) belongs to `@skillport/audit`.
 */
export interface AuditRecord {
  /** The verdict the audit gave the installed bytes. */
  verdict: string;
  /** Consent for a `warn` or `malicious` verdict: the verdict accepted, how, and the exact bytes it covers. */
  accepted?: AcceptedRisk;
  /** What the skill points the agent at, `<kind> <value>` sorted (its bill of materials), so a change shows in review. */
  inventory: string[];
}

export interface AcceptedRisk {
  verdict: string;
  /** `--yes`, `--force`, or `update` (carried from an earlier consent because the risk surface did not grow). */
  by: string;
  /** The `computedHash` of the bytes the consent covers; the sidecar's `files` holds their per-file sha256. */
  computedHash: string;
}

export interface Sidecar {
  version: 1;
  /** sha256 of the `skills-lock.json` bytes it was written with: a different value means another tool rewrote it. */
  lockSha256: string;
  skills: Record<string, SidecarEntry>;
}

const LOCK_VERSION = 1;

/** Reads `skills-lock.json` in `dir`; a missing file is an empty lock, a broken one is an error naming the file. */
export async function readLock(dir: string): Promise<{ lock: LockFile; bytes: string | undefined }> {
  const file = path.join(dir, LOCK_FILE);
  const bytes = await readText(file);
  if (bytes === undefined) return { lock: { version: LOCK_VERSION, skills: {} }, bytes };
  const parsed = parseJson(bytes, LOCK_FILE);
  if (!isRecord(parsed) || typeof parsed.version !== "number" || !isRecord(parsed.skills)) {
    throw new InvalidLockError(`${LOCK_FILE}: not a skills lockfile (expected {"version": 1, "skills": {…}})`);
  }
  const skills: Record<string, LockEntry> = {};
  for (const [name, entry] of Object.entries(parsed.skills)) {
    // A name becomes a folder name in every agent's folder: one safe segment, or the lock is refused.
    if (!isSafeSkillId(name) || name.includes("/"))
      throw new InvalidLockError(`${LOCK_FILE}: ${JSON.stringify(name)} is not a skill name`);
    if (
      !isRecord(entry) ||
      typeof entry.source !== "string" ||
      typeof entry.sourceType !== "string" ||
      typeof entry.computedHash !== "string"
    ) {
      throw new InvalidLockError(
        `${LOCK_FILE}: skill ${JSON.stringify(name)} needs string source, sourceType and computedHash`,
      );
    }
    skills[name] = entry as LockEntry;
  }
  return { lock: { version: parsed.version, skills }, bytes };
}

/** Writes the lock as Vercel's CLI does (skills sorted by name, 2-space JSON, final newline); returns the bytes. */
export async function writeLock(dir: string, lock: LockFile): Promise<string> {
  const skills: Record<string, LockEntry> = {};
  for (const name of Object.keys(lock.skills).sort()) skills[name] = lock.skills[name] as LockEntry;
  const text = `${JSON.stringify({ version: lock.version, skills }, null, 2)}\n`;
  await writeFileAtomic(path.join(dir, LOCK_FILE), text);
  return text;
}

/** Reads the sidecar; entries whose `computedHash` no longer matches the lock are dropped (stale after a rewrite). */
export async function readSidecar(dir: string, lock: LockFile): Promise<Sidecar["skills"]> {
  const bytes = await readText(path.join(dir, SIDECAR_FILE));
  if (bytes === undefined) return {};
  const parsed = parseJson(bytes, SIDECAR_FILE);
  if (!isRecord(parsed) || !isRecord(parsed.skills))
    throw new InvalidLockError(`${SIDECAR_FILE}: not a skillport sidecar lock`);
  const out: Sidecar["skills"] = {};
  for (const [name, entry] of Object.entries(parsed.skills)) {
    if (!isRecord(entry) || entry.computedHash !== lock.skills[name]?.computedHash || !isRecord(entry.files)) continue;
    const { audit, upstream, ...rest } = entry;
    const kept = rest as unknown as SidecarEntry;
    if (isRecord(upstream) && typeof upstream.name === "string" && typeof upstream.computedHash === "string")
      kept.upstream = { name: upstream.name, computedHash: upstream.computedHash };
    // A malformed audit record is no record: consent is never read from something that does not parse as consent.
    const record = auditRecordOf(audit);
    if (record !== undefined) kept.audit = record;
    out[name] = kept;
  }
  return out;
}

export async function writeSidecar(dir: string, lockBytes: string, skills: Sidecar["skills"]): Promise<void> {
  const sorted: Sidecar["skills"] = {};
  for (const name of Object.keys(skills).sort()) sorted[name] = skills[name] as SidecarEntry;
  const sidecar: Sidecar = { version: 1, lockSha256: sha256(lockBytes), skills: sorted };
  await writeFileAtomic(path.join(dir, SIDECAR_FILE), `${JSON.stringify(sidecar, null, 2)}\n`);
}

function auditRecordOf(value: unknown): AuditRecord | undefined {
  if (!isRecord(value) || typeof value.verdict !== "string") return undefined;
  const inventory = Array.isArray(value.inventory)
    ? value.inventory.filter((v): v is string => typeof v === "string")
    : [];
  const record: AuditRecord = { verdict: value.verdict, inventory };
  const a = value.accepted;
  if (isRecord(a) && typeof a.verdict === "string" && typeof a.by === "string" && typeof a.computedHash === "string") {
    record.accepted = { verdict: a.verdict, by: a.by, computedHash: a.computedHash };
  }
  return record;
}

class InvalidLockError extends InstallError {
  constructor(message: string) {
    super(message, "INSTALL_LOCK");
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidLockError(`${name}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
