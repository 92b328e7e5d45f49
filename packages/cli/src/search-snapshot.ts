import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { errorCode, isMissing, parseStateText } from "@skillport/fs";
import { SEARCH_ANALYSIS_VERSION } from "@skillport/core/internal";
import { SkillSearchIndex, type AnalysedSkill, type SearchIndexExport } from "@skillport/core";
import { cacheFileName } from "./cache-dir.js";
import { VERSION } from "./version.js";

/**
 * The warm path of `skillport search` (decision 0176): a snapshot of a clean load — every skill analysed, with the
 * description the results print, as a built index (SkillSearchIndex.export) — that a later run over the same folders of skills can answer from without
 * loading the registry, the fs provider or the YAML parser. It is trusted only while every stamp it recorded is
 * unchanged: each root folder (entries added, removed or renamed), each skill folder (SKILL.md added or removed) and
 * each SKILL.md (its content). Anything it cannot vouch for — a link, a database source, a single skill folder, a
 * load with failures, shadowing or skipped folders, a change during the load — means no snapshot is written, and the
 * normal path runs.
 */

// Bump when the file's layout changes.
const SNAPSHOT_FORMAT = 2;
const MAGIC = "SPSI";
// A file or folder modified this close to the start of the load may have changed during it: not vouched for. (As for
// the metadata index, mtime decides; the stamps compare ctime and inode too, so a later change is always seen.)
const RACY_WINDOW_MS = 2000;
// Typed arrays are stored in the machine's byte order; a file from another order is simply not ours.
const BYTE_ORDER = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? "le" : "be";

export interface SnapshotSkill {
  doc: AnalysedSkill;
  description: string;
}

/** What `readSnapshot` gives back: the loaded index and each skill's description. */
export interface WarmIndex {
  index: SkillSearchIndex;
  descriptions: ReadonlyMap<string, string>;
  skills: number;
}

// The file: MAGIC, u32 header length, header (JSON), padding to 4, then starts (Int32), posting docs (Int32),
// posting term frequencies (Float32) and posting field masks (Uint8) of SkillSearchIndex.export().
interface Header {
  format: number;
  scope: string;
  /** Absolute path → stamp, as `stamp()` gives it. */
  stamps: Record<string, string>;
  fields: string;
  docs: SearchIndexExport["docs"];
  descriptions: string[];
  terms: string[];
  postings: number;
}

