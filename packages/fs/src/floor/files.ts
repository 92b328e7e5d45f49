import fs from "node:fs";

/** Reads into `buffer` at `offset` from file `position`; resolves with the number of bytes read (0 at the end). */
export type ReadAt = (buffer: Buffer, offset: number, length: number, position: number) => Promise<number>;

/**
 * Reads from a descriptor that openConfined opened and verified (the descriptor's owner closes it). The callback-style
 * fs API is used on purpose: it costs less per call than FileHandle, and metadata reads of thousands of skills are made
 * of little else. `sync`: blocking reads (docs/decisions/0037).
 */
export function descriptorReader(fd: number, sync: boolean): ReadAt {
  if (sync) {
    return (buffer, offset, length, position) => {
      try {
        return Promise.resolve(fs.readSync(fd, buffer, offset, length, position));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return (buffer, offset, length, position) =>
    new Promise((resolve, reject) =>
      fs.read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
    );
}

/**
 * Reads the whole file, but never more than `maxBytes + 1` bytes: a file that grew past the limit after its size was
 * checked is noticed instead of read whole. Returns undefined when the content is over the limit.
 */
export async function readBounded(
  readAt: ReadAt,
  expectedSize: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const cap = maxBytes + 1;
  // Unpooled memory, so the returned view owns its whole ArrayBuffer (no neighbouring bytes reachable via .buffer).
  let buffer = Buffer.allocUnsafeSlow(Math.max(1, Math.min(expectedSize + 1, cap)));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= cap) break;
      const bigger = Buffer.allocUnsafeSlow(Math.min(buffer.length * 2, cap));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const bytesRead = await readAt(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > maxBytes) return undefined;
  return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
}
