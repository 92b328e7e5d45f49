import { readFile } from "node:fs/promises";
import type { Frontmatter } from "@skillport/core";
import { writeFileAtomic } from "../floor/atomic.js";
/** What an index entry is keyed by: the located skill file (SkillDirectory). */
interface SkillLocation {
  dir: string;
  file: string;
  stamp: string;
}

// Bump when parsing changes what metadata a SKILL.md yields: older index files are then ignored.
const INDEX_FORMAT = 1;
// An entry whose file changed this recently is not stored: a second edit within the same timestamp tick and with
// the same size would otherwise go unnoticed (the "racy git" problem).
const RACY_WINDOW_MS = 2000;

interface IndexEntry {
  /** dev:ino:size:mtime:ctime of SKILL.md, plus its directory and name, when it was parsed. */
  key: string;
  /** The frontmatter as JSON: parsed again on every hit, so callers always get a fresh object. */
  json: string;
}

interface IndexFile {
  format: number;
  /** Everything else that shapes the parse (parser limits), so a change of options starts over. */
  scope: string;
  entries: Record<string, IndexEntry>;
}

/**
 * A persistent cache of parsed frontmatter, keyed by the SKILL.md stamp that discovery's lstat already yields: a hit
 * costs no open, no read and no YAML parse. Unreadable, corrupt or foreign files are ignored (the index is only ever
 * an optimisation); saving writes a temp file and renames it.
 */
export class MetadataIndex {
  readonly #file: string;
  readonly #scope: string;
  readonly #entries: Map<string, IndexEntry>;
  #dirty = false;

  private constructor(file: string, scope: string, entries: Map<string, IndexEntry>) {
    this.#file = file;
    this.#scope = scope;
    this.#entries = entries;
  }

  static async load(file: string, scope: string): Promise<MetadataIndex> {
    const entries = new Map<string, IndexEntry>();
    try {
      const data = JSON.parse(await readFile(file, "utf8")) as Partial<IndexFile>;
      if (data.format === INDEX_FORMAT && data.scope === scope && typeof data.entries === "object" && data.entries !== null) {
        for (const [id, entry] of Object.entries(data.entries)) {
          if (typeof entry?.key === "string" && typeof entry.json === "string") entries.set(id, { key: entry.key, json: entry.json });
        }
      }
    } catch {
      // missing or unreadable: start empty
    }
    return new MetadataIndex(file, scope, entries);
  }

  get(id: string, location: SkillLocation): Frontmatter | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.key !== keyOf(location)) return undefined;
    return JSON.parse(entry.json) as Frontmatter;
  }

  set(id: string, location: SkillLocation, frontmatter: Frontmatter): void {
    const mtimeMs = Number(location.stamp.split(":")[3]);
    if (!(Date.now() - mtimeMs > RACY_WINDOW_MS)) return;
    const entry = { key: keyOf(location), json: JSON.stringify(frontmatter) };
    const old = this.#entries.get(id);
    if (old?.key === entry.key && old.json === entry.json) return;
    this.#entries.set(id, entry);
    this.#dirty = true;
  }

  /** Keeps only the given ids (after a discover), so removed skills do not linger. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.#entries.keys()) {
      if (!ids.has(id)) {
        this.#entries.delete(id);
        this.#dirty = true;
      }
    }
  }

  /** Writes the index when it changed; true when something was written. */
  async save(): Promise<boolean> {
    if (!this.#dirty) return false;
    const data: IndexFile = { format: INDEX_FORMAT, scope: this.#scope, entries: Object.fromEntries(this.#entries) };
    await writeFileAtomic(this.#file, JSON.stringify(data));
    this.#dirty = false;
    return true;
  }
}

function keyOf(location: SkillLocation): string {
  return `${location.stamp}:${location.file}:${location.dir}`;
}