function stamp(file: string): { key: string; changedMs: number } | undefined {
  const s = lstatSync(file, { throwIfNoEntry: false });
  if (!s || !(s.isFile() || s.isDirectory())) return undefined;
  return {
    key: `${s.isFile() ? "f" : "d"}:${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
    changedMs: s.mtimeMs,
  };
}

/** The snapshot file for these roots (absolute, as given) in `cacheDir`, and the scope it must carry. */
export function snapshotLocation(cacheDir: string, roots: readonly string[]): { file: string; scope: string } {
  return {
    file: path.join(cacheDir, cacheFileName("search-snapshot", roots).replace(/\.json$/, ".bin")),
    scope: [...roots, `analysis=${SEARCH_ANALYSIS_VERSION}`, `cli=${VERSION}`, BYTE_ORDER].join("\0"),
  };
}

/** A typed array over `length` items at `offset` of `buffer` (copied when the offset is not aligned). */
function view<T>(
  make: (b: ArrayBuffer, offset: number, length: number) => T,
  buffer: Buffer,
  offset: number,
  length: number,
  width: number,
): T {
  const at = buffer.byteOffset + offset;
  if (at % width === 0) return make(buffer.buffer as ArrayBuffer, at, length);
  return make(buffer.buffer.slice(at, at + length * width) as ArrayBuffer, 0, length);
}

/**
 * The header's shape (zod v4 mini, loaded when a snapshot is read). Its bulk — one entry per skill, term and stamp — is
 * checked by one loop each inside the schema (`z.custom`): zod's per-element parse of a 1,000-skill header costs
 * ~20 ms of CPU in a fresh process, more than the rest of a warm search's reading (measured; decision 0321).
 */
async function headerSchema() {
  const z = await import("zod/mini");
  const all = <T>(message: string, item: (value: unknown) => boolean) =>
    z.custom<T[]>((value) => Array.isArray(value) && value.every(item), { message });
  const isString = (value: unknown) => typeof value === "string";
  const isDoc = (value: unknown) => {
    const doc = value as { id?: unknown; hidden?: unknown; negative?: unknown } | null;
    return (
      typeof doc === "object" &&
      doc !== null &&
      typeof doc.id === "string" &&
      typeof doc.hidden === "boolean" &&
      (doc.negative === undefined || typeof doc.negative === "string")
    );
  };
  return z.object({
    format: z.number(),
    scope: z.string(),
    stamps: z.custom<Record<string, string>>(
      (value) =>
        typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every(isString),
      { message: "expected a record of strings" },
    ),
    fields: z.string(),
    docs: all<Header["docs"][number]>("expected skill entries ({ id, hidden, negative? })", isDoc),
    descriptions: all<string>("expected a list of strings", isString),
    terms: all<string>("expected a list of strings", isString),
    postings: z.number().check(z.int(), z.nonnegative()),
  });
}

/**
 * The warm index when the snapshot exists and every recorded stamp still holds. Undefined, quietly, when there is no
 * snapshot or it no longer vouches for the skills (another format, scope or stamp: the normal path runs and writes a
 * new one). `{ problem }` when the file is not a snapshot, is truncated or does not fit its header (decision 0321): the
 * command says so, and the normal path replaces it.
 */
export async function readSnapshot(file: string, scope: string): Promise<WarmIndex | { problem: string } | undefined> {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch (error) {
    return isMissing(error)
      ? undefined
      : { problem: `search snapshot ${file} cannot be read (${errorCode(error) ?? String(error)}); rebuilding it` };
  }
  const bad = (why: string) => ({ problem: `search snapshot ${file} ${why}; rebuilding it` });
  if (buffer.length < 8 || buffer.toString("latin1", 0, 4) !== MAGIC) return bad("is not a search snapshot");
  const headerLength = buffer.readUInt32LE(4);
  if (8 + headerLength > buffer.length) return bad("is truncated");
  const parsed = parseStateText<Header>(buffer.toString("utf8", 8, 8 + headerLength), await headerSchema());
  if ("problem" in parsed) return bad(`has a header that is ${parsed.problem}`);
  const header = parsed.value;
  if (header.format !== SNAPSHOT_FORMAT || header.scope !== scope) return undefined;
  const stamps = Object.entries(header.stamps);
  if (stamps.length === 0) return bad("vouches for nothing");
  for (const [where, key] of stamps) if (stamp(where)?.key !== key) return undefined;
  const terms = header.terms.length;
  const postings = header.postings;
  let offset = 8 + headerLength;
  offset += (4 - (offset % 4)) % 4;
  if (buffer.length !== offset + (terms + 1) * 4 + postings * 9)
    return bad("does not have the size its header says (truncated or damaged)");
  if (header.descriptions.length !== header.docs.length)
    return bad("has a description count that does not match its skills");
  const starts = view((b, o, n) => new Int32Array(b, o, n), buffer, offset, terms + 1, 4);
  offset += (terms + 1) * 4;
  const postingDocs = view((b, o, n) => new Int32Array(b, o, n), buffer, offset, postings, 4);
  offset += postings * 4;
  const postingTf = view((b, o, n) => new Float32Array(b, o, n), buffer, offset, postings, 4);
  offset += postings * 4;
  const postingMask = view((b, o, n) => new Uint8Array(b, o, n), buffer, offset, postings, 1);
  const data: SearchIndexExport = {
    fields: header.fields,
    docs: header.docs,
    terms: header.terms,
    starts,
    postingDocs,
    postingTf,
    postingMask,
  };
  let index: SkillSearchIndex;
  try {
    index = SkillSearchIndex.load(data);
  } catch (error) {
    return bad(`cannot be loaded (${error instanceof Error ? error.message : String(error)})`);
  }
  const descriptions = new Map(header.docs.map((d, i) => [d.id, header.descriptions[i] ?? ""]));
  return { index, descriptions, skills: header.docs.length };
}

export interface LoadedSkillForSnapshot {
  /** The folder-of-skills root (absolute, as given) the skill was found in. */
  root: string;
  id: string;
  /** Where its SKILL.md was read. */
  location: string;
  snapshot: SnapshotSkill;
}

/**
 * The stamps that vouch for a clean load begun at `loadStartedMs`, or undefined when something cannot be vouched for:
 * a root or skill folder that is a link or not where the load found it, or anything changed within the racy window
 * of the load's start.
 */
export function snapshotStamps(
  roots: readonly string[],
  skills: readonly LoadedSkillForSnapshot[],
  loadStartedMs: number,
): Record<string, string> | undefined {
  const stamps: Record<string, string> = {};
  const take = (where: string, kind: "d" | "f"): boolean => {
    const s = stamp(where);
    if (!s || !s.key.startsWith(kind) || s.changedMs >= loadStartedMs - RACY_WINDOW_MS) return false;
    stamps[where] = s.key;
    return true;
  };
  for (const root of roots) if (!take(root, "d")) return undefined;
  for (const skill of skills) {
    const dir = path.join(skill.root, skill.id);
    if (path.dirname(skill.location) !== dir || !take(dir, "d") || !take(skill.location, "f")) return undefined;
  }
  return stamps;
}

/** Builds the index of `skills` and writes the snapshot atomically; one that cannot be written costs only speed. */
export async function saveSnapshot(
  file: string,
  scope: string,
  stamps: Record<string, string>,
  skills: readonly SnapshotSkill[],
): Promise<void> {
  const { writeFileAtomic } = await import("@skillport/fs");
  const index = new SkillSearchIndex([]);
  const descriptions = new Map<string, string>();
  for (const s of skills) {
    index.addAnalysed(s.doc);
    descriptions.set(s.doc.id, s.description);
  }
  const data = index.export();
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    scope,
    stamps,
    fields: data.fields,
    docs: data.docs,
    descriptions: data.docs.map((d) => descriptions.get(d.id) ?? ""),
    terms: data.terms,
    postings: data.postingDocs.length,
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const lead = Buffer.alloc(8);
  lead.write(MAGIC, 0, "latin1");
  lead.writeUInt32LE(json.length, 4);
  const pad = Buffer.alloc((4 - ((8 + json.length) % 4)) % 4);
  const bytes = (a: Int32Array | Float32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const content = Buffer.concat([
    lead,
    json,
    pad,
    bytes(data.starts),
    bytes(data.postingDocs),
    bytes(data.postingTf),
    bytes(data.postingMask),
  ]);
  await writeFileAtomic(file, content).catch(() => undefined);
}
