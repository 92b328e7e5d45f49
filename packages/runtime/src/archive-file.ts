import fs, { constants } from "node:fs";
import { InvalidPathError, LimitExceededError } from "@skillport/core";
import { errorCode } from "@skillport/fs";

export type OpenedSource = { kind: "directory" } | { kind: "archive"; bytes: Uint8Array };

/**
 * Reads a package source given by path: a directory is reported as such; anything else must be a regular file no
 * larger than `maxBytes`. The file is OPENED first (non-blocking, so a FIFO never waits for a writer), then judged by
 * fstat of that descriptor, and only then read, at most `maxBytes + 1` bytes (a file that grows is refused too).
 */
export function readPackageSource(file: string, label: string, maxBytes: number): OpenedSource {
  let fd: number;
  try {
    fd = fs.openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") throw new InvalidPathError(label, "package not found");
    if (code === "ENXIO") throw new InvalidPathError(label, "is not a regular file or a folder");
    throw new InvalidPathError(label, `cannot be opened (${code ?? "error"})`);
  }
  try {
    const info = fs.fstatSync(fd);
    if (info.isDirectory()) return { kind: "directory" };
    if (!info.isFile())
      throw new InvalidPathError(label, "is not a regular file or a folder (a FIFO, socket or device?)");
    if (info.size > maxBytes) throw tooLarge(label, maxBytes);
    const buffer = Buffer.allocUnsafeSlow(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw tooLarge(label, maxBytes);
      if (length === buffer.length) break;
    }
    return { kind: "archive", bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, length) };
  } finally {
    fs.closeSync(fd);
  }
}

function tooLarge(label: string, maxBytes: number): LimitExceededError {
  return new LimitExceededError(
    "maxArchiveBytes",
    `package ${JSON.stringify(label)} is larger than the ${maxBytes}-byte archive limit`,
  );
}
