import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { randomBytes } from "node:crypto";
import { deflateRawSync, gzipSync } from "node:zlib";
import { yazlArchive } from "./__fixtures__/archives.js";
import { readArchive } from "./index.js";
import { comparePaths } from "./paths.js";
import { DeterministicZip, looksIncompressible, writeDeterministicZip, type ZipInput } from "./zip-writer.js";

/** The same archive written by yazl (an independent, widely used writer): the oracle for our bytes. */
function yazlZip(entries: readonly ZipInput[], level: number): Promise<Buffer> {
  return yazlArchive((zip) => {
    for (const e of [...entries].sort((a, b) => comparePaths(a.path, b.path))) {
      const compress = level > 0 && !looksIncompressible(e.bytes);
      zip.addBuffer(Buffer.from(e.bytes), e.path, {
        mtime: new Date(1980, 0, 1),
        mode: 0o100000 | e.mode,
        compress,
        compressionLevel: compress ? level : 0,
        forceDosTimestamp: true,
      });
    }
  });
}

/** Compression method of each entry, read from the central directory. */
function methods(zip: Buffer): Record<string, number> {
  const out: Record<string, number> = {};
  let at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  while (at >= 0 && zip.readUInt32LE(at) === 0x02014b50) {
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    out[zip.subarray(at + 46, at + 46 + nameLength).toString()] = zip.readUInt16LE(at + 10);
    at += 46 + nameLength + extra + comment;
  }
  return out;
}

describe("DeterministicZip", () => {
  const text = Buffer.from("Agent skills are folders with a SKILL.md file. ".repeat(400));
  const random = randomBytes(64 * 1024);

  it.each([
    ["random bytes", random, true],
    ["gzip output", gzipSync(text), false], // small: below the 8 KiB floor
    ["a large deflate stream", deflateRawSync(randomBytes(200_000)), true],
    ["text", text, false],
    ["zeros", Buffer.alloc(100_000), false],
    ["tiny random", randomBytes(100), false],
  ])("looksIncompressible(%s) is %s", (_name, bytes, expected) => {
    expect(looksIncompressible(bytes)).toBe(expected);
  });

  it("stores incompressible entries and deflates the rest, and both read back intact", async () => {
    const zip = Buffer.from(
      await writeDeterministicZip([
        { path: "b/random.bin", bytes: random, mode: 0o644 },
        { path: "a/text.md", bytes: text, mode: 0o644 },
      ]),
    );
    expect(methods(zip)).toEqual({ "a/text.md": 8, "b/random.bin": 0 });
    const back = await readArchive(zip);
    expect(
      back.files.map((f) => [f.path, Buffer.from(f.bytes).equals(f.path.endsWith(".md") ? text : random)]),
    ).toEqual([
      ["a/text.md", true],
      ["b/random.bin", true],
    ]);
  });

  it("refuses entries out of order (the order is what makes the bytes deterministic)", () => {
    const zip = new DeterministicZip();
    zip.add({ path: "b", bytes: text, mode: 0o644 });
    expect(() => zip.add({ path: "a", bytes: text, mode: 0o644 })).toThrow("zip entries out of order: a after b");
    expect(() => zip.add({ path: "b", bytes: text, mode: 0o644 })).toThrow("zip entries out of order: b after b");
  });

  it("property: writes exactly the bytes yazl writes for the same entries (order, names, modes, levels)", async () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9._\u00e9\u4e2d-]{1,8}$/).filter((x) => x !== "." && x !== "..");
    const entry = fc.record({
      path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")),
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ maxLength: 2000 }).map((t) => new TextEncoder().encode(t.repeat(5))),
        fc.constant(new Uint8Array(randomBytes(9000))),
      ),
      mode: fc.constantFrom(0o644 as const, 0o755 as const),
    });
    const entries = fc.uniqueArray(entry, { selector: (e) => e.path, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(entries, fc.constantFrom(0, 1, 6, 9), async (list, level) => {
        const ours = Buffer.from(await writeDeterministicZip(list, { compressionLevel: level }));
        const theirs = await yazlZip(list, level);
        // The first differing byte offset (-1: identical), so a failure reads as a number, not a binary dump.
        const differsAt = ours.equals(theirs) ? -1 : [...ours].findIndex((byte, i) => byte !== theirs[i]);
        expect({ differsAt, length: ours.byteLength }).toEqual({ differsAt: -1, length: theirs.byteLength });
      }),
      { numRuns: 60 },
    );
  });

  it("writes an empty archive as a bare end record, and refuses more entries than a zip without ZIP64 holds", async () => {
    expect(Buffer.from(await writeDeterministicZip([])).toString("hex")).toBe("504b0506" + "00".repeat(18));
    const zip = new DeterministicZip({ compressionLevel: 0 });
    const empty = new Uint8Array();
    for (let i = 0; i < 0xffff; i++) zip.add({ path: `f${String(i).padStart(5, "0")}`, bytes: empty, mode: 0o644 });
    expect(() => zip.add({ path: "g", bytes: empty, mode: 0o644 })).toThrow(
      "a zip without ZIP64 holds at most 65535 entries",
    );
  });
});
