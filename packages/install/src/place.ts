import fs from "node:fs";
import path from "node:path";
import { errorCode, isInside, openPinnedDir, swapIntoPlace, tempName, type PinnedDir } from "@skillport/fs";
import type { SkillFileBytes } from "./digest.js";

/**
 * Opens an absolute folder without following links below `trusted` (the project or the home folder, the user's own
 * choice), creating what is missing. A folder outside `trusted` (an XDG or CODEX_HOME setting) is trusted up to its
 * parent.
 */
export function openTarget(trusted: string, dir: string): PinnedDir {
  const root = isInside(trusted, dir) ? trusted : path.dirname(dir);
  fs.mkdirSync(root, { recursive: true });
  return openPinnedDir(root, path.relative(root, dir).split(path.sep).join("/"), { create: true });
}

/** What is at `name` in `dir`: nothing, a link (with its target), or a folder/file. */
export function entryKind(
  dir: PinnedDir,
  name: string,
): { kind: "none" } | { kind: "link"; target: string } | { kind: "other" } {
  try {
    const st = fs.lstatSync(dir.at(name));
    return st.isSymbolicLink() ? { kind: "link", target: fs.readlinkSync(dir.at(name)) } : { kind: "other" };
  } catch {
    return { kind: "none" };
  }
}

/**
 * Writes a whole skill folder as `name` inside `dir`: every file into a temp folder beside it (created exclusively,
 * through descriptors that never follow a link), then one rename. An existing entry is moved aside first and removed
 * after, so an interruption leaves the old folder (or it, aside, under a `.tmp-` name) and never a half-written one.
 */
export function writeFolder(dir: PinnedDir, name: string, files: readonly SkillFileBytes[]): void {
  const temp = tempName(name);
  const staged = dir.child(temp, { create: true });
  try {
    for (const file of files) writeInto(staged, file.path.split("/"), file.bytes);
  } catch (error) {
    staged.close();
    dir.removeTree(temp);
    throw error;
  }
  staged.close();
  swapInto(dir, temp, name);
}

/**
 * Points `name` in `dir` at `target` (relative) with a link, replacing what is there in one rename. Where nothing is
 * there, the link is made in place: symlink(2) creates it whole or fails on any entry (a dangling link included), so
 * nothing is followed or half-written, and a new install saves a temp name, an lstat and a rename per link.
 */
export function writeLink(dir: PinnedDir, name: string, target: string): void {
  try {
    fs.symlinkSync(target, dir.at(name));
    return;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  }
  const temp = tempName(name);
  fs.symlinkSync(target, dir.at(temp));
  swapInto(dir, temp, name);
}

/** Removes `name` from `dir` (a link is unlinked, never followed; a folder is removed through descriptors). */
export function removeEntry(dir: PinnedDir, name: string): void {
  dir.removeTree(name);
}

function swapInto(dir: PinnedDir, temp: string, name: string): void {
  const aside = tempName(`${name}-old`);
  try {
    if (swapIntoPlace(dir.at(temp), dir.at(name), dir.at(aside))) dir.removeTree(aside);
  } catch (error) {
    // Whatever failed, the staged copy goes: the old entry is what stays.
    dir.removeTree(temp);
    throw error;
  }
}

function writeInto(dir: PinnedDir, segments: string[], bytes: Uint8Array): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    const fd = dir.createFile(head, 0o644);
    try {
      fs.writeFileSync(fd, bytes);
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  const child = dir.child(head, { create: true });
  try {
    writeInto(child, rest, bytes);
  } finally {
    child.close();
  }
}
