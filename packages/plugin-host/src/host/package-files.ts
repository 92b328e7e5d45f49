/**
 * Reads a plugin package — a built `dist/` directory or a `.pkg` (flat ZIP of dist/) — into memory as a list
 * of regular files, under the same limits as skill packages (@skillport/pack's PackageLimits). Nothing is written until the whole
 * package has been checked, so a bad archive leaves no trace.
 */
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_PACKAGE_LIMITS, readArchive, type PackageLimits } from "@skillport/pack";
import { PluginHostError } from "./errors.js";

export { DEFAULT_PACKAGE_LIMITS, type PackageLimits };

export interface PackageFile {
  /** POSIX path relative to the package root. */
  path: string;
  bytes: Uint8Array;
}

/** Why a relative path is unsafe, or undefined when it is fine. */
export function unsafePathReason(path: string): string | undefined {
  if (path === "") return "empty path";
  if (path.includes("\0")) return "contains a NUL byte";
  if (path.includes("\\")) return "contains a backslash";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is absolute";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `has a "${segment || "empty"}" segment`;
  }
  return undefined;
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
    if (depth > this.limits.maxDepth) throw invalid(this.label, `${path} is nested ${depth} levels deep (limit ${this.limits.maxDepth})`);
    if (++this.#files > this.limits.maxFiles) throw invalid(this.label, `more than ${this.limits.maxFiles} files`);
    if (size > this.limits.maxFileBytes) throw invalid(this.label, `${path} is ${size} bytes (limit ${this.limits.maxFileBytes})`);
    this.#bytes += size;
    if (this.#bytes > this.limits.maxTotalBytes) throw invalid(this.label, `more than ${this.limits.maxTotalBytes} bytes in total`);
  }
}

/** Every regular file under `root`, sorted by path. Symlinks and special files are refused, not followed. */
export async function readPackageDir(root: string, label: string, limits: PackageLimits): Promise<PackageFile[]> {
  const budget = new Budget(label, limits);
  const files: PackageFile[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      const reason = unsafePathReason(rel);
      if (reason) throw invalid(label, `file name ${JSON.stringify(rel)} ${reason}`);
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(abs, rel);
      } else if (entry.isFile()) {
        budget.add(rel, (await lstat(abs)).size);
        files.push({ path: rel, bytes: await readFile(abs) });
      } else {
        throw invalid(label, `${rel} is not a regular file (symlinks and special files are not allowed in a plugin)`);
      }
    }
  };
  await walk(root, "");
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
