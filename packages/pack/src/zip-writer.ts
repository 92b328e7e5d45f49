import { ZipFile } from "yazl";
import { comparePaths } from "./paths.js";

export interface ZipInput {
  /** POSIX path inside the archive. */
  path: string;
  bytes: Uint8Array;
  mode: 0o755 | 0o644;
}

export interface ZipWriteOptions {
  /** zlib level 1–9 (0 stores). Default 6, Info-ZIP's default. */
  compressionLevel?: number;
}

/**
 * 1980-01-01 00:00, the earliest DOS time. Built from local components because the DOS fields are local time:
 * this encodes the same bytes in every time zone a process starts in.
 */
const fixedMtime = (): Date => new Date(1980, 0, 1, 0, 0, 0);

/**
 * Builds a ZIP whose bytes depend only on the entries' paths, modes and contents: entries in UTF-8 path order,
 * fixed timestamps without the extended-time field, regular-file modes, UTF-8 names, deflate.
 * Entries are compressed on the thread pool as soon as they are added, so callers can keep reading meanwhile.
 */
export class DeterministicZip {
  readonly #zip = new ZipFile();
  readonly #chunks: Buffer[] = [];
  readonly #done: Promise<void>;
  readonly #level: number;
  readonly #mtime = fixedMtime();
  #last: string | undefined;

  constructor(options: ZipWriteOptions = {}) {
    this.#level = options.compressionLevel ?? 6;
    this.#done = new Promise<void>((resolve, reject) => {
      this.#zip.outputStream.on("data", (chunk: Buffer) => this.#chunks.push(chunk));
      this.#zip.outputStream.on("end", () => resolve());
      this.#zip.outputStream.on("error", reject);
    });
  }

  /** Adds one entry; entries must arrive in strictly increasing UTF-8 path order (that order is the determinism). */
  add(entry: ZipInput): void {
    if (this.#last !== undefined && comparePaths(this.#last, entry.path) >= 0) {
      throw new Error(`zip entries out of order: ${entry.path} after ${this.#last}`);
    }
    this.#last = entry.path;
    const compress = this.#level > 0 && !looksIncompressible(entry.bytes);
    this.#zip.addBuffer(Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength), entry.path, {
      mtime: this.#mtime,
      mode: 0o100000 | entry.mode,
      compress,
      compressionLevel: compress ? this.#level : 0,
      forceDosTimestamp: true,
    });
  }

  /** Finishes the archive and returns its bytes. */
  async finish(): Promise<Uint8Array> {
    this.#zip.end();
    await this.#done;
    return Buffer.concat(this.#chunks);
  }
}

const SAMPLE_BYTES = 4096;
/** Bits per byte above which deflate cannot win: already-compressed data (PNG, JPEG, fonts, archives) or random. */
const INCOMPRESSIBLE_ENTROPY = 7.9;

/**
 * True when a file's bytes look already compressed, judged from the byte entropy of three 4 KiB samples. Such
 * entries are stored instead of deflated: deflating them costs the most CPU of a pack and gains nothing. Depends
 * only on the content, so archives stay deterministic; a wrong guess only makes an entry larger, never wrong.
 */
export function looksIncompressible(bytes: Uint8Array): boolean {
  if (bytes.byteLength < 2 * SAMPLE_BYTES) return false;
  const counts = new Uint32Array(256);
  const starts = [0, Math.floor((bytes.byteLength - SAMPLE_BYTES) / 2), bytes.byteLength - SAMPLE_BYTES];
  for (const start of starts) {
    for (let i = start; i < start + SAMPLE_BYTES; i++) {
      const byte = bytes[i] ?? 0;
      counts[byte] = (counts[byte] ?? 0) + 1;
    }
  }
  const total = starts.length * SAMPLE_BYTES;
  let entropy = 0;
  for (const count of counts) if (count > 0) entropy -= (count / total) * Math.log2(count / total);
  return entropy > INCOMPRESSIBLE_ENTROPY;
}

/** Convenience: a deterministic ZIP of `entries` in any order. */
export async function writeDeterministicZip(entries: readonly ZipInput[], options: ZipWriteOptions = {}): Promise<Uint8Array> {
  const zip = new DeterministicZip(options);
  for (const entry of [...entries].sort((a, b) => comparePaths(a.path, b.path))) zip.add(entry);
  return await zip.finish();
}
