/**
 * The wire format between the host and a worker: each message is a 4-byte big-endian length and then the message
 * in V8's serialization (structured clone, so Uint8Array file contents cross without base64). Our own framing, not
 * Node's IPC channel, because the host must see a message's size before it buffers it: Node's "advanced" IPC
 * accumulates a whole message of any size before anyone can look at it (issue 8, hole 8).
 * Shared by both sides; it lives in worker/ because only that folder is copied into the sandbox.
 */
import { deserialize, serialize } from "node:v8";

const HEADER_BYTES = 4;
/** The largest length the header can carry. */
export const MAX_FRAME_BYTES = 0xffff_ffff;

/** Encodes one message; throws (DataCloneError) for what structured clone refuses (functions, symbols). */
export function encodeFrame(message: unknown): Buffer {
  const body = serialize(message);
  if (body.byteLength > MAX_FRAME_BYTES)
    throw new RangeError(`a message of ${body.byteLength} bytes is too large to send`);
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32BE(body.byteLength, 0);
  return Buffer.concat([header, body]);
}

export type FrameEvent =
  | { kind: "message"; message: unknown; bytes: number }
  /** The header announced more than the limit: nothing of the body was kept; the reader stops. */
  | { kind: "oversize"; bytes: number }
  /** The body was not a valid V8 serialization: the stream cannot be trusted any more; the reader stops. */
  | { kind: "malformed"; reason: string };

/**
 * Splits a byte stream into messages. It keeps at most `maxBytes` of one message (plus a chunk) and decides on a
 * message's size from its header, before buffering its body.
 */
export class FrameReader {
  readonly #maxBytes: number;
  readonly #onEvent: (event: FrameEvent) => void;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #stopped = false;

  constructor(maxBytes: number, onEvent: (event: FrameEvent) => void) {
    this.#maxBytes = maxBytes;
    this.#onEvent = onEvent;
  }

  push(chunk: Buffer): void {
    if (this.#stopped) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    while (!this.#stopped && this.#buffered >= HEADER_BYTES) {
      // Only a split header is joined: a large body is concatenated once, when it is complete.
      const first = this.#chunks[0] as Buffer;
      const head = first.byteLength >= HEADER_BYTES ? first : this.#flatten();
      const size = head.readUInt32BE(0);
      if (size > this.#maxBytes) return this.#stop({ kind: "oversize", bytes: size });
      if (this.#buffered < HEADER_BYTES + size) return;
      const all = this.#flatten();
      const body = all.subarray(HEADER_BYTES, HEADER_BYTES + size);
      const rest = all.subarray(HEADER_BYTES + size);
      this.#chunks = rest.byteLength > 0 ? [rest] : [];
      this.#buffered = rest.byteLength;
      let message: unknown;
      try {
        message = deserialize(body);
      } catch (error) {
        return this.#stop({ kind: "malformed", reason: error instanceof Error ? error.message : String(error) });
      }
      this.#onEvent({ kind: "message", message, bytes: size });
    }
  }

  #flatten(): Buffer {
    const all = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    this.#chunks = [all];
    return all;
  }

  #stop(event: FrameEvent): void {
    this.#stopped = true;
    this.#chunks = [];
    this.#buffered = 0;
    this.#onEvent(event);
  }
}
