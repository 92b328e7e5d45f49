import { constants, crc32, inflateRawSync } from "node:zlib";
import { LimitExceededError } from "@skillport/core";
import { ArchiveError } from "../errors.js";
import type { EntryKind, RawEntry } from "./entries.js";
import { errorCode } from "@skillport/fs";

const UTF8_FLAG = 0x800;
/** Traditional (bit 0) or strong (bit 6) encryption. */
const ENCRYPTED_FLAGS = 0x1 | 0x40;
const MADE_BY_UNIX = 3;
const S_IFMT = 0o170000;

/** One central-directory record: what the listing checks and the reader needs (APPNOTE 4.3.12). */
export interface ZipEntry {
  /** Name bytes as stored; decoded (strictly UTF-8) by `describe`. */
  fileName: Buffer;
  versionMadeBy: number;
  generalPurposeBitFlag: number;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  externalFileAttributes: number;
  relativeOffsetOfLocalHeader: number;
}

/** A central-directory record with what the listing rules check. */
export interface ListedZipEntry {
  raw: RawEntry;
  entry: ZipEntry;
}

const END_SIGNATURE = 0x06054b50;
const END_BYTES = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_END_BYTES = 56;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_BYTES = 46;
const ZIP64_EXTRA_ID = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/**
 * Reads only the central directory: names, kinds and declared sizes. Nothing is inflated. Synchronous and without
 * a stream: the directory is a few KiB of the archive already in memory. Every offset is bounds-checked, so a
 * damaged or hostile archive is `corrupt`, never an out-of-range read.
 */
export function listZip(bytes: Buffer, maxEntries: number): ListedZipEntry[] {
  const directory = locateDirectory(bytes);
  if (directory.count === 0) throw new ArchiveError("empty", "the archive is empty");
  // Checked before walking the directory: a million-entry archive is refused without listing it.
  if (directory.count > maxEntries) {
    throw new LimitExceededError(
      "maxFiles",
      `the archive has ${directory.count} entries, more than the ${maxEntries} allowed`,
    );
  }
  const entries: ListedZipEntry[] = [];
  let at = directory.offset;
  for (let i = 0; i < directory.count; i++) {
    if (at + CENTRAL_BYTES > directory.end || bytes.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
      throw corruptZip(`central directory record ${i + 1} of ${directory.count} is missing`);
    }
    const nameStart = at + CENTRAL_BYTES;
    const extraStart = nameStart + bytes.readUInt16LE(at + 28);
    const extraEnd = extraStart + bytes.readUInt16LE(at + 30);
    const next = extraEnd + bytes.readUInt16LE(at + 32);
    if (next > directory.end) throw corruptZip(`central directory record ${i + 1} runs past the directory`);
    const entry: ZipEntry = {
      fileName: bytes.subarray(nameStart, extraStart),
      versionMadeBy: bytes.readUInt16LE(at + 4),
      generalPurposeBitFlag: bytes.readUInt16LE(at + 8),
      compressionMethod: bytes.readUInt16LE(at + 10),
      crc32: bytes.readUInt32LE(at + 16),
      compressedSize: bytes.readUInt32LE(at + 20),
      uncompressedSize: bytes.readUInt32LE(at + 24),
      externalFileAttributes: bytes.readUInt32LE(at + 38),
      relativeOffsetOfLocalHeader: bytes.readUInt32LE(at + 42),
    };
    if (
      entry.uncompressedSize === U32_MAX ||
      entry.compressedSize === U32_MAX ||
      entry.relativeOffsetOfLocalHeader === U32_MAX
    ) {
      readZip64Extra(bytes.subarray(extraStart, extraEnd), entry);
    }
    entries.push({ raw: describe(entry), entry });
    at = next;
  }
  return entries;
}

interface Directory {
  count: number;
  offset: number;
  /** Where the directory must have ended: the first end record. */
  end: number;
}

/** The end record is the last 22 bytes plus a comment of up to 64 KiB; its comment length must reach the end exactly. */
function locateDirectory(bytes: Buffer): Directory {
  const last = bytes.byteLength - END_BYTES;
  let end = -1;
  for (let at = last; at >= 0 && at >= last - U16_MAX; at--) {
    if (bytes.readUInt32LE(at) === END_SIGNATURE && bytes.readUInt16LE(at + 20) === last - at) {
      end = at;
      break;
    }
  }
  if (end < 0) throw corruptZip("no end of central directory record");
  if (
    bytes.readUInt16LE(end + 4) !== 0 ||
    bytes.readUInt16LE(end + 6) !== 0 ||
    bytes.readUInt16LE(end + 8) !== bytes.readUInt16LE(end + 10)
  ) {
    throw corruptZip("it spans several disks, which is not supported");
  }
  let count = bytes.readUInt16LE(end + 10);
  let offset = bytes.readUInt32LE(end + 16);
  let directoryEnd = end;
  const locator = end - ZIP64_LOCATOR_BYTES;
  if (
    (count === U16_MAX || offset === U32_MAX) &&
    locator >= 0 &&
    bytes.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE
  ) {
    const at = readU64(bytes, locator + 8, "zip64 end record offset");
    if (at + ZIP64_END_BYTES > locator || bytes.readUInt32LE(at) !== ZIP64_END_SIGNATURE)
      throw corruptZip("the zip64 end of central directory record is missing");
    if (bytes.readUInt32LE(at + 16) !== 0 || bytes.readUInt32LE(at + 20) !== 0)
      throw corruptZip("it spans several disks, which is not supported");
    count = readU64(bytes, at + 32, "entry count");
    offset = readU64(bytes, at + 48, "central directory offset");
    directoryEnd = at;
  }
  if (offset > directoryEnd) throw corruptZip("the central directory lies outside the archive");
  return { count, offset, end: directoryEnd };
}

