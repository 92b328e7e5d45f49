import { readFileSync } from "node:fs";
import type { ManifestFile } from "./pack.js";
import { sha256Hex } from "./version.js";
import type { CollectedFile } from "./walk.js";

/**
 * Bytes read between yields to the event loop, so packing a large package never stalls a server for long: each
 * file is also deflated synchronously by the zip writer, so 1 MiB is a slice of a few tens of milliseconds at most.
 */
const YIELD_EVERY_BYTES = 1024 * 1024;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads collected files in order, hashing each and handing it to `onFile` (e.g. the zip writer, which deflates it
 * at once). Reads are synchronous: for the small files of a package a thread-pool
 * round trip per file costs more than the read; the loop yields every few MiB instead.
 */
export async function readCollected(
  files: readonly CollectedFile[],
  onFile: (file: ManifestFile, bytes: Uint8Array) => void,
): Promise<ManifestFile[]> {
  const manifest: ManifestFile[] = [];
  let sinceYield = 0;
  for (const file of files) {
    const bytes = readFileSync(file.source);
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
