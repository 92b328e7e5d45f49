import { createHash } from "node:crypto";
import { skillFields, type RegistryEntry, type SkillRegistry } from "@skillport/core";
import { auditSkill } from "@skillport/audit";
import {
  SKILL_LIMITS,
  SkillCatalogError,
  skillEntry,
  type DirectoryResource,
  type Skill,
} from "@modelcontextprotocol/server/ext/skills";

/**
 * One file of a served skill: its index entry — the size and digest the skill's entry advertises — not its bytes,
 * which are read from the source on demand and verified against `digest` (decision 0381, `FileBytes`).
 */
export interface ServedFile {
  readonly uri: string;
  /** Path inside the skill, `/`-separated. */
  readonly path: string;
  readonly size: number;
  /** `sha256:<hex>` of the bytes the snapshot was built from (the entry's digest). */
  readonly digest: string;
  readonly mimeType: string;
  /** True when the bytes are UTF-8 without NUL (sent as text; otherwise a base64 blob). */
  readonly isText: boolean;
}

/** One skill as served: the SDK-built entry and the index of the files it describes, never changed after capture. */
export interface ServedSkill {
  /** The registry id (what the tool fallback names it by). */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** 12 hex characters over the skill's files: the first segment of every URI of this version. */
  readonly version: string;
  /** `skill://<version>/<name>`, no trailing slash. */
  readonly root: string;
  readonly entry: Skill;
  readonly files: ReadonlyMap<string, ServedFile>;
  /** Directory URI (the root included) → direct children, sorted by URI; built on the first directory read. */
  dirs(): ReadonlyMap<string, readonly DirectoryResource[]>;
  readonly bytes: number;
  readonly source: string;
  /** Reads one of its files from the source as it is now (through the registry entry); verify before serving. */
  readonly readFile: (path: string) => Promise<Uint8Array>;
}

/** A skill that is not served, and why (logged by the server, shown by the CLI). */
export interface Refusal {
  id: string;
  source: string;
  reason: string;
}

/** One immutable generation: what every request between two swaps is answered from. */
export interface Snapshot {
  readonly generation: number;
  /** Sorted by entry URI. */
  readonly skills: readonly ServedSkill[];
  /** The entries of `skills`, same order: what `skills/list` pages through. */
  readonly entries: readonly Skill[];
  readonly byRoot: ReadonlyMap<string, ServedSkill>;
  readonly byId: ReadonlyMap<string, ServedSkill>;
  readonly refused: readonly Refusal[];
  readonly bytes: number;
}

