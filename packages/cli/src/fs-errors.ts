import { errorCode } from "@skillport/fs";
import { displayPath } from "./io.js";

// Node's file-system errors (`EEXIST: file already exists, mkdir '/abs/x'`) as one line in words: the operation, the
// path as the user wrote it relative to the working directory, and the reason. The CLI never prints a raw errno.

const REASONS: Record<string, string> = {
  EEXIST: "something is already there",
  EISDIR: "it is a directory",
  ENOTDIR: "it, or a folder on its path, is not a directory",
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  ELOOP: "a symbolic link where none is allowed",
  ENAMETOOLONG: "the name is too long",
  EMFILE: "too many open files",
  EBUSY: "it is busy",
  ENOTEMPTY: "the directory is not empty",
  EXDEV: "it is on another file system",
};

const VERBS: Record<string, string> = {
  mkdir: "create",
  rename: "write",
  open: "open",
  unlink: "remove",
  rmdir: "remove",
  rm: "remove",
  copyfile: "copy",
  symlink: "create",
  link: "create",
  scandir: "read",
  read: "read",
  write: "write",
  stat: "reach",
  lstat: "reach",
};

interface NodeFsError {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

function isFsError(error: unknown): error is NodeFsError {
  const code = errorCode(error);
  return code !== undefined && /^E[A-Z]+$/.test(code) && typeof (error as { syscall?: unknown }).syscall === "string";
}

/** One line for a Node file-system error, or undefined when `error` is not one. */
export function describeFsError(error: unknown, cwd: string): string | undefined {
  if (!isFsError(error)) return undefined;
  const reason = REASONS[error.code] ?? `error ${error.code}`;
  const verb = VERBS[error.syscall ?? ""] ?? "use";
  // A rename writes the destination: that is the path the user named (the source is a temp file of ours).
  const target = error.syscall === "rename" ? (error.dest ?? error.path) : error.path;
  if (target === undefined) return `file system error: ${reason}`;
  return `cannot ${verb} ${displayPath(target, cwd)}: ${reason}`;
}
