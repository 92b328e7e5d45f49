import { isUtf8 } from "node:buffer";
import { readSync } from "node:fs";
import type { ReadAt } from "../floor/files.js";

export type HeadResult =
  /**
   * `text` is the whole file when `wholeFile`, else the file's start: up to the end of the closing `---` line when the
   * frontmatter is closed, or what was read when there is none.
   */
  | { ok: true; text: string; wholeFile: boolean }
  /** `frontmatter-too-large`: the frontmatter runs past `maxFrontmatterBytes` (reading stopped there). */
  | { ok: false; reason: "encoding" | "too-large" | "frontmatter-too-large" };

/** A read the head scan asks for: `length` bytes into `buffer` at `offset`, from file position `position`. */
type ReadRequest = [buffer: Buffer, offset: number, length: number, position: number];

/**
 * Reads SKILL.md from the start only as far as needed to see where its frontmatter ends: one chunk for the common
 * case, more (doubling) only while the frontmatter is still open. Never reads past `maxBytes + 1` bytes, and decodes
 * only the frontmatter, so a body that is not UTF-8 does not stop metadata from being read. A frontmatter already
 * longer than `maxFrontmatterBytes` stops the reading: the parser would refuse it anyway, so the rest is not read.
 */
export async function readHead(
  readAt: ReadAt,
  maxBytes: number,
  chunkBytes: number,
  maxFrontmatterBytes = Number.POSITIVE_INFINITY,
): Promise<HeadResult> {
  const steps = headSteps(maxBytes, chunkBytes, maxFrontmatterBytes);
  let step = steps.next();
  while (!step.done) {
    let bytesRead: number;
    try {
      bytesRead = await readAt(...step.value);
    } catch (error) {
      steps.throw(error); // runs the scan's cleanup (the pooled buffer goes back), then rethrows
      throw error;
    }
    step = steps.next(bytesRead);
  }
  return step.value;
}

/**
 * readHead with blocking reads from a descriptor (docs/decisions/0037): the same scan, without a promise per read —
 * listing thousands of skills is made of little else.
 */
export function readHeadSync(
  fd: number,
  maxBytes: number,
  chunkBytes: number,
  maxFrontmatterBytes = Number.POSITIVE_INFINITY,
): HeadResult {
  const steps = headSteps(maxBytes, chunkBytes, maxFrontmatterBytes);
  let step = steps.next();
  while (!step.done) {
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, ...step.value);
    } catch (error) {
      steps.throw(error);
      throw error;
    }
    step = steps.next(bytesRead);
  }
  return step.value;
}

/** The head scan itself, for both readers: yields each read it needs and receives the number of bytes read. */
function* headSteps(
  maxBytes: number,
  chunkBytes: number,
  maxFrontmatterBytes: number,
): Generator<ReadRequest, HeadResult, number> {
  const first = Math.min(chunkBytes, maxBytes + 1);
  // The first chunk comes from a small pool: listing 10,000 skills would otherwise allocate (and collect) 10,000
  // buffers. Only the decoded string leaves this function, so a pooled buffer is never seen by a caller.
  const pooled = first === chunkBytes ? takeChunk(chunkBytes) : undefined;
  let buffer = pooled ?? Buffer.allocUnsafe(first);
  try {
    let length = 0;
    let atEnd = false;
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const bytesRead: number = yield [buffer, length, buffer.length - length, length];
      length += bytesRead;
      atEnd = bytesRead === 0;
      if (length > maxBytes) return { ok: false, reason: "too-large" };
      const end = scanFrontmatterBytes(buffer, length, atEnd, maxFrontmatterBytes);
      if (end === "too-large") return { ok: false, reason: "frontmatter-too-large" };
      if (end === "undecided") continue;
      if (atEnd) {
        const whole = decodeUtf8(buffer, length, false);
        if (whole !== undefined) return { ok: true, text: whole, wholeFile: true };
      }
      // Only the frontmatter is decoded; without one, what was read (a trailing partial character is fine).
      const text = typeof end === "number" ? decodeUtf8(buffer, end, false) : decodeUtf8(buffer, length, !atEnd);
      return text === undefined ? { ok: false, reason: "encoding" } : { ok: true, text, wholeFile: false };
    }
  } finally {
    if (pooled !== undefined) giveChunk(pooled);
  }
}

const pool: Buffer[] = [];
const MAX_POOLED = 64;

function takeChunk(size: number): Buffer | undefined {
  const buffer = pool.pop();
  if (buffer !== undefined && buffer.length === size) return buffer;
  return Buffer.allocUnsafeSlow(size);
}

