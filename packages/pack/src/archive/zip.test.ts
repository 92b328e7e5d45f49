import { describe, expect, it } from "vitest";
import fc from "fast-check";
import yauzl, { type Entry } from "yauzl";
import { randomBytes } from "node:crypto";
import { spawnSync, execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { AgentSkillsError } from "@skillport/core";
import { ArchiveError, readArchive } from "../index.js";
import { buildZip, skillMd, systemDependency, tempDir, yazlArchive } from "../__fixtures__/archives.js";
import { listZip, type ZipEntry } from "./zip.js";

const infoZip = systemDependency("zip", spawnSync("sh", ["-c", "command -v zip"]).status === 0, console.warn);

/** The central directory as yauzl (an independent, widely used reader) lists it: the oracle for ours. */
function yauzlListing(bytes: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false }, (error, zip) => {
      if (error) return reject(error);
      const out: ZipEntry[] = [];
      zip.on("entry", (e: Entry) => {
        out.push({
          fileName: e.fileName as unknown as Buffer,
          versionMadeBy: e.versionMadeBy,
          generalPurposeBitFlag: e.generalPurposeBitFlag,
          compressionMethod: e.compressionMethod,
          crc32: e.crc32,
          compressedSize: e.compressedSize,
          uncompressedSize: e.uncompressedSize,
          externalFileAttributes: e.externalFileAttributes,
          relativeOffsetOfLocalHeader: e.relativeOffsetOfLocalHeader,
        });
        zip.readEntry();
      });
      zip.on("end", () => resolve(out));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

function yazlZip(
  files: { name: string; data: Buffer; mode: number }[],
  options: { zip64: boolean; comment?: string },
): Promise<Buffer> {
  return yazlArchive(
    (zip) => {
      for (const f of files)
        zip.addBuffer(f.data, f.name, {
          mode: f.mode,
          forceZip64Format: options.zip64,
          compress: f.data.byteLength % 2 === 0,
        });
      zip.addEmptyDirectory("skills/empty/", { mode: 0o40755 });
    },
    { forceZip64Format: options.zip64, comment: options.comment ?? "" },
  );
}

const listed = (bytes: Buffer) => listZip(bytes, 10_000).map((e) => e.entry);

describe("listZip (central directory reader)", () => {
  const name = fc.stringMatching(/^[a-zA-Z0-9\u00e9\u4e2d_.-]{1,12}$/).filter((n) => n !== "." && n !== "..");
  const file = fc.record({
    name: fc.tuple(name, name).map(([a, b]) => `skills/${a}/${b}`),
    data: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
    mode: fc.constantFrom(0o100644, 0o100755),
  });

  it("lists exactly what yauzl lists, with and without ZIP64 records and an archive comment (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(file, { minLength: 1, maxLength: 8, selector: (f) => f.name.toLowerCase() }),
        fc.boolean(),
        fc.constantFrom("", "a comment"),
        async (files, zip64, comment) => {
          const bytes = await yazlZip(files, { zip64, comment });
          expect(listed(bytes)).toEqual(await yauzlListing(bytes));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("reads a ZIP64 archive to the same files and versionId as the plain one", async () => {
    const files = [
      { name: "skills/a/SKILL.md", data: Buffer.from(skillMd("a")), mode: 0o100644 },
      { name: "skills/a/run.sh", data: Buffer.from("echo\n"), mode: 0o100755 },
    ];
    const [plain, zip64] = await Promise.all([yazlZip(files, { zip64: false }), yazlZip(files, { zip64: true })]);
    expect(zip64.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true); // the ZIP64 end record is really there
    const [a, b] = await Promise.all([readArchive(plain), readArchive(zip64)]);
    expect(b.files).toEqual(a.files);
    expect(b.directories).toEqual(["skills/empty"]);
  });

  it.skipIf(infoZip.skip)("lists an Info-ZIP archive (extra fields, directories) exactly as yauzl does", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await mkdir(path.join(dir, "src/skills/a/scripts"), { recursive: true });
      await writeFile(path.join(dir, "src/skills/a/SKILL.md"), skillMd("a"));
      await writeFile(path.join(dir, "src/skills/a/scripts/run.sh"), "echo\n", { mode: 0o755 });
      await writeFile(path.join(dir, "src/skills/a/data.bin"), randomBytes(5000));
      execFileSync("zip", ["-r", "-q", "-z", path.join(dir, "out.zip"), "."], {
        cwd: path.join(dir, "src"),
        input: "an archive comment\n",
      });
      const bytes = await readFile(path.join(dir, "out.zip"));
      expect(listed(bytes)).toEqual(await yauzlListing(bytes));
      expect((await readArchive(bytes)).files.map((f) => [f.path, f.mode])).toEqual([
        ["skills/a/SKILL.md", 0o644],
        ["skills/a/data.bin", 0o644],
        ["skills/a/scripts/run.sh", 0o755],
      ]);
    } finally {
      await cleanup();
    }
  });

  const good = buildZip([
    { name: "skills/a/SKILL.md", data: skillMd("a") },
    { name: "skills/a/b.txt", data: "bbbb" },
  ]);
  const endAt = good.byteLength - 22;
  const patched = (at: number, write: (b: Buffer) => void) => {
    const copy = Buffer.from(good);
    write(copy.subarray(at));
    return copy;
  };

  it.each([
    ["no end record (truncated)", good.subarray(0, good.byteLength - 1), /no end of central directory record/],
    [
      "a comment length that does not reach the end",
      patched(endAt, (b) => b.writeUInt16LE(5, 20)),
      /no end of central directory record/,
    ],
    ["several disks", patched(endAt, (b) => b.writeUInt16LE(1, 4)), /spans several disks/],
    [
      "a directory offset past the end record",
      patched(endAt, (b) => b.writeUInt32LE(good.byteLength, 16)),
      /central directory lies outside the archive/,
    ],
    [
      "more entries declared than records present",
      patched(endAt, (b) => (b.writeUInt16LE(3, 8), b.writeUInt16LE(3, 10))),
      /central directory record 3 of 3 is missing/,
    ],
    [
      "a record whose name runs past the directory",
      patched(good.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])), (b) => b.writeUInt16LE(0xfff0, 28)),
      /record 1 runs past the directory/,
    ],
    [
      "a 32-bit overflow marker without a ZIP64 field",
      patched(good.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])), (b) => b.writeUInt32LE(0xffffffff, 24)),
      /no zip64 extra field/,
    ],
  ])("refuses %s as corrupt", async (_name, bytes, message) => {
    const error = await readArchive(bytes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).reason).toBe("corrupt");
    expect((error as Error).message).toMatch(message);
  });

  it("never fails with anything but a typed refusal, whatever bytes are damaged (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(good.byteLength - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat(good.byteLength),
        async (edits, cut) => {
          const bytes = Buffer.from(good);
          for (const [at, value] of edits) bytes[at] = value;
          for (const candidate of [bytes, bytes.subarray(0, Math.max(cut, 4))]) {
            // Keep the zip magic so the zip reader (not format detection) is what meets the damage.
            candidate.writeUInt32LE(0x04034b50, 0);
            await readArchive(candidate).catch((error: unknown) => expect(error).toBeInstanceOf(AgentSkillsError));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
