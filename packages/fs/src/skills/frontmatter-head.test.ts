// readHead decodes with a pooled buffer and Buffer's own UTF-8 check; the oracle below is the straightforward
// version it replaced (a fresh buffer and a fatal TextDecoder per read). Both must agree on every input: the text,
// whether it is the whole file, and every refusal.
import fc from "fast-check";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ReadAt } from "../floor/files.js";
import { readHead, readHeadSync, scanFrontmatterBytes, type HeadResult } from "./frontmatter-head.js";

function decode(bytes: Buffer, start: number, end: number, stream: boolean): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end), { stream });
  } catch {
    return undefined;
  }
}

async function oracle(
  readAt: ReadAt,
  maxBytes: number,
  chunkBytes: number,
  maxFrontmatterBytes: number,
): Promise<HeadResult> {
  let buffer = Buffer.alloc(Math.min(chunkBytes, maxBytes + 1));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const bigger = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const bytesRead = await readAt(buffer, length, buffer.length - length, length);
    length += bytesRead;
    const atEnd = bytesRead === 0;
    if (length > maxBytes) return { ok: false, reason: "too-large" };
    const end = scanFrontmatterBytes(buffer, length, atEnd, maxFrontmatterBytes);
    if (end === "too-large") return { ok: false, reason: "frontmatter-too-large" };
    if (end === "undecided") continue;
    if (atEnd) {
      const whole = decode(buffer, 0, length, false);
      if (whole !== undefined) return { ok: true, text: whole, wholeFile: true };
    }
    const text = typeof end === "number" ? decode(buffer, 0, end, false) : decode(buffer, 0, length, !atEnd);
    return text === undefined ? { ok: false, reason: "encoding" } : { ok: true, text, wholeFile: false };
  }
}

const readerOf =
  (bytes: Uint8Array): ReadAt =>
  async (buffer, offset, length, position) => {
    const n = Math.max(0, Math.min(length, bytes.length - position));
    buffer.set(bytes.subarray(position, position + n), offset);
    return n;
  };

const piece = fc.oneof(
  fc.constantFrom("---\n", "\n---\n", "---\r\n", "\n", "name: x\n", "description: 数据清洗 é\n", "\uFEFF", "🙂"),
  fc.string({ unit: "grapheme", maxLength: 12 }),
);
const bytesOf = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((parts) => new Uint8Array(Buffer.from(parts.join(""), "utf8"))),
  fc.uint8Array({ maxLength: 64 }),
  fc
    .tuple(fc.array(piece, { maxLength: 8 }), fc.uint8Array({ maxLength: 6 }))
    .map(([parts, tail]) => new Uint8Array([...Buffer.from(parts.join(""), "utf8"), ...tail])),
);

const scratch = mkdtempSync(path.join(os.tmpdir(), "skillport-head-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("readHead", () => {
  it("agrees with the plain TextDecoder version on every input, chunk size and limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        bytesOf,
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        async (bytes, chunk, maxBytes, maxFm) => {
          const got = await readHead(readerOf(bytes), maxBytes, chunk, maxFm);
          const want = await oracle(readerOf(bytes), maxBytes, chunk, maxFm);
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("the blocking driver (a real file descriptor) agrees with the oracle too", async () => {
    await fc.assert(
      fc.asyncProperty(
        bytesOf,
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        async (bytes, chunk, maxBytes, maxFm) => {
          const file = path.join(scratch, "SKILL.md");
          writeFileSync(file, bytes);
          const fd = openSync(file, "r");
          try {
            expect(readHeadSync(fd, maxBytes, chunk, maxFm)).toEqual(
              await oracle(readerOf(bytes), maxBytes, chunk, maxFm),
            );
          } finally {
            closeSync(fd);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  // Cases the property once found: a read that stops inside a sequence which could never become a valid character
  // (ED A0 starts a surrogate, E0 80 an overlong form, F4 90 a code point past U+10FFFF) is refused, not trimmed.
  it.each([
    { bytes: [0x0a, 0xed, 0xa0], chunk: 3, maxBytes: 3 },
    { bytes: [0x0a, 0xe0, 0x80], chunk: 3, maxBytes: 3 },
    { bytes: [0x0a, 0xf4, 0x90, 0x80], chunk: 4, maxBytes: 4 },
    { bytes: [0x0a, 0xf0, 0x80], chunk: 3, maxBytes: 3 },
    { bytes: [0x0a, 0xe0, 0xa0], chunk: 3, maxBytes: 3 },
    { bytes: [0x0a, 0xf0, 0x90, 0x80], chunk: 4, maxBytes: 4 },
  ])("a read cut inside $bytes agrees with the oracle", async ({ bytes, chunk, maxBytes }) => {
    const file = new Uint8Array([...bytes, 0x80, 0x80]);
    expect(await readHead(readerOf(file), maxBytes, chunk, 1)).toEqual(
      await oracle(readerOf(file), maxBytes, chunk, 1),
    );
  });

  it("many heads in flight never share a buffer", async () => {
    const files = Array.from(
      { length: 200 },
      (_, i) =>
        new Uint8Array(Buffer.from(`---\nname: s${i}\ndescription: ${"技".repeat(i % 50)}\n---\n# body ${i}\n`)),
    );
    const slow =
      (bytes: Uint8Array): ReadAt =>
      async (buffer, offset, length, position) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        return readerOf(bytes)(buffer, offset, length, position);
      };
    const heads = await Promise.all(files.map((bytes) => readHead(slow(bytes), 10_000, 8192)));
    const want = await Promise.all(
      files.map((bytes) => oracle(readerOf(bytes), 10_000, 8192, Number.POSITIVE_INFINITY)),
    );
    expect(heads).toEqual(want);
    heads.forEach((head, i) =>
      expect(head).toMatchObject({ ok: true, text: expect.stringContaining(`name: s${i}\n`) }),
    );
  });
});
