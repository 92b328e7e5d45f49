import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFrame, FrameReader, type FrameEvent } from "./frames.js";

const read = (maxBytes: number, chunks: readonly Buffer[]): FrameEvent[] => {
  const events: FrameEvent[] = [];
  const reader = new FrameReader(maxBytes, (event) => events.push(event));
  for (const chunk of chunks) reader.push(chunk);
  return events;
};

/** Cuts `bytes` at the given (sorted, deduplicated) offsets. */
const cut = (bytes: Buffer, offsets: number[]): Buffer[] => {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
};

describe("FrameReader", () => {
  it("gives back every message in order, however the stream is cut", () => {
    const message = fc.oneof(
      fc.jsonValue(),
      fc.uint8Array().map((bytes) => ({ file: bytes })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 20 }), (messages, offsets) => {
        const stream = Buffer.concat(messages.map((value) => encodeFrame(value)));
        const events = read(1 << 20, cut(stream, offsets));
        expect(events.map((event) => (event.kind === "message" ? event.message : event))).toEqual(messages);
      }),
      { numRuns: 200 },
    );
  });

  it("judges a message by its header: an announced 4 GiB message is refused before any of its body arrives", () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(0xffff_fff0);
    expect(read(16 * 1024 * 1024, [header.subarray(0, 2), header.subarray(2), Buffer.from("abc")])).toEqual([
      { kind: "oversize", bytes: 0xffff_fff0 },
    ]);
  });

  it("refuses a message one byte over the limit and accepts one at it", () => {
    const frame = encodeFrame("y".repeat(100));
    const size = frame.length - 4;
    expect(read(size, [frame])).toMatchObject([{ kind: "message", bytes: size }]);
    expect(read(size - 1, [frame])).toEqual([{ kind: "oversize", bytes: size }]);
  });

  it("stops at a body that is not V8 serialization, and ignores everything after it", () => {
    const junk = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from([0xff, 0x0f, 0x99])]);
    const events = read(1024, [junk, encodeFrame("later")]);
    expect(events).toHaveLength(1);
    expect(events[0]?.kind).toBe("malformed");
  });
});
