// Hand-built archives for tests: real zip and tar bytes with whatever (malicious) headers a test needs.
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import { writeTree as sharedWriteTree, type TreeSpec } from "@skillport/testing";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ZipFile, type EndOptions } from "yazl";

export interface RawZipEntry {
  name: string | Buffer;
  data?: Buffer | string;
  /** 0 store, 8 deflate (default). */
  method?: number;
  flags?: number;
  /** Unix mode incl. type bits, placed in the high 16 bits of the external attributes. */
  unixMode?: number;
  /** Declared sizes (default: the true ones). */
  declaredSize?: number;
  /** Declared CRC-32 (default: the true one). */
  crc?: number;
}

export function buildZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === "string" ? Buffer.from(entry.name, "utf8") : entry.name;
    const data = typeof entry.data === "string" ? Buffer.from(entry.data) : (entry.data ?? Buffer.alloc(0));
    const method = entry.method ?? 8;
    const stored = method === 8 ? deflateRawSync(data) : data;
    const crc = entry.crc ?? crc32(data);
    const size = entry.declaredSize ?? data.byteLength;
    const flags = (entry.flags ?? 0) | 0x800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.byteLength, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.byteLength, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.byteLength, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.byteLength, 28);
    central.writeUInt32LE(((entry.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.byteLength + name.byteLength + stored.byteLength;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.byteLength, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

export interface RawTarEntry {
  name: string;
  data?: Buffer | string;
  /** '0' file (default), '2' symlink, '1' hard link, '3' char dev, '4' block dev, '5' dir, '6' fifo. */
  type?: string;
  mode?: number;
  linkname?: string;
}

export function buildTar(entries: readonly RawTarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = typeof entry.data === "string" ? Buffer.from(entry.data) : (entry.data ?? Buffer.alloc(0));
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, "utf8");
    header.write(octal(entry.mode ?? 0o644, 7), 100);
    header.write(octal(0, 7), 108);
    header.write(octal(0, 7), 116);
    header.write(octal(data.byteLength, 11), 124);
    header.write(octal(0, 11), 136);
    header.write("        ", 148);
    header.write(entry.type ?? "0", 156);
    header.write(entry.linkname ?? "", 157, 100, "utf8");
    header.write("ustar\u000000", 257, "latin1");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${octal(sum, 6)}\u0000 `, 148, "latin1");
    blocks.push(header, data, Buffer.alloc((512 - (data.byteLength % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function buildTarGz(entries: readonly RawTarEntry[]): Buffer {
  return gzipSync(buildTar(entries));
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width, "0");
}

/** A fresh temp dir; the returned cleanup removes it. */
export async function tempDir(prefix = "skillport-pack-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `files` (POSIX path → content) under `root`. */
/** Files, directories and links under `root` (the shared temp-tree helper). */
export function writeTree(root: string, files: TreeSpec): Promise<void> {
  return sharedWriteTree(root, files);
}

export function skillMd(name: string, description = `Does ${name} things. Use when testing.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nBody.\n`;
}

/** Whether a system binary is on PATH; tests may skip without it unless SKILLPORT_REQUIRE_SYSTEM_DEPS is set. */
export function systemDependency(binary: string, available: boolean, onSkip: (reason: string) => void): { skip: boolean } {
  if (available) return { skip: false };
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS) throw new Error(`${binary} is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but was not found`);
  onSkip(`skipping tests that need ${binary}: not installed`); // the calling test file prints it
  return { skip: true };
}

/** An archive written by yazl (an independent, widely used writer): the oracle for our zip writer and reader. */
export function yazlArchive(add: (zip: ZipFile) => void, end: Partial<EndOptions> = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
    add(zip);
    zip.end({ forceZip64Format: end.forceZip64Format ?? false, comment: end.comment ?? "" });
  });
}
