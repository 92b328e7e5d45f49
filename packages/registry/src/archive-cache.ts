import { isUtf8 } from "node:buffer";
import { sha256Hex } from "./blobs.js";
import type { FileEntry } from "./types.js";

/** One file of a published archive, ready to serve: its bytes, its entry and whether it is UTF-8 text. */
export interface ServedFile {
  bytes: Uint8Array;
  entry: FileEntry;
  /** UTF-8 without NUL bytes: served as text/plain, else as application/octet-stream. */
  text: boolean;
}

/** The files of an archive as they are served, by path inside the skill folder. */
export function servedFiles(
  files: ReadonlyArray<{ path: string; bytes: Uint8Array; mode: number }>,
): Map<string, ServedFile> {
  const out = new Map<string, ServedFile>();
  for (const f of files) {
    out.set(f.path, {
      bytes: f.bytes,
      entry: { path: f.path, size: f.bytes.byteLength, sha256: sha256Hex(f.bytes), mode: f.mode },
      text: !f.bytes.includes(0) && isUtf8(f.bytes),
    });
  }
  return out;
}

interface Slot {
  files: Promise<Map<string, ServedFile>>;
  bytes: number;
}

/**
 * Unpacked archives by blob digest (decision 0411). A blob never changes, so nothing cached under its digest can go
 * stale and two servers cannot disagree about it: whether a version may be served is decided before, from the
 * catalog snapshot. The least recently used archives go first once the unpacked bytes pass the budget (the newest
 * one always stays).
 */
export class ArchiveCache {
  readonly #maxBytes: number;
  readonly #slots = new Map<string, Slot>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The files of blob `digest`, loaded by `load` on a miss (one load at a time per digest). */
  get(digest: string, load: () => Promise<Map<string, ServedFile>>): Promise<Map<string, ServedFile>> {
    const hit = this.#slots.get(digest);
    if (hit) {
      this.#slots.delete(digest);
      this.#slots.set(digest, hit);
      return hit.files;
    }
    const slot: Slot = { files: load(), bytes: 0 };
    this.#slots.set(digest, slot);
    slot.files.then(
      (files) => {
        if (this.#slots.get(digest) !== slot) return;
        for (const f of files.values()) slot.bytes += f.bytes.byteLength;
        this.#bytes += slot.bytes;
        this.#evict();
      },
      () => {
        if (this.#slots.get(digest) === slot) this.#slots.delete(digest);
      },
    );
    return slot.files;
  }

  #evict(): void {
    for (const [digest, slot] of this.#slots) {
      if (this.#bytes <= this.#maxBytes || this.#slots.size <= 1) return;
      this.#slots.delete(digest);
      this.#bytes -= slot.bytes;
    }
  }
}