export interface SnapshotLimits {
  /** Files per skill. Default 512 (the extension's interoperability limit). */
  maxFiles?: number;
  /** Bytes per skill. Default 16 MiB (16,777,216, the extension's limit). */
  maxSkillBytes?: number;
  /** Bytes of all served skills together. Default 2 GiB. */
  maxTotalBytes?: number;
  /** Skills read at once while building. Default 8. */
  concurrency?: number;
  /** Refuse skills the audit judges `malicious`. Default true. */
  audit?: boolean;
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** MIME type by extension; `SKILL.md` is `text/markdown`; unknown → `application/octet-stream`. */
function mimeTypeOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return EXTENSIONS[base.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 text without NUL, or undefined (then the bytes go as a base64 blob). */
export function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What building one skill produced. */
type Built = { skill: ServedSkill } | { refusal: Refusal };

function refuse(entry: RegistryEntry, reason: string): Built {
  return { refusal: { id: entry.id, source: entry.source, reason } };
}

/** The version segment: sha256 over `path NUL digest LF` of every file, sorted by path; 12 hex characters. */
function versionOf(files: readonly { path: string; digest: string }[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    hash.update(`${f.path}\0${f.digest}\n`);
  return hash.digest("hex").slice(0, 12);
}

/** `sha256:<hex>`, the form of the SDK's entry digests. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * Reads one registry entry whole (after checking the listing against the limits), audits exactly those bytes, and
 * has the SDK build and check its entry (digests, frontmatter, name rule). Anything wrong → a refusal with the reason.
 */
async function buildSkill(
  entry: RegistryEntry,
  limits: Required<SnapshotLimits>,
  read?: (digest: string, bytes: Uint8Array) => void,
): Promise<Built> {
  const name = skillFields(entry.getMetadata()).name ?? "";
  let listed;
  try {
    listed = await entry.listFiles();
  } catch (error) {
    return refuse(entry, `its files could not be listed: ${messageOf(error)}`);
  }
  if (listed.length > limits.maxFiles)
    return refuse(entry, `${listed.length} files, over the limit of ${limits.maxFiles} files per skill`);
  const listedBytes = listed.reduce((sum, f) => sum + f.size, 0);
  if (listedBytes > limits.maxSkillBytes)
    return refuse(entry, `${listedBytes} bytes, over the limit of ${limits.maxSkillBytes} bytes per skill`);
  const record: Record<string, Uint8Array> = {};
  let total = 0;
  for (const file of listed) {
    try {
      const bytes = await entry.readFile(file.path);
      total += bytes.byteLength;
      // The listing may be stale: the bytes read are what counts.
      if (total > limits.maxSkillBytes)
        return refuse(entry, `over the limit of ${limits.maxSkillBytes} bytes per skill`);
      record[file.path] = bytes;
    } catch (error) {
      return refuse(entry, `${file.path} could not be read: ${messageOf(error)}`);
    }
  }
  if (!Object.hasOwn(record, "SKILL.md"))
    return refuse(entry, "no SKILL.md among its files (the name is case-sensitive)");
  if (limits.audit) {
    const report = auditSkill(Object.entries(record).map(([path, bytes]) => ({ path, bytes })));
    if (report.verdict === "malicious") {
      const why = report.findings
        .filter((f) => f.level === "malicious")
        .slice(0, 3)
        .map((f) => `${f.code} in ${f.file}`);
      return refuse(entry, `the audit's verdict is malicious (${why.join(", ")})`);
    }
  }
  const digests = Object.entries(record).map(([path, bytes]) => ({ path, digest: sha256Digest(bytes) }));
  const version = versionOf(digests);
  let built: Skill;
  try {
    built = await skillEntry(`${version}/${name || entry.id}`, record);
  } catch (error) {
    if (error instanceof SkillCatalogError) return refuse(entry, error.problems.map((p) => p.message).join("; "));
    return refuse(entry, messageOf(error));
  }
  // The SDK's frontmatter values are slices of the decoded SKILL.md: kept as they are, each entry would hold its whole
  // SKILL.md text alive (a second copy of the bytes, twice as large for non-Latin-1 text). The entry is JSON on the
  // wire, so a JSON round trip gives the same entry built from fresh, compact strings.
  built = JSON.parse(JSON.stringify(built)) as Skill;
  const root = built.uri.slice(0, -"/SKILL.md".length);
  const files = new Map<string, ServedFile>();
  if (built.resources === "dynamic") return refuse(entry, "the SDK built a dynamic entry");
  const byPath = new Map(Object.entries(record));
  // The index only: the bytes read here are let go once the skill is built, and read again on demand.
  for (const resource of built.resources) {
    const path = decodeURIComponent(resource.uri.slice(root.length + 1));
    const read = byPath.get(path);
    if (read === undefined) return refuse(entry, `${resource.uri} does not map back to a file`);
    files.set(resource.uri, {
      uri: resource.uri,
      path,
      size: read.byteLength,
      digest: resource.digest,
      mimeType: mimeTypeOf(path),
      isText: textOf(read) !== undefined,
    });
  }
  // A rebuilt skill's bytes, just read and verified by its digests, go to the hot-file cache: a file rewritten again
  // right away (an editor saving twice) leaves this version readable while it stays hot.
  if (read !== undefined) for (const file of files.values()) read(file.digest, byPath.get(file.path) as Uint8Array);
  deepFreeze(built);
  return {
    skill: {
      id: entry.id,
      name: built.frontmatter.name,
      description: built.frontmatter.description,
      version,
      root,
      entry: built,
      files,
      dirs: lazily(() => directoriesOf(root, files)),
      bytes: total,
      source: entry.source,
      readFile: (path) => entry.readFile(path),
    },
  };
}

/** Every directory of a skill (its root included) with its direct children: files with size, folders as inode/directory. */
function directoriesOf(root: string, files: ReadonlyMap<string, ServedFile>): Map<string, DirectoryResource[]> {
  const dirs = new Map<string, Map<string, DirectoryResource>>([[root, new Map()]]);
  for (const file of files.values()) {
    const relative = file.uri.slice(root.length + 1).split("/");
    let dir = root;
    for (const [i, segment] of relative.entries()) {
      const uri = `${dir}/${segment}`;
      const children = dirs.get(dir) ?? new Map<string, DirectoryResource>();
      dirs.set(dir, children);
      const name = decodeURIComponent(segment);
      if (i === relative.length - 1) children.set(uri, { uri, name, mimeType: file.mimeType, size: file.size });
      else children.set(uri, { uri, name, mimeType: "inode/directory" });
      dir = uri;
    }
  }
  return new Map(
    [...dirs].map(([uri, children]) => [
      uri,
      [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)),
    ]),
  );
}

function lazily<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Builds the next snapshot from a registry's winning skills. Skills whose ids are not in `changed` are taken from
 * `previous` as they are (same files, same entry): a refresh after one edit reads one skill. Registry failures (skills
 * that did not validate) are refusals too. `read` is told the bytes of every file of every skill built.
 */
export async function buildSnapshot(
  registry: SkillRegistry,
  options: SnapshotLimits = {},
  previous?: Snapshot,
  changed?: ReadonlySet<string>,
  read?: (digest: string, bytes: Uint8Array) => void,
): Promise<Snapshot> {
  const limits: Required<SnapshotLimits> = {
    maxFiles: options.maxFiles ?? SKILL_LIMITS.files,
    maxSkillBytes: options.maxSkillBytes ?? SKILL_LIMITS.bytes,
    maxTotalBytes: options.maxTotalBytes ?? 2 * 1024 ** 3,
    concurrency: options.concurrency ?? 8,
    audit: options.audit ?? true,
  };
  const entries = registry.list();
  const results: Built[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const i = next++;
      const entry = entries[i] as RegistryEntry;
      const kept = changed === undefined ? undefined : previous?.byId.get(entry.id);
      results[i] =
        kept !== undefined && kept.source === entry.source && !changed?.has(entry.id)
          ? { skill: kept }
          : await buildSkill(entry, limits, read);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limits.concurrency, entries.length)) }, worker));
  const refused: Refusal[] = registry.failures.map((f) => ({
    id: f.id ?? "(source)",
    source: f.source,
    reason: f.message,
  }));
  const skills: ServedSkill[] = [];
  const names = new Map<string, string>();
  let bytes = 0;
  for (const result of results) {
    if ("refusal" in result) {
      refused.push(result.refusal);
      continue;
    }
    const { skill } = result;
    const holder = names.get(skill.name);
    if (holder !== undefined) {
      refused.push({
        id: skill.id,
        source: skill.source,
        reason: `its name "${skill.name}" is already served by ${holder}`,
      });
      continue;
    }
    if (bytes + skill.bytes > limits.maxTotalBytes) {
      refused.push({
        id: skill.id,
        source: skill.source,
        reason: `serving it would pass the limit of ${limits.maxTotalBytes} bytes for all skills`,
      });
      continue;
    }
    names.set(skill.name, `${skill.source}:${skill.id}`);
    bytes += skill.bytes;
    skills.push(skill);
  }
  skills.sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : a.entry.uri > b.entry.uri ? 1 : 0));
  return {
    generation: (previous?.generation ?? 0) + 1,
    skills,
    entries: skills.map((s) => s.entry),
    byRoot: new Map(skills.map((s) => [s.root, s])),
    byId: new Map(skills.map((s) => [s.id, s])),
    refused,
    bytes,
  };
}
