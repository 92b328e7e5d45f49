/**
 * Keeps the last `capacity` bytes written to it and counts everything, so a run that prints gigabytes
 * costs at most `capacity` bytes of memory.
 */
export class TailBuffer {
  readonly capacity: number;
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte ever written, kept or dropped. */
  total = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.floor(capacity));
  }

  write(chunk: Uint8Array): void {
    this.total += chunk.byteLength;
    if (this.capacity === 0) return;
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (buf.byteLength >= this.capacity) {
      this.chunks = [Buffer.from(buf.subarray(buf.byteLength - this.capacity))];
      this.kept = this.capacity;
      return;
    }
    // Copy: stream chunks may be pooled and reused by Node.
    this.chunks.push(Buffer.from(buf));
    this.kept += buf.byteLength;
    while (this.kept > this.capacity) {
      const head = this.chunks[0]!;
      const excess = this.kept - this.capacity;
      if (head.byteLength <= excess) {
        this.chunks.shift();
        this.kept -= head.byteLength;
      } else {
        this.chunks[0] = head.subarray(excess);
        this.kept -= excess;
      }
    }
  }

  /** Bytes written but not kept. */
  get dropped(): number {
    return this.total - this.kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }

  /** The kept bytes as UTF-8; a character cut in half at the start is dropped rather than shown as garbage. */
  text(): string {
    let bytes = this.bytes();
    if (this.dropped > 0) {
      let skip = 0;
      // Skip UTF-8 continuation bytes (10xxxxxx) left over from a character whose start was dropped.
      while (skip < bytes.byteLength && skip < 3 && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
    }
    return bytes.toString("utf8");
  }
}
