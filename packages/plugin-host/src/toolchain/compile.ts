import { chmod, lstat, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidPathError, ResourceNotFoundError } from "@skillport/core";
import { BUILT_BUNDLE_FILE, BUILT_MANIFEST_FILE, type BuiltManifest, type PluginDescription } from "@skillport/plugin";
import { assembleManifest, childIdsOf } from "./assemble.js";
import { bundlePlugin } from "./bundle.js";
import { errorOf, hasErrorDiagnostics, type PluginDiagnostic } from "./diagnostics.js";
import { copyInto, exists, listRegularFiles, type AssetLimits } from "./files.js";
import { loadPluginDescription } from "./load.js";
import { scanLogos } from "./logos.js";

export const ENTRY_FILE = "index.ts";
export const README_FILE = "README.md";
export const ASSETS_DIR = "assets";

export interface CompileOptions extends AssetLimits {
  minify?: boolean;
  /** Limit for importing the bundle to read its definition. Default 30 s. */
  loadTimeoutMs?: number;
  /** Let the bundler follow imports outside the plugin folder and its node_modules. Default false. */
  allowOutsideImports?: boolean;
  /** Import the bundle with no network ("auto", the default, where bubblewrap works) or without that ("off"). */
  loadIsolateNetwork?: "auto" | "off";
}

export interface CompileResult {
  diagnostics: PluginDiagnostic[];
  /** Present when there were no errors. */
  manifest?: BuiltManifest;
  description?: PluginDescription;
  /** The bundle text, when bundling succeeded. */
  code?: string;
}

/**
 * Builds a plugin into `stageDir` (which must exist and be empty): bundle, read the definition, apply the
 * logo rules, write manifest.json, copy logos, README.md and assets/. Never throws for problems in the plugin.
 */
export async function compilePlugin(
  givenEntryDir: string,
  givenStageDir: string,
  options: CompileOptions = {},
): Promise<CompileResult> {
  const diagnostics: PluginDiagnostic[] = [];
  const entryStat = await lstat(givenEntryDir).catch(() => undefined);
  if (!entryStat?.isDirectory())
    return { diagnostics: [errorOf("PLUGIN_ENTRY_MISSING", "the entry directory does not exist")] };
  // Real paths from here on: the bundler judges imports, and the sandboxed loader is granted folders, by real path
  // (a plugin addressed through a linked ancestor, `/home -> /data/home`, would otherwise load nothing).
  const entryDir = await realpath(givenEntryDir);
  const stageDir = await realpath(givenStageDir);
  if (!(await exists(join(entryDir, ENTRY_FILE)))) {
    return {
      diagnostics: [
        errorOf(
          "PLUGIN_ENTRY_FILE_MISSING",
          `${ENTRY_FILE} is missing; it must default-export defineTool(...) or defineToolSet(...)`,
          { file: ENTRY_FILE },
        ),
      ],
    };
  }
  const bundled = await bundlePlugin({
    entryDir,
    entryFile: ENTRY_FILE,
    minify: options.minify === true,
    allowOutsideImports: options.allowOutsideImports === true,
  });
  if (!bundled.ok) return { diagnostics: bundled.diagnostics };
  const bundlePath = join(stageDir, BUILT_BUNDLE_FILE);
  await writeFile(bundlePath, bundled.code);

  // Assets go in before loading so top-level code that reads its own files finds them.
  if (await exists(join(entryDir, ASSETS_DIR))) {
    const assets = await listRegularFiles(entryDir, join(entryDir, ASSETS_DIR), options);
    diagnostics.push(...assets.diagnostics);
    for (const file of assets.files) await copyInto(entryDir, stageDir, file);
  }
  if (await exists(join(entryDir, README_FILE))) {
    // A link is followed only within the plugin (the copy verifies the opened file): README.md → ~/.ssh/id_rsa must
    // not land in dist/ and the .pkg.
    try {
      await copyInto(entryDir, stageDir, README_FILE);
    } catch (error) {
      if (!(error instanceof InvalidPathError || error instanceof ResourceNotFoundError)) throw error;
      const message = `${README_FILE} is not a regular file inside the plugin folder (a link out of it, or a special file); only the plugin's own files are copied`;
      diagnostics.push(errorOf("PLUGIN_README_NOT_FILE", message, { file: README_FILE }));
    }
  }

  // The loader runs as the sandbox's non-root user: the stage (a private temp dir) must be readable to it, as dist/ is.
  await chmod(stageDir, 0o755);
  const loaded = await loadPluginDescription(bundlePath, {
    pluginDir: entryDir,
    ...(options.loadTimeoutMs === undefined ? {} : { timeoutMs: options.loadTimeoutMs }),
    ...(options.loadIsolateNetwork === undefined ? {} : { isolateNetwork: options.loadIsolateNetwork }),
    redact: [
      [join(stageDir, BUILT_BUNDLE_FILE), BUILT_BUNDLE_FILE],
      [stageDir, "dist"],
      [entryDir, "."],
    ],
  });
  if (!loaded.ok)
    return {
      diagnostics: [...diagnostics, errorOf(loaded.code, loaded.message, { file: ENTRY_FILE })],
      code: bundled.code,
    };
  const description = loaded.description;

  const logos = await scanLogos(entryDir, childIdsOf(description));
  const assembled = assembleManifest(description, logos, ENTRY_FILE);
  diagnostics.push(...assembled.diagnostics);
  if (assembled.manifest === undefined || hasErrorDiagnostics(diagnostics))
    return { diagnostics, description, code: bundled.code };

  const logoFiles = new Set([logos.main, ...logos.children.values()].filter((f): f is string => f !== undefined));
  for (const file of [...logoFiles].sort()) await copyInto(entryDir, stageDir, file);
  await writeFile(join(stageDir, BUILT_MANIFEST_FILE), serializeManifest(assembled.manifest));
  return { diagnostics, manifest: assembled.manifest, description, code: bundled.code };
}

/** Stable bytes: two-space JSON with the assembler's fixed key order and a final newline. */
export function serializeManifest(manifest: BuiltManifest): string {
  return JSON.stringify(manifest, null, 2) + "\n";
}
