import { crc32, inflateRawSync } from "node:zlib";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { LimitExceededError } from "@skillport/core/errors";
import { ArchiveError } from "../errors.js";
import type { EntryKind, RawEntry } from "./entries.js";

const UTF8_FLAG = 0x800;
const ENCRYPTED_FLAG = 0x1;
const MADE_BY_UNIX = 3;
const S_IFMT = 0o170000;

export interface ZipListing {
  zip: ZipFile;
  entries: { raw: RawEntry; entry: Entry }[];
}

/** Reads only the central directory: names, kinds and declared sizes. Nothing is inflated. */
export async function listZip(bytes: Buffer, maxEntries: number): Promise<ZipListing> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, file) =>
      error ? reject(corrupt(error)) : resolve(file),
    );
  });
  if (zip.entryCount === 0) throw new ArchiveError("empty", "the archive is empty");
  // Checked before walking the directory: a million-entry archive is refused without listing it.
  if (zip.entryCount > maxEntries) {
    zip.close();
    throw new LimitExceededError("maxFiles", `the archive has ${zip.entryCount} entries, more than the ${maxEntries} allowed`);
  }
  const entries: ZipListing["entries"] = [];
  try {
    await readCentralDirectory(zip, entries);
  } catch (error) {
    zip.close();
    throw error;
  }
  return { zip, entries };
}

function readCentralDirectory(zip: ZipFile, entries: ZipListing["entries"]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: Entry) => {
      try {
        entries.push({ raw: describe(entry), entry });
        zip.readEntry();
      } catch (error) {
        reject(error);
      }
    });
    zip.on("end", () => resolve());
    zip.on("error", (error: Error) => reject(corrupt(error)));
    zip.readEntry();
  });
}

function describe(entry: Entry): RawEntry {
  const name = decodeName(entry);
  if ((entry.generalPurposeBitFlag & ENCRYPTED_FLAG) !== 0) {
    throw new ArchiveError("encrypted", `archive entry ${name} is encrypted; encrypted archives are not supported`, name);
  }
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw new ArchiveError("unsupported-compression", `archive entry ${name} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`, name);
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

function decodeName(entry: Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(raw);
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
export function readZipEntry(archive: Buffer, entry: Entry, name: string, declared: number): Buffer {
  const stored = storedBytes(archive, entry, name);
  let bytes: Buffer;
  if (entry.compressionMethod === 0) {
    bytes = stored;
  } else {
    try {
      // Synchronous on purpose: for package-sized entries one call beats thread-pool round trips (measured).
      bytes = inflateRawSync(stored, { maxOutputLength: Math.max(declared, 1) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (error instanceof RangeError || code === "ERR_BUFFER_TOO_LARGE") {
        throw new ArchiveError("size-mismatch", `archive entry ${name} holds more data than its header declares (${declared} bytes)`, name);
      }
      throw corrupt(error as Error, name);
    }
  }
  if (bytes.byteLength !== declared) {
    throw new ArchiveError("size-mismatch", `archive entry ${name} holds ${bytes.byteLength} bytes but its header declares ${declared}`, name);
  }
  if (crc32(bytes) !== entry.crc32) throw new ArchiveError("corrupt", `archive entry ${name} fails its CRC-32 check`, name);
  return bytes;
}

/**
 * The entry's data exactly as stored (compressed, for deflate): a view into the archive buffer located through
 * its local header, bounds-checked. A view, not a stream: no copy and no per-entry stream set-up.
 */
function storedBytes(archive: Buffer, entry: Entry, name: string): Buffer {
  const at = entry.relativeOffsetOfLocalHeader;
  if (at + LOCAL_HEADER_BYTES > archive.byteLength || archive.readUInt32LE(at) !== LOCAL_HEADER_SIGNATURE) {
    throw new ArchiveError("corrupt", `archive entry ${name} is not a valid zip: no local file header at offset ${at}`, name);
  }
  const start = at + LOCAL_HEADER_BYTES + archive.readUInt16LE(at + 26) + archive.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > archive.byteLength) {
    throw new ArchiveError("corrupt", `archive entry ${name} is not a valid zip: its data runs past the end of the archive`, name);
  }
  return archive.subarray(start, end);
}

function corrupt(error: Error, name?: string): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const where = name === undefined ? "the archive" : `archive entry ${name}`;
  return new ArchiveError("corrupt", `${where} is not a valid zip: ${error.message}`, name);
}
