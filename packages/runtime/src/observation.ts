import { TailBuffer } from "@skillport/sandbox";

/** FastGPT's shell tool limits: the observation keeps the last 2,000 lines or 50 KiB, whichever is smaller. */
export const DEFAULT_OBSERVATION_MAX_LINES = 2000;
export const DEFAULT_OBSERVATION_MAX_BYTES = 50 * 1024;

export interface ObservationLimits {
  maxLines: number;
  maxBytes: number;
}

export interface TruncatedTail {
  /** The kept text: whole lines only, never a cut line or character. */
  text: string;
  truncated: boolean;
  /** Lines in the full output (a final line without a newline counts). */
  totalLines: number;
  totalBytes: number;
  /** 1-based number of the first line shown. */
  firstLineShown: number;
  shownLines: number;
  shownBytes: number;
}

/**
 * Collects merged output and reduces it to a tail of at most `maxLines` lines and `maxBytes` bytes.
 * Memory stays at `maxBytes` no matter how much arrives.
 */
export class TailCollector {
  private readonly tail: TailBuffer;
  private newlines = 0;
  private lastByte = -1;

  constructor(
    private readonly limits: ObservationLimits = {
      maxLines: DEFAULT_OBSERVATION_MAX_LINES,
      maxBytes: DEFAULT_OBSERVATION_MAX_BYTES,
    },
  ) {
    // One spare byte tells us whether the kept window starts at a line boundary.
    this.tail = new TailBuffer(limits.maxBytes + 1);
  }

  write(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    for (let i = 0; i < chunk.byteLength; i++) if (chunk[i] === 0x0a) this.newlines++;
    this.lastByte = chunk[chunk.byteLength - 1] ?? -1;
    this.tail.write(chunk);
  }

  get totalBytes(): number {
    return this.tail.total;
  }

  result(): TruncatedTail {
    const totalBytes = this.tail.total;
    const totalLines = this.newlines + (totalBytes > 0 && this.lastByte !== 0x0a ? 1 : 0);
    let bytes = this.tail.bytes();
    let cut = this.tail.dropped > 0;
    if (bytes.byteLength > this.limits.maxBytes) {
      // The spare byte: if it is not a newline, the first kept line is partial and must go.
      const startsClean = bytes[0] === 0x0a;
      bytes = bytes.subarray(1);
      cut = true;
      if (!startsClean) {
        // Drop the partial first line, unless it is all there is (one huge line): then show its end.
        const nl = bytes.indexOf(0x0a);
        if (nl !== -1 && nl + 1 < bytes.byteLength) bytes = bytes.subarray(nl + 1);
        else bytes = skipContinuationBytes(bytes);
      }
    }
    // Keep at most maxLines lines, counting from the end.
    const endsWithNewline = bytes.byteLength > 0 && bytes[bytes.byteLength - 1] === 0x0a;
    let lines = 0;
    let start = bytes.byteLength;
    for (let i = bytes.byteLength - (endsWithNewline ? 2 : 1); i >= -1; i--) {
      if (i === -1 || bytes[i] === 0x0a) {
        lines++;
        start = i + 1;
        if (lines === this.limits.maxLines && i !== -1) {
          cut = true;
          break;
        }
      }
    }
    if (bytes.byteLength === 0) lines = 0;
    const shown = bytes.subarray(start);
    return {
      text: shown.toString("utf8"),
      truncated: cut,
      totalLines,
      totalBytes,
      firstLineShown: totalLines - lines + 1,
      shownLines: lines,
      shownBytes: shown.byteLength,
    };
  }
}

function skipContinuationBytes(bytes: Buffer): Buffer {
  let skip = 0;
  while (skip < bytes.byteLength && skip < 3 && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
  return bytes.subarray(skip);
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * The text an agent sees: the (possibly truncated) merged output, a notice saying what was cut and where the
 * full output is, and `Command exited with code N` when the command failed.
 */
export function formatObservation(input: {
  tail: TruncatedTail;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutMs: number;
  fullOutputPath: string | undefined;
  fullOutputComplete: boolean;
  /** Set when the command was killed for printing more than this many bytes. */
  outputLimitBytes?: number;
}): string {
  const { tail } = input;
  let text = tail.text;
  const notes: string[] = [];
  if (tail.truncated) {
    const last = tail.firstLineShown + tail.shownLines - 1;
    let note = `[Output truncated: showing lines ${tail.firstLineShown}-${last} of ${tail.totalLines} (${formatBytes(tail.shownBytes)} of ${formatBytes(tail.totalBytes)}).`;
    if (input.fullOutputPath) {
      note += ` Full output saved to ${input.fullOutputPath}${input.fullOutputComplete ? "" : " (itself cut at its size limit)"}.`;
    }
    notes.push(note + "]");
  }
  if (input.timedOut) notes.push(`Command timed out after ${formatSeconds(input.timeoutMs)} and was killed.`);
  else if (input.outputLimitBytes !== undefined)
    notes.push(`Command printed more than ${formatBytes(input.outputLimitBytes)} and was killed.`);
  else if (input.exitCode !== null && input.exitCode !== 0) notes.push(`Command exited with code ${input.exitCode}`);
  else if (input.exitCode === null && input.signal) notes.push(`Command was killed by signal ${input.signal}`);
  if (notes.length === 0) return text;
  if (text.length > 0 && !text.endsWith("\n")) text += "\n";
  return (text.length > 0 ? text + "\n" : "") + notes.join("\n");
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
