import fs, { constants } from "node:fs";
import { errorCode } from "./errno.js";

export { errorCode, isMissing } from "./errno.js";

// O_NOFOLLOW: the final component must not be a link, checked by the kernel at open time (no lstat-then-open race).
// O_NONBLOCK: opening a FIFO must not hang waiting for a writer; it is then refused as "not a regular file".
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type OpenFailure = "missing" | "link" | "not-a-file" | "unreadable";

/** Reads into `buffer` at `offset` from file `position`; resolves with the number of bytes read (0 at the end). */
export type ReadAt = (buffer: Buffer, offset: number, length: number, position: number) => Promise<number>;

/**
 * An open file descriptor. The callback-style fs API is used on purpose: it costs noticeably less per call than
 * FileHandle, and metadata reads of thousands of skills are made of little else.
 */
export class OpenFile {
  readonly #fd: number;
  readonly #sync: boolean;
  /** `sync`: read with blocking calls (see `openNoFollowSync`). */
  constructor(fd: number, sync = false) {
    this.#fd = fd;
    this.#sync = sync;
  }

  readonly readAt: ReadAt = (buffer, offset, length, position) => {
    if (this.#sync) {
      try {
        return Promise.resolve(fs.readSync(this.#fd, buffer, offset, length, position));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise((resolve, reject) => fs.read(this.#fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
  };

  stat(): Promise<fs.Stats> {
    return new Promise((resolve, reject) => fs.fstat(this.#fd, (error, stats) => (error ? reject(error) : resolve(stats))));
  }

  close(): Promise<void> {
    if (this.#sync) {
      try {
        fs.closeSync(this.#fd);
      } catch {
        // nothing useful to do with a close error
      }
      return Promise.resolve();
    }
    return new Promise((resolve) => fs.close(this.#fd, () => resolve())); // nothing useful to do with a close error
  }
}

export type OpenResult = { ok: true; file: OpenFile } | { ok: false; reason: OpenFailure };

/** Opens a file for reading without following a final link and without blocking on FIFOs. */
export function openNoFollow(absPath: string): Promise<OpenResult> {
  return new Promise((resolve) =>
    fs.open(absPath, OPEN_FLAGS, (error, fd) => resolve(error ? { ok: false, reason: openFailure(error) } : { ok: true, file: new OpenFile(fd) })),
  );
}

/**
 * openNoFollow with blocking calls, for small bounded reads of local files: a blocking open/read/close costs a few
 * microseconds, while each async call is a thread-pool round trip that costs far more than the read itself when
 * thousands of SKILL.md heads are read (docs/decisions/0037-synchronous-small-reads.md).
 */
export function openNoFollowSync(absPath: string): OpenResult {
  try {
    return { ok: true, file: new OpenFile(fs.openSync(absPath, OPEN_FLAGS), true) };
  } catch (error) {
    return { ok: false, reason: openFailure(error) };
  }
}

export type OpenRegularResult = { ok: true; file: OpenFile; size: number } | { ok: false; reason: OpenFailure };

/** openNoFollow, then fstat on the same descriptor: a regular file and its size, or why not. */
export async function openRegularFile(absPath: string): Promise<OpenRegularResult> {
  const opened = await openNoFollow(absPath);
  if (!opened.ok) return opened;
  try {
    const stats = await opened.file.stat();
    if (stats.isFile()) return { ok: true, file: opened.file, size: stats.size };
  } catch (error) {
    await opened.file.close();
    throw error;
  }
  await opened.file.close();
  return { ok: false, reason: "not-a-file" };
}

function openFailure(error: unknown): OpenFailure {
  switch (errorCode(error)) {
    case "ENOENT":
    case "ENOTDIR":
      return "missing";
    case "ELOOP": // O_NOFOLLOW on a link
    case "EMLINK": // the same, on some BSDs
      return "link";
    case "ENXIO": // a socket, or a FIFO opened with O_NONBLOCK on some systems
    case "EISDIR":
      return "not-a-file";
    default:
      return "unreadable";
  }
}

/**
 * Reads the whole file, but never more than `maxBytes + 1` bytes: a file that grew past the limit after its size was
 * checked is noticed instead of read whole. Returns undefined when the content is over the limit.
 */
export async function readBounded(readAt: ReadAt, expectedSize: number, maxBytes: number): Promise<Uint8Array | undefined> {
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
