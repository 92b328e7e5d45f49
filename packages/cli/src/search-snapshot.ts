import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { SEARCH_ANALYSIS_VERSION, type AnalysedSkill } from "@skillport/core/internal/search";
import { cacheFileName } from "./cache-dir.js";
import { VERSION } from "./version.js";

/**
 * The warm path of `skillport search` (decision 0176): a snapshot of a clean load — every skill analysed, with the
 * description the results print — that a later run over the same folders of skills can answer from without
 * loading the registry, the fs provider or the YAML parser. It is trusted only while every stamp it recorded is
 * unchanged: each root folder (entries added, removed or renamed), each skill folder (SKILL.md added or removed) and
 * each SKILL.md (its content). Anything it cannot vouch for — a link, a database source, a single skill folder, a
 * load with failures, shadowing or skipped folders, a change during the load — means no snapshot is written, and the
 * normal path runs.
 */

// Bump when the file's shape changes.
const SNAPSHOT_FORMAT = 1;
// A file or folder changed this close to the start of the load may have changed during it: not vouched for.
const RACY_WINDOW_MS = 2000;

export interface SnapshotSkill {
  doc: AnalysedSkill;
  description: string;
}

interface SnapshotFile {
  format: number;
  scope: string;
  /** Absolute path → stamp, as `stamp()` gives it. */
  stamps: Record<string, string>;
  skills: SnapshotSkill[];
}

function stamp(file: string): { key: string; changedMs: number } | undefined {
  const s = lstatSync(file, { throwIfNoEntry: false });
  if (!s || !(s.isFile() || s.isDirectory())) return undefined;
  return { key: `${s.isFile() ? "f" : "d"}:${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`, changedMs: Math.max(s.mtimeMs, s.ctimeMs) };
}

/** The snapshot file for these roots (absolute, as given) in `cacheDir`, and the scope it must carry. */
export function snapshotLocation(cacheDir: string, roots: readonly string[]): { file: string; scope: string } {
  return {
    file: path.join(cacheDir, cacheFileName("search-snapshot", roots)),
    scope: [...roots, `analysis=${SEARCH_ANALYSIS_VERSION}`, `cli=${VERSION}`].join("\0"),
  };
}

/** The snapshot's skills when every recorded stamp still holds; otherwise undefined (and the caller loads normally). */
export function readSnapshot(file: string, scope: string): SnapshotSkill[] | undefined {
  let data: Partial<SnapshotFile>;
  try {
    data = JSON.parse(readFileSync(file, "utf8")) as Partial<SnapshotFile>;
  } catch {
    return undefined; // missing, unreadable or corrupt: the normal path rebuilds it
  }
  if (data.format !== SNAPSHOT_FORMAT || data.scope !== scope || !data.stamps || !Array.isArray(data.skills)) return undefined;
  const stamps = Object.entries(data.stamps);
  if (stamps.length === 0) return undefined;
  for (const [where, key] of stamps) if (stamp(where)?.key !== key) return undefined;
  const valid = data.skills.every((s) => typeof s?.description === "string" && typeof s.doc?.id === "string" && typeof s.doc.fields === "object" && s.doc.fields !== null);
  return valid ? data.skills : undefined;
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
export function snapshotStamps(roots: readonly string[], skills: readonly LoadedSkillForSnapshot[], loadStartedMs: number): Record<string, string> | undefined {
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

/** Writes the snapshot atomically; a snapshot that cannot be written costs speed, never the answer. */
export async function saveSnapshot(file: string, scope: string, stamps: Record<string, string>, skills: readonly SnapshotSkill[]): Promise<void> {
  const { writeFileAtomic } = await import("@skillport/fs");
  const data: SnapshotFile = { format: SNAPSHOT_FORMAT, scope, stamps, skills: [...skills] };
  await writeFileAtomic(file, JSON.stringify(data)).catch(() => undefined);
}