/** The zip64 extended information field (APPNOTE 4.5.3): 8-byte values, present only for the fields that overflowed. */
function readZip64Extra(extra: Buffer, entry: ZipEntry): void {
  let at = 0;
  while (at + 4 <= extra.byteLength) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    const data = at + 4;
    if (data + size > extra.byteLength) break;
    if (id === ZIP64_EXTRA_ID) {
      let field = data;
      const take = (what: string): number => {
        if (field + 8 > data + size) throw corruptZip(`the zip64 extra field lacks the ${what}`);
        const value = readU64(extra, field, what);
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === U32_MAX) entry.uncompressedSize = take("uncompressed size");
      if (entry.compressedSize === U32_MAX) entry.compressedSize = take("compressed size");
      if (entry.relativeOffsetOfLocalHeader === U32_MAX)
        entry.relativeOffsetOfLocalHeader = take("local header offset");
      return;
    }
    at = data + size;
  }
  throw corruptZip("a size or offset overflows 32 bits and there is no zip64 extra field");
}

function readU64(bytes: Buffer, at: number, what: string): number {
  if (at + 8 > bytes.byteLength) throw corruptZip(`the ${what} lies outside the archive`);
  const value = bytes.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corruptZip(`the ${what} is out of range`);
  return Number(value);
}

function describe(entry: ZipEntry): RawEntry {
  const name = decodeName(entry);
  if ((entry.generalPurposeBitFlag & ENCRYPTED_FLAGS) !== 0) {
    throw new ArchiveError(
      "encrypted",
      `archive entry ${name} is encrypted; encrypted archives are not supported`,
      name,
    );
  }
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new ArchiveError(
      "unsupported-compression",
      `archive entry ${name} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`,
      name,
    );
  }
  const unixMode = entry.versionMadeBy >>> 8 === MADE_BY_UNIX ? entry.externalFileAttributes >>> 16 : 0;
  return {
    name,
    kind: kindOf(name, unixMode),
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    mode: unixMode & 0o777,
  };
}

function kindOf(name: string, unixMode: number): EntryKind {
  switch (unixMode & S_IFMT) {
    case 0o120000:
      return "symlink";
    case 0o040000:
      return "directory";
    case 0o100000:
      return name.endsWith("/") ? "directory" : "file";
    case 0:
      return name.endsWith("/") ? "directory" : "file";
    default:
      return "special";
  }
}

/** One strict decoder for every name: `decode` without `stream` starts afresh each call. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeName(entry: ZipEntry): string {
  const raw = entry.fileName;
  try {
    return utf8.decode(raw);
  } catch {
    const shown = raw.toString("latin1");
    const why = (entry.generalPurposeBitFlag & UTF8_FLAG) !== 0 ? "is flagged UTF-8 but is not" : "is not UTF-8";
    throw new ArchiveError("name-encoding", `archive entry name ${JSON.stringify(shown)} ${why}`, shown);
  }
}

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;

/**
 * Inflates one entry with a hard output cap of the declared size: a lying header (more data than declared) fails at
 * the first excess byte, before it can fill memory. The CRC-32 is verified too.
 */
export function readZipEntry(archive: Buffer, entry: ZipEntry, name: string, declared: number): Buffer {
  const stored = storedBytes(archive, entry, name);
  let bytes: Buffer;
  if (entry.compressionMethod === 0) {
    bytes = stored;
  } else {
    try {
      // Synchronous on purpose: for package-sized entries one call beats thread-pool round trips (measured).
      // One output chunk a byte larger than declared: the result is that chunk, not 16 KiB pieces concatenated
      // (a copy and twice the memory); the extra byte lets zlib finish without a second chunk.
      bytes = inflateRawSync(stored, {
        maxOutputLength: Math.max(declared, 1),
        chunkSize: Math.max(declared + 1, constants.Z_MIN_CHUNK),
      });
    } catch (error) {
      const code = errorCode(error);
      if (error instanceof RangeError || code === "ERR_BUFFER_TOO_LARGE") {
        throw new ArchiveError(
          "size-mismatch",
          `archive entry ${name} holds more data than its header declares (${declared} bytes)`,
          name,
        );
      }
      throw corruptZip((error as Error).message, name);
    }
  }
  if (bytes.byteLength !== declared) {
    throw new ArchiveError(
      "size-mismatch",
      `archive entry ${name} holds ${bytes.byteLength} bytes but its header declares ${declared}`,
      name,
    );
  }
  if (crc32(bytes) !== entry.crc32)
    throw new ArchiveError("corrupt", `archive entry ${name} fails its CRC-32 check`, name);
  return bytes;
}

/**
 * The entry's data exactly as stored (compressed, for deflate): a view into the archive buffer located through
 * its local header, bounds-checked. A view, not a stream: no copy and no per-entry stream set-up.
 */
function storedBytes(archive: Buffer, entry: ZipEntry, name: string): Buffer {
  const at = entry.relativeOffsetOfLocalHeader;
  if (at + LOCAL_HEADER_BYTES > archive.byteLength || archive.readUInt32LE(at) !== LOCAL_HEADER_SIGNATURE) {
    throw corruptZip(`no local file header at offset ${at}`, name);
  }
  const start = at + LOCAL_HEADER_BYTES + archive.readUInt16LE(at + 26) + archive.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > archive.byteLength) {
    throw corruptZip("its data runs past the end of the archive", name);
  }
  return archive.subarray(start, end);
}

/** The one "not a valid zip" refusal: of the archive as a whole, or of the entry `name`. */
function corruptZip(why: string, name?: string): ArchiveError {
  return new ArchiveError(
    "corrupt",
    `${name === undefined ? "the archive" : `archive entry ${name}`} is not a valid zip: ${why}`,
    name,
  );
}
