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
  // The staged folder and every folder below it are new: each is made with one mkdir and one open (no failed open
  // first), and the folders above the file being written stay open, so files side by side do not reopen their folder.
  // Only that chain is kept open (descriptors bounded by the depth); a folder left and come back to is reopened.
  const root = dir.makeChild(temp);
  const made = new Set<string>();
  const open = new Map<string, PinnedDir>();
  const folder = (rel: string): PinnedDir => {
    let found = open.get(rel);
    if (found === undefined) {
      const slash = rel.lastIndexOf("/");
      const parent = slash < 0 ? root : folder(rel.slice(0, slash));
      // An empty or dot segment reaches `at`, which refuses it, as before.
      const name = rel.slice(slash + 1);
      found = made.has(rel) ? parent.child(name) : parent.makeChild(name);
      made.add(rel);
      open.set(rel, found);
    }
    return found;
  };
  const closeOutside = (rel: string | undefined) => {
    for (const [key, d] of open)
      if (rel === undefined || (key !== rel && !rel.startsWith(`${key}/`))) {
        d.close();
        open.delete(key);
      }
  };
  try {
    for (const file of files) {
      const slash = file.path.lastIndexOf("/");
      const rel = slash < 0 ? undefined : file.path.slice(0, slash);
      closeOutside(rel);
      writeFile(rel === undefined ? root : folder(rel), file.path.slice(slash + 1), file.bytes);
    }
  } catch (error) {
    closeOutside(undefined);
    root.close();
    dir.removeTree(temp);
    throw error;
  }
  closeOutside(undefined);
  root.close();
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

function writeFile(dir: PinnedDir, name: string, bytes: Uint8Array): void {
  const fd = dir.createFile(name, 0o644);
  try {
    fs.writeFileSync(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}
