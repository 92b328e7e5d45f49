/**
 * Reads a plugin package — a built `dist/` directory or a `.pkg` (flat ZIP of dist/) — into memory as a list
 * of regular files, under the same limits as skill packages (@skillport/pack's PackageLimits). Nothing is written until the whole
 * package has been checked, so a bad archive leaves no trace.
 */
import { realpath } from "node:fs/promises";
import { AgentSkillsError } from "@skillport/core";
import { openConfined, walkTree } from "@skillport/fs";
import { DEFAULT_PACKAGE_LIMITS, readArchive, type PackageLimits } from "@skillport/pack";
import { PluginHostError } from "./errors.js";

export { DEFAULT_PACKAGE_LIMITS, type PackageLimits };

export interface PackageFile {
  /** POSIX path relative to the package root. */
  path: string;
  bytes: Uint8Array;
}

function invalid(label: string, message: string): PluginHostError {
  return new PluginHostError("PLUGIN_INVALID", `${label}: ${message}`);
}

class Budget {
  #files = 0;
  #bytes = 0;
  constructor(
    readonly label: string,
    readonly limits: PackageLimits,
  ) {}
  add(path: string, size: number): void {
    const depth = path.split("/").length;
    if (depth > this.limits.maxDepth)
      throw invalid(this.label, `${path} is nested ${depth} levels deep (limit ${this.limits.maxDepth})`);
    if (++this.#files > this.limits.maxFiles) throw invalid(this.label, `more than ${this.limits.maxFiles} files`);
    if (size > this.limits.maxFileBytes)
      throw invalid(this.label, `${path} is ${size} bytes (limit ${this.limits.maxFileBytes})`);
    this.#bytes += size;
    if (this.#bytes > this.limits.maxTotalBytes)
      throw invalid(this.label, `more than ${this.limits.maxTotalBytes} bytes in total`);
  }
}

/**
 * Every regular file under `root`, sorted by path, through the one walker and the one confined read
 * (@skillport/fs): names must pass core's path rules; links and special files are refused, not followed; each file
 * is verified by the descriptor actually opened, so a file swapped for a link after the walk is refused too.
 */
export async function readPackageDir(root: string, label: string, limits: PackageLimits): Promise<PackageFile[]> {
  const budget = new Budget(label, limits);
  const files: PackageFile[] = [];
  try {
    const rootReal = await realpath(root);
    const walked = walkTree(rootReal, {
      links: "refuse",
      maxDepth: limits.maxDepth,
      maxFiles: limits.maxFiles,
      boundaryName: "the package",
    });
    for (const entry of walked.entries) {
      const opened = openConfined(rootReal, entry.path, { boundaryName: "the package" });
      try {
        const bytes = opened.readAllSync(limits.maxFileBytes);
        budget.add(entry.path, bytes === undefined ? limits.maxFileBytes + 1 : bytes.byteLength);
        if (bytes === undefined) throw invalid(label, `${entry.path} is over ${limits.maxFileBytes} bytes`);
        files.push({ path: entry.path, bytes });
      } finally {
        opened.close();
      }
    }
  } catch (error) {
    if (error instanceof PluginHostError) throw error;
    if (error instanceof AgentSkillsError)
      throw invalid(label, `${error.message} (symlinks, special files and unsafe names are not allowed in a plugin)`);
    throw error;
  }
  return files;
}

/**
 * Every file of a `.pkg` (a flat ZIP of dist/), through @skillport/pack's safe reader: the whole listing is
 * checked (paths, symlinks, duplicates, sizes, ratios) before anything is inflated, and nothing touches disk.
 */
export async function readPackageArchive(file: string, label: string, limits: PackageLimits): Promise<PackageFile[]> {
  try {
    const contents = await readArchive(file, { limits, stripWrapper: false });
    return contents.files.map(({ path, bytes }) => ({ path, bytes }));
  } catch (error) {
    throw invalid(label, error instanceof Error ? error.message : String(error));
  }
}
