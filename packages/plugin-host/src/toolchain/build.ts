import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { BUILT_BUNDLE_FILE, BUILT_MANIFEST_FILE, type BuiltManifest } from "@skillport/plugin";
import { compilePlugin, type CompileOptions } from "./compile.js";
import { hasErrorDiagnostics, PluginBuildError, type PluginDiagnostic } from "./diagnostics.js";
import { isInside, swapIntoPlace, walkTree } from "@skillport/fs";
import { exists } from "./files.js";

export interface BuildOptions extends CompileOptions {
  /** The plugin directory (holds index.ts, logo.<ext>, README.md, assets/). */
  entry: string;
  /** Where the build goes, usually `<entry>/dist`; replaced as a whole only when the build succeeds. */
  output: string;
}

export interface BuildResult {
  manifest: BuiltManifest;
  /** Warnings (a successful build has no errors). */
  diagnostics: PluginDiagnostic[];
  /** Files written, relative to the output directory, sorted. */
  files: string[];
}

/**
 * Builds a plugin into `output`. The new build is made in a sibling temp directory and swapped in,
 * so a failed build leaves the previous one untouched. Throws PluginBuildError with diagnostics.
 */
export async function buildPlugin(options: BuildOptions): Promise<BuildResult> {
  const entry = resolve(options.entry);
  const output = resolve(options.output);
  await assertReplaceableOutput(entry, output);
  await mkdir(dirname(output), { recursive: true });
  const stage = await mkdtemp(join(dirname(output), `.${basename(output)}.build-`));
  try {
    const result = await compilePlugin(entry, stage, options);
    if (result.manifest === undefined || hasErrorDiagnostics(result.diagnostics)) {
      const errors = result.diagnostics.filter((d) => d.severity === "error");
      throw new PluginBuildError(
        `build failed with ${errors.length} error${errors.length === 1 ? "" : "s"}`,
        result.diagnostics,
      );
    }
    await swapInto(stage, output);
    return { manifest: result.manifest, diagnostics: result.diagnostics, files: await listFiles(output) };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Refuses outputs that would destroy sources: the entry itself, its ancestors, or a non-build directory. */
async function assertReplaceableOutput(entry: string, output: string): Promise<void> {
  if (isInside(output, entry)) {
    throw new PluginBuildError(
      "the output directory must not be the plugin directory or contain it",
      [],
      "PLUGIN_OUTPUT_INVALID",
    );
  }
  if (!(await exists(output))) return;
  const names = await readdir(output).catch(() => {
    throw new PluginBuildError("the output path exists and is not a directory", [], "PLUGIN_OUTPUT_INVALID");
  });
  if (names.length > 0 && !names.includes(BUILT_MANIFEST_FILE) && !names.includes(BUILT_BUNDLE_FILE)) {
    throw new PluginBuildError(
      `the output directory ${basename(output)} is not empty and holds no previous build; refusing to replace it`,
      [],
      "PLUGIN_OUTPUT_INVALID",
    );
  }
}

async function swapInto(stage: string, output: string): Promise<void> {
  const fresh = `${stage}.ready`;
  await rename(stage, fresh);
  const old = `${stage}.old`;
  if (swapIntoPlace(fresh, output, old)) await rm(old, { recursive: true, force: true });
}

/** Regular files under `dir` (a build output), relative POSIX paths, sorted by code unit; links are left out. */
export async function listFiles(dir: string): Promise<string[]> {
  return walkTree(dir, { links: "exclude", checkNames: false }).entries.map((entry) => entry.path);
}
