import { readFile } from "node:fs/promises";
import type { Frontmatter } from "@skillport/core";
import { writeFileAtomic } from "../floor/atomic.js";
import { errorCode, isMissing } from "../floor/errno.js";
import { parseStateText } from "../floor/state-file.js";
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
 * The file's shape (zod v4 mini, loaded with the first index: a provider without one never loads zod). The entries —
 * one per skill — are checked by one loop inside the schema: zod's per-entry parse costs ~10 ms of CPU per 1,000
 * skills in a fresh process, on every listing (measured; decision 0321).
 */
async function indexSchema() {
  const z = await import("zod/mini");
  const isEntry = (value: unknown) => {
    const entry = value as { key?: unknown; json?: unknown } | null;
    return (
      typeof entry === "object" && entry !== null && typeof entry.key === "string" && typeof entry.json === "string"
    );
  };
  const entries = z.custom<Record<string, IndexEntry>>(
    (value) =>
      typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every(isEntry),
    {
      message: "expected index entries ({ key, json } per skill)",
    },
  );
  return z.object({ format: z.number(), scope: z.string(), entries });
}

/**
 * A persistent cache of parsed frontmatter, keyed by the SKILL.md stamp that discovery's lstat already yields: a hit
 * costs no open, no read and no YAML parse. The file is read through a schema (decision 0321): a missing file, or one
 * of another format or parse scope, starts an empty index quietly; an unreadable, truncated or foreign one starts an
 * empty index, is named in `problem` (the provider passes it to its `warn`), and is replaced at the next save. Saving
 * writes a temp file and renames it.
 */
export class MetadataIndex {
  readonly #file: string;
  readonly #scope: string;
  readonly #entries: Map<string, IndexEntry>;
  /** Why the file on disk could not be used (it is being rebuilt), or undefined. */
  readonly problem: string | undefined;
  #dirty: boolean;

  private constructor(file: string, scope: string, entries: Map<string, IndexEntry>, problem: string | undefined) {
    this.#file = file;
    this.#scope = scope;
    this.#entries = entries;
    this.problem = problem;
    this.#dirty = problem !== undefined; // a bad file is replaced at the next save, even with nothing new in it
  }

  static async load(file: string, scope: string): Promise<MetadataIndex> {
    const entries = new Map<string, IndexEntry>();
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const problem = isMissing(error)
        ? undefined
        : `metadata index ${file} cannot be read (${errorCode(error) ?? String(error)}); rebuilding it`;
      return new MetadataIndex(file, scope, entries, problem);
    }
    const parsed = parseStateText<IndexFile>(text, await indexSchema());
    if ("problem" in parsed)
      return new MetadataIndex(file, scope, entries, `metadata index ${file} is ${parsed.problem}; rebuilding it`);
    const data = parsed.value;
    // Another format or parse scope is an index of other settings: not ours to use, nothing to warn about.
    if (data.format === INDEX_FORMAT && data.scope === scope)
      for (const [id, entry] of Object.entries(data.entries)) entries.set(id, entry);
    return new MetadataIndex(file, scope, entries, undefined);
  }

  get(id: string, location: SkillLocation): Frontmatter | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.key !== keyOf(location)) return undefined;
    let frontmatter: unknown;
    try {
      frontmatter = JSON.parse(entry.json);
    } catch {
      frontmatter = undefined;
    }
    if (typeof frontmatter === "object" && frontmatter !== null && !Array.isArray(frontmatter))
      return frontmatter as Frontmatter;
    // A damaged entry is a miss: the SKILL.md is parsed again and the entry replaced.
    this.#entries.delete(id);
    this.#dirty = true;
    return undefined;
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
