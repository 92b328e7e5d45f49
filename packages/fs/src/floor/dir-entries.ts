import { readdirSync, type Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { isUtf8 } from "node:buffer";

/** A directory entry whose name is not valid UTF-8: Node would hand it over with U+FFFD in place of the bad bytes. */
export interface UndecodableEntry {
  /** The name with every byte that is not part of valid UTF-8 written as `\xHH` (the rest as text). */
  escaped: string;
  /** The raw name. */
  bytes: Buffer;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface DirectoryEntries {
  /** Entries whose names are text, as readdir gives them (unsorted). */
  entries: Dirent[];
  /** Entries whose names are not UTF-8: they cannot be opened through a string path, so they are reported instead. */
  undecodable: UndecodableEntry[];
}

/**
 * THE directory listing of the fs floor (the walker and the flat locator): readdir with file types, plus the names
 * that are not valid UTF-8. Node decodes such a name with U+FFFD in place of the bad bytes, so a string path to it
 * names nothing (ENOENT, "no SKILL.md"); they are listed apart, by their raw bytes (docs/decisions/0281). Only a
 * directory holding a U+FFFD is read a second time, as bytes: the common case costs nothing.
 */
export function readDirectorySync(dir: string): DirectoryEntries {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (!entries.some(mangled)) return { entries, undecodable: [] };
  return separate(entries, readdirSync(dir, { withFileTypes: true, encoding: "buffer" }));
}

/** readDirectorySync with promises. */
export async function readDirectory(dir: string): Promise<DirectoryEntries> {
  const entries = await readdir(dir, { withFileTypes: true });
  if (!entries.some(mangled)) return { entries, undecodable: [] };
  return separate(entries, await readdir(dir, { withFileTypes: true, encoding: "buffer" }));
}

const mangled = (entry: Dirent): boolean => entry.name.includes("\uFFFD");

/** Keeps the decoded entries whose raw names really are UTF-8 (a real U+FFFD in a name is fine), reports the rest. */
function separate(entries: readonly Dirent[], raw: ReadonlyArray<Dirent<Buffer>>): DirectoryEntries {
  const genuine = new Map<string, number>();
  const undecodable: UndecodableEntry[] = [];
  for (const entry of raw) {
    const bytes = entry.name;
    if (isUtf8(bytes)) {
      const name = bytes.toString("utf8");
      genuine.set(name, (genuine.get(name) ?? 0) + 1);
    } else {
      undecodable.push({
        escaped: escapeUndecodable(bytes),
        bytes,
        isDirectory: entry.isDirectory(),
        isSymbolicLink: entry.isSymbolicLink(),
      });
    }
  }
  const kept = entries.filter((entry) => {
    if (!mangled(entry)) return true;
    const left = genuine.get(entry.name) ?? 0;
    if (left === 0) return false;
    genuine.set(entry.name, left - 1);
    return true;
  });
  return { entries: kept, undecodable };
}

/**
 * `bytes` as text, with each byte that does not belong to a valid UTF-8 sequence written `\xHH`: `caf\xFF`. The
 * shortest valid prefix at each position is exactly one code point, so `isUtf8` on 1–4 bytes finds the characters.
 */
export function escapeUndecodable(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length;) {
    let length = 0;
    for (let n = 1; n <= 4 && i + n <= bytes.length; n++) {
      if (isUtf8(bytes.subarray(i, i + n))) {
        length = n;
        break;
      }
    }
    if (length === 0) {
      out += `\\x${bytes[i]!.toString(16).toUpperCase().padStart(2, "0")}`;
      i++;
    } else {
      out += Buffer.from(bytes.subarray(i, i + length)).toString("utf8");
      i += length;
    }
  }
  return out;
}
