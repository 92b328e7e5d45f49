import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeDeterministicZip } from "@skillport/pack";
import { writeFileAtomic } from "@skillport/fs";
import type { BuiltManifest } from "@skillport/plugin";
import { buildPlugin, listFiles } from "./build.js";
import { checkPlugin } from "./check.js";
import type { CompileOptions } from "./compile.js";
import { PluginBuildError, type PluginDiagnostic } from "./diagnostics.js";

export interface PackOptions extends CompileOptions {
  entry: string;
  /** The build directory to (re)build and pack, usually `<entry>/dist`. */
  dist: string;
  /** Directory the `.pkg` is written to, usually `<entry>/out`. */
  output: string;
  /** The package's file name without `.pkg` (upstream's `--name`). Default `<pluginId>-<version>`. */
  name?: string;
}

/** A package name is one plain file name segment. */
const PACKAGE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export interface PackResult {
  /** Absolute path of the written package. */
  file: string;
  /** `<pluginId>-<version>.pkg` */
  fileName: string;
  /** sha256 of the package bytes, lowercase hex. */
  sha256: string;
  size: number;
  /** Archive entries, sorted. */
  entries: string[];
  manifest: BuiltManifest;
  /** Warnings from build and check. */
  diagnostics: PluginDiagnostic[];
}

/**
 * Rebuilds, checks, then writes `<pluginId>-<version>.pkg`: a flat ZIP of dist/ whose bytes depend only on
 * the files (sorted entries, fixed times and modes). Refuses to pack when check reports errors.
 */
export async function packPlugin(options: PackOptions): Promise<PackResult> {
  if (options.name !== undefined && !PACKAGE_NAME.test(options.name)) {
    throw new PluginBuildError(
      `invalid package name ${JSON.stringify(options.name)}: use letters, digits, '.', '-' and '_'`,
      [],
      "PLUGIN_PACK_INVALID",
    );
  }
  const built = await buildPlugin({ ...options, entry: options.entry, output: options.dist });
  const checked = await checkPlugin({
    ...options,
    entry: options.entry,
    output: options.dist,
    minify: options.minify === true,
  });
  if (!checked.ok) {
    const errors = checked.diagnostics.filter((d) => d.severity === "error").length;
    throw new PluginBuildError(
      `check failed with ${errors} error${errors === 1 ? "" : "s"}; nothing was packed`,
      checked.diagnostics,
      "PLUGIN_CHECK_FAILED",
    );
  }
  const dist = resolve(options.dist);
  const entries = await listFiles(dist);
  const zip = await writeDeterministicZip(
    await Promise.all(
      entries.map(async (path) => ({
        path,
        bytes: await readFile(join(dist, ...path.split("/"))),
        mode: 0o644 as const,
      })),
    ),
  );
  const fileName = `${options.name ?? `${built.manifest.pluginId}-${built.manifest.version}`}.pkg`;
  const file = join(resolve(options.output), fileName);
  await writeFileAtomic(file, zip);
  const seen = new Set<string>();
  const diagnostics = [...built.diagnostics, ...checked.diagnostics].filter((d) => {
    const key = JSON.stringify(d);
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return {
    file,
    fileName,
    sha256: createHash("sha256").update(zip).digest("hex"),
    size: zip.byteLength,
    entries,
    manifest: built.manifest,
    diagnostics,
  };
}
