import { copyFile, lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { errorOf, type PluginDiagnostic } from "./diagnostics.js";

export interface AssetLimits {
  /** Most files copied from assets/. Default 2000. */
  maxAssetFiles?: number;
  /** Most bytes copied from assets/ in total. Default 64 MiB. */
  maxAssetBytes?: number;
}

const DEFAULT_MAX_ASSET_FILES = 2000;
const DEFAULT_MAX_ASSET_BYTES = 64 * 1024 * 1024;

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

export const isInside = (parent: string, child: string): boolean => {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/**
 * Lists regular files under `dir` (relative POSIX paths, sorted). Links and special files are refused, and
 * the directory's real path must stay inside `root`: nothing from outside the plugin is ever copied.
 */
export async function listRegularFiles(
  root: string,
  dir: string,
  limits: AssetLimits = {},
): Promise<{ files: string[]; diagnostics: PluginDiagnostic[] }> {
  const maxFiles = limits.maxAssetFiles ?? DEFAULT_MAX_ASSET_FILES;
  const maxBytes = limits.maxAssetBytes ?? DEFAULT_MAX_ASSET_BYTES;
  const diagnostics: PluginDiagnostic[] = [];
  const files: string[] = [];
  let bytes = 0;
  const rootReal = await realpath(root);
  const base = relative(root, dir).split(sep).join("/");
  if (!isInside(rootReal, await realpath(dir))) {
    return { files, diagnostics: [errorOf("PLUGIN_ASSET_OUTSIDE", `${base}/ resolves outside the plugin directory`, { file: base })] };
  }
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(path);
      } else if (entry.isFile()) {
        bytes += (await lstat(join(root, path))).size;
        files.push(path);
        if (files.length > maxFiles) throw limitError("PLUGIN_ASSET_LIMIT", `assets/ holds more than ${maxFiles} files`);
        if (bytes > maxBytes) throw limitError("PLUGIN_ASSET_LIMIT", `assets/ holds more than ${maxBytes} bytes`);
      } else {
        diagnostics.push(errorOf("PLUGIN_ASSET_NOT_FILE", `${path} is a link or special file; only regular files are copied`, { file: path }));
      }
    }
  };
  try {
    await walk(base);
  } catch (error) {
    if (error instanceof LimitDiagnostic) return { files, diagnostics: [...diagnostics, error.diagnostic] };
    throw error;
  }
  return { files, diagnostics };
}

class LimitDiagnostic extends Error {
  constructor(readonly diagnostic: PluginDiagnostic) {
    super(diagnostic.message);
  }
}
const limitError = (code: string, message: string) => new LimitDiagnostic(errorOf(code, message));

export async function copyInto(fromRoot: string, toRoot: string, relPath: string): Promise<void> {
  const target = join(toRoot, ...relPath.split("/"));
  await mkdir(dirname(target), { recursive: true });
  await copyFile(join(fromRoot, ...relPath.split("/")), target);
}

/** True when `relPath` is a regular file whose real path (links followed) lies inside `root`: safe to copy out. */
export async function isOwnRegularFile(root: string, relPath: string): Promise<boolean> {
  try {
    const real = await realpath(join(root, ...relPath.split("/")));
    return isInside(await realpath(root), real) && (await stat(real)).isFile();
  } catch {
    return false;
  }
}
