import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { deflateRawSync, gzipSync } from "node:zlib";
import { readArchive } from "./index.js";
import { DeterministicZip, looksIncompressible, writeDeterministicZip } from "./zip-writer.js";

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
    const zip = Buffer.from(await writeDeterministicZip([
      { path: "b/random.bin", bytes: random, mode: 0o644 },
      { path: "a/text.md", bytes: text, mode: 0o644 },
    ]));
    expect(methods(zip)).toEqual({ "a/text.md": 8, "b/random.bin": 0 });
    const back = await readArchive(zip);
    expect(back.files.map((f) => [f.path, Buffer.from(f.bytes).equals(f.path.endsWith(".md") ? text : random)])).toEqual([
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
});
