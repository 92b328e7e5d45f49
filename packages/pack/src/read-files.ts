import { LimitExceededError } from "@skillport/core";
import { openConfined } from "@skillport/fs";
import type { ManifestFile } from "./manifest-file.js";
import { sha256Hex } from "./version.js";
import type { Collected } from "./walk.js";

/**
 * Bytes read between yields to the event loop, so packing a large package never stalls a server for long: each
 * file is also deflated synchronously by the zip writer, so 1 MiB is a slice of a few tens of milliseconds at most.
 */
const YIELD_EVERY_BYTES = 1024 * 1024;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads collected files in order, hashing each and handing it to `onFile` (e.g. the zip writer, which deflates it
 * at once). Every file is opened and THEN verified to lie inside the package (`openConfined`): a file swapped for a
 * link after the walk cannot smuggle a host file in. A file that grew past the per-file limit since the walk is
 * refused. Reads are synchronous: for the small files of a package a thread-pool round trip per file costs more than
 * the read; the loop yields every few MiB instead.
 */
export async function readCollected(
  collected: Pick<Collected, "root" | "files">,
  options: {
    followLinks?: boolean;
    maxFileBytes: number;
    /**
     * `onFile` gets a view of one buffer reused for every file, valid only during the call (it copies what it keeps):
     * no fresh memory per file, which on hosts with slow page faults is a good part of a pack's time (decision 0223).
     */
    transient?: boolean;
  },
  onFile: (file: ManifestFile, bytes: Uint8Array) => void,
): Promise<ManifestFile[]> {
  const manifest: ManifestFile[] = [];
  let scratch: Uint8Array | undefined;
  let sinceYield = 0;
  for (const file of collected.files) {
    const opened = openConfined(collected.root, file.source ?? file.path, {
      followLinksInside: (options.followLinks ?? false) || file.viaLink === true,
    });
    let read: Uint8Array | undefined;
    try {
      read = opened.readAllSync(options.maxFileBytes, scratch);
    } finally {
      opened.close();
    }
    if (read === undefined)
      throw new LimitExceededError(
        "maxFileBytes",
        `${file.path} grew past the per-file limit while it was being packed`,
      );
    const bytes = read;
    // A file larger than the scratch buffer was read into memory of its own: that memory becomes the scratch.
    if (options.transient && bytes.buffer !== scratch?.buffer) scratch = new Uint8Array(bytes.buffer);
    const entry: ManifestFile = { path: file.path, size: bytes.byteLength, sha256: sha256Hex(bytes), mode: file.mode };
    manifest.push(entry);
    onFile(entry, bytes);
    sinceYield += bytes.byteLength;
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return manifest;
}
