import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "@skillport/core";
import { lstatOrUndefined, statOrUndefined } from "./targets.js";

export const DEFAULT_MAX_SKILL_MD_BYTES = 10 * 1024 * 1024;

/**
 * Reads a SKILL.md for validation. Anything that is not a readable regular file within the size limit becomes a
 * diagnostic rather than an exception, so one broken skill never stops the others from being checked.
 */
export async function readSkillMd(
  file: string,
  display: string,
  maxBytes = DEFAULT_MAX_SKILL_MD_BYTES,
): Promise<{ bytes: Uint8Array } | { diagnostic: Diagnostic }> {
  const problem = (code: string, message: string) => ({
    diagnostic: { code, severity: "error" as const, message, file: display, line: 0, column: 0 },
  });
  const info = lstatOrUndefined(file);
  if (!info) return problem("skill-md-missing", "SKILL.md does not exist");
  if (info.isSymbolicLink()) {
    // Follow the link for reading, but report a dangling one by name.
    const target = statOrUndefined(file);
    if (!target) return problem("skill-md-unreadable", "SKILL.md is a symbolic link whose target does not exist");
    if (!target.isFile()) return problem("skill-md-not-file", "SKILL.md must be a regular file");
  } else if (!info.isFile()) {
    return problem("skill-md-not-file", `SKILL.md must be a regular file, not a ${info.isDirectory() ? "directory" : "special file"}`);
  }
  // Blocking open/read/close: validating thousands of skills is mostly these calls, and each async one is a
  // thread-pool round trip that costs more than the read (docs/decisions/0037-synchronous-small-reads.md).
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return problem("skill-md-unreadable", "SKILL.md cannot be opened for reading");
  }
  try {
    // Read at most one byte past the limit: enough to know it is too big without reading a huge file.
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, fstatSync(fd).size + 1));
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, length);
    if (length > maxBytes) return problem("skill-md-too-large", `SKILL.md is larger than ${maxBytes} bytes`);
    return { bytes: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

/** A Markdown file of the skill as text, for following references; undefined unless a regular file within the limit. */
export function readSkillText(dir: string, relPath: string, maxBytes: number): string | undefined {
  const file = path.join(dir, ...relPath.split("/"));
  const info = lstatOrUndefined(file);
  if (!info?.isFile() || info.size > maxBytes) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Relative POSIX paths of a skill's files (bounded; skips VCS and dependency folders), for resource lint. */
export async function listSkillFiles(dir: string, maxFiles = 5000): Promise<string[]> {
  const files: string[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > 8 || files.length >= maxFiles) return;
    const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child, depth + 1);
      else if (entry.isFile() && files.length < maxFiles) files.push(child);
    }
  };
  await walk("", 0);
  return files.sort();
}
