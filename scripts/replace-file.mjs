// Build outputs are written so that a program running from them never reads half a file: the build may run while
// tests run the built CLI (the release test's `npm pack` runs `prepare`, which builds). An unchanged file is left
// alone, a changed one is written beside it and renamed over it. Used by both bundling steps.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** Writes `contents` to `file` unless it already holds exactly that; the new file replaces the old by a rename. */
export function replaceFile(file, contents) {
  if (existsSync(file) && readFileSync(file).equals(contents)) return;
  writeFileSync(`${file}.tmp`, contents);
  renameSync(`${file}.tmp`, file);
}
