import { lstat, mkdir, realpath, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { isInside, openConfined, walkTree } from "@skillport/fs";
import { errorOf, PluginBuildError, type PluginDiagnostic } from "./diagnostics.js";

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

/**
 * Lists regular files under `dir` (relative POSIX paths from `root`, sorted) with the one walker (@skillport/fs).
 * Links and special files are reported, not followed, and the directory's real path must stay inside `root`:
 * nothing from outside the plugin is ever copied.
 */
export async function listRegularFiles(
  root: string,
  dir: string,
  limits: AssetLimits = {},
): Promise<{ files: string[]; diagnostics: PluginDiagnostic[] }> {
  const maxFiles = limits.maxAssetFiles ?? DEFAULT_MAX_ASSET_FILES;
  const maxBytes = limits.maxAssetBytes ?? DEFAULT_MAX_ASSET_BYTES;
  const rootReal = await realpath(root);
  const dirReal = await realpath(dir);
  const base = relative(root, dir).split(sep).join("/");
  if (!isInside(rootReal, dirReal)) {
    return {
      files: [],
      diagnostics: [errorOf("PLUGIN_ASSET_OUTSIDE", `${base}/ resolves outside the plugin directory`, { file: base })],
    };
  }
  const walked = walkTree(dirReal, { links: "refuse", onProblem: "collect", maxFiles, boundaryName: "the plugin" });
  const diagnostics: PluginDiagnostic[] = [];
  for (const problem of walked.problems) {
    const file = `${base}/${problem.path}`;
    if (problem.kind === "limit")
      diagnostics.push(errorOf("PLUGIN_ASSET_LIMIT", `${base}/ holds more than ${maxFiles} files`));
    else
      diagnostics.push(
        errorOf(
          "PLUGIN_ASSET_NOT_FILE",
          `${file} is a link, special file or unsafe name; only regular files are copied`,
          { file },
        ),
      );
  }
  const files: string[] = [];
  let bytes = 0;
  for (const entry of walked.entries) {
    bytes += entry.size;
    if (bytes > maxBytes)
      return {
        files,
        diagnostics: [...diagnostics, errorOf("PLUGIN_ASSET_LIMIT", `${base}/ holds more than ${maxBytes} bytes`)],
      };
    files.push(`${base}/${entry.path}`);
  }
  return { files, diagnostics };
}

/** Copies one listed file by the descriptor actually opened: a file swapped for a link after the listing is refused. */
export async function copyInto(fromRoot: string, toRoot: string, relPath: string): Promise<void> {
  const target = join(toRoot, ...relPath.split("/"));
  await mkdir(dirname(target), { recursive: true });
  // Links that stay inside the plugin are followed (a README.md link to docs/README.md); the descriptor decides.
  const opened = openConfined(await realpath(fromRoot), relPath, {
    boundaryName: "the plugin",
    followLinksInside: true,
  });
  try {
    const bytes = opened.readAllSync(opened.size);
    if (bytes === undefined)
      throw new PluginBuildError(`${relPath} changed size while it was copied`, [
        errorOf("PLUGIN_ASSET_LIMIT", `${relPath} changed size while it was copied`, { file: relPath }),
      ]);
    await writeFile(target, bytes, { flag: "wx" });
  } finally {
    opened.close();
  }
}
