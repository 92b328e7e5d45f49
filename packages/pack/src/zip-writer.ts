import { crc32, deflateRawSync } from "node:zlib";
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

// ZIP record layouts (PKWARE APPNOTE 4.3.7, 4.3.12, 4.3.16). Every entry's sizes and CRC are known before its
// header is written, so there are no data descriptors and no extra fields.
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const MADE_BY_UNIX_V63 = (3 << 8) | 63;
const NEEDS_V20 = 20;
const UTF8_NAMES = 1 << 11;
const STORE = 0;
const DEFLATE = 8;
/** 1980-01-01 00:00, the earliest DOS date (day 1, month 1, year 0) and time: fixed, so no time zone leaks in. */
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;
const S_IFREG = 0o100000;
/** Without ZIP64 every size and offset must fit 32 bits and the entry count 16 bits; package limits stay far below. */
const MAX_32 = 0xffffffff;
const MAX_ENTRIES = 0xffff;

/**
 * Builds a ZIP whose bytes depend only on the entries' paths, modes and contents: entries in UTF-8 path order,
 * fixed DOS timestamps, regular-file modes, UTF-8 names, deflate. Each entry is checksummed (native CRC-32) and
 * deflated in one synchronous call as it is added: on busy machines that costs less CPU than a thread-pool stream
 * per entry, and callers yield between files (decision 0102).
 */
export class DeterministicZip {
  readonly #level: number;
  readonly #body: Buffer[] = [];
  readonly #central: Buffer[] = [];
  #offset = 0;
  #last: string | undefined;

  constructor(options: ZipWriteOptions = {}) {
    this.#level = options.compressionLevel ?? 6;
  }

  /**
   * Adds one entry; entries must arrive in strictly increasing UTF-8 path order (that order is the determinism).
   * `entry.bytes` is not kept once this returns (a stored entry is copied), so callers may reuse its memory.
   */
  add(entry: ZipInput): void {
    if (this.#last !== undefined && comparePaths(this.#last, entry.path) >= 0) {
      throw new Error(`zip entries out of order: ${entry.path} after ${this.#last}`);
    }
    if (this.#central.length >= MAX_ENTRIES)
      throw new Error(`a zip without ZIP64 holds at most ${MAX_ENTRIES} entries`);
    this.#last = entry.path;
    const data = Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength);
    const compress = this.#level > 0 && !looksIncompressible(data);
    const stored = compress ? deflateRawSync(data, { level: this.#level }) : Buffer.from(data);
    const name = Buffer.from(entry.path, "utf8");
    if (data.byteLength > MAX_32 || this.#offset + 30 + name.byteLength + stored.byteLength > MAX_32) {
      throw new Error(`zip entry ${entry.path} would pass the 4 GiB limit of a zip without ZIP64`);
    }
    const fields = {
      method: compress ? DEFLATE : STORE,
      crc: crc32(data),
      compressedSize: stored.byteLength,
      size: data.byteLength,
      name,
    };
    this.#central.push(centralHeader(fields, (S_IFREG | entry.mode) * 0x10000, this.#offset));
    const local = localHeader(fields);
    this.#body.push(local, stored);
    this.#offset += local.byteLength + stored.byteLength;
  }

  /** Finishes the archive and returns its bytes. */
  finish(): Promise<Uint8Array> {
    const directory = Buffer.concat(this.#central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
    end.writeUInt16LE(this.#central.length, 8); // entries on this disk (disk numbers at 4 and 6 stay 0)
    end.writeUInt16LE(this.#central.length, 10); // entries in total
    end.writeUInt32LE(directory.byteLength, 12);
    end.writeUInt32LE(this.#offset, 16);
    return Promise.resolve(Buffer.concat([...this.#body, directory, end]));
  }
}

interface EntryFields {
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  name: Buffer;
}

/** The run of fields both headers share, from "version needed" to "name length" (local at 4, central at 6). */
function writeEntryFields(header: Buffer, at: number, e: EntryFields): void {
  header.writeUInt16LE(NEEDS_V20, at);
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(e.method, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(e.crc, at + 10);
  header.writeUInt32LE(e.compressedSize, at + 14);
  header.writeUInt32LE(e.size, at + 18);
  header.writeUInt16LE(e.name.byteLength, at + 22);
}

function localHeader(e: EntryFields): Buffer {
  const header = Buffer.alloc(30 + e.name.byteLength);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  writeEntryFields(header, 4, e);
  e.name.copy(header, 30); // extra field length at 28 stays 0
  return header;
}

function centralHeader(e: EntryFields, externalAttributes: number, localOffset: number): Buffer {
  const header = Buffer.alloc(46 + e.name.byteLength);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(MADE_BY_UNIX_V63, 4);
  writeEntryFields(header, 6, e);
  // extra length (30), comment length (32), disk (34), internal attributes (36) stay 0
  header.writeUInt32LE(externalAttributes, 38);
  header.writeUInt32LE(localOffset, 42);
  e.name.copy(header, 46);
  return header;
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
export async function writeDeterministicZip(
  entries: readonly ZipInput[],
  options: ZipWriteOptions = {},
): Promise<Uint8Array> {
  const zip = new DeterministicZip(options);
  for (const entry of [...entries].sort((a, b) => comparePaths(a.path, b.path))) zip.add(entry);
  return await zip.finish();
}