function giveChunk(buffer: Buffer): void {
  if (pool.length < MAX_POOLED) pool.push(buffer);
}

/**
 * UTF-8 text of `bytes[0, end)`, or undefined when it is not valid UTF-8; a leading BOM is dropped. With `partial`,
 * a character cut off at the end (the read stopped inside it) is left out instead of refused.
 */
function decodeUtf8(bytes: Buffer, end: number, partial: boolean): string | undefined {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf && end >= 3 ? 3 : 0;
  let stop = end;
  if (partial) stop = completeCharsEnd(bytes, start, end);
  if (!isUtf8(bytes.subarray(start, stop))) return undefined;
  return bytes.toString("utf8", start, stop);
}

/** Where the last complete UTF-8 character ends: `end` unless the final 1–3 bytes start a longer sequence. */
function completeCharsEnd(bytes: Buffer, start: number, end: number): number {
  for (let back = 1; back <= 3 && end - back >= start; back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    if (byte < 0xc2 || byte > 0xf4) return end; // ASCII, or not a lead byte at all: the validator decides
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    if (need <= back) return end;
    // Cut off only if what was read could still start a valid character; otherwise let the validator refuse it.
    return back === 1 || secondByteFits(byte, bytes[end - back + 1]!) ? end - back : end;
  }
  return end;
}

/** The lead bytes whose second byte is narrower than 80–BF (overlong forms, surrogates, past U+10FFFF). */
function secondByteFits(lead: number, second: number): boolean {
  if (lead === 0xe0) return second >= 0xa0;
  if (lead === 0xed) return second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90;
  if (lead === 0xf4) return second <= 0x8f;
  return true;
}

const NL = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
const isBlank = (byte: number | undefined) => byte === 0x20 || byte === 0x09;

/**
 * Where the frontmatter ends, found in raw bytes (the delimiter is ASCII and UTF-8 never hides ASCII bytes inside a
 * multi-byte character): the byte offset just after the closing `---` line, "none" when there is no frontmatter or it
 * never closes within the file, "undecided" when more bytes could change the answer, "too-large" when the YAML before
 * the line being read already exceeds `maxYamlBytes`. Bytes, not text, so that a body that is not UTF-8 never has to
 * be decoded (core's findFrontmatterEnd works on decoded text).
 */
export function scanFrontmatterBytes(
  bytes: Buffer,
  length: number,
  atEnd: boolean,
  maxYamlBytes: number,
): number | "none" | "undecided" | "too-large" {
  let pos = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let firstLine = true;
  let yamlStart = 0;
  while (pos < length || (atEnd && pos === length && !firstLine)) {
    let nl = bytes.indexOf(NL, pos);
    if (nl === -1 || nl >= length) {
      // The YAML runs at least up to this unfinished line, and through it unless it may still become the closing one.
      if (!atEnd) {
        const yamlSoFar = (couldBeDelimiter(bytes, pos, length) ? pos : length) - yamlStart;
        return !firstLine && yamlSoFar > maxYamlBytes ? "too-large" : "undecided"; // the line is not complete yet
      }
      nl = length;
    }
    if (firstLine) {
      if (!isDelimiterLine(bytes, pos, nl)) return "none";
      firstLine = false;
      yamlStart = nl + 1;
    } else if (isDelimiterLine(bytes, pos, nl)) {
      return Math.min(nl + 1, length);
    }
    if (nl === length) break;
    pos = nl + 1;
  }
  if (!atEnd && !firstLine && pos - yamlStart > maxYamlBytes) return "too-large";
  return atEnd ? "none" : "undecided";
}

/** Whether the unfinished line `[start, end)` may still turn out to be a delimiter line once its end is read. */
function couldBeDelimiter(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (i - start < 3 ? byte !== DASH : !isBlank(byte) && !(byte === CR && i === end - 1)) return false;
  }
  return true;
}

/** `---`, then only spaces or tabs, then an optional CR: the same delimiter rule as core's findFrontmatterEnd. */
function isDelimiterLine(bytes: Buffer, start: number, end: number): boolean {
  if (end - start < 3 || bytes[start] !== DASH || bytes[start + 1] !== DASH || bytes[start + 2] !== DASH) return false;
  for (let i = start + 3; i < end; i++) {
    const byte = bytes[i];
    if (!isBlank(byte) && !(byte === CR && i === end - 1)) return false;
  }
  return true;
}
