import type * as esbuild from "esbuild";
import { importOptional } from "@skillport/core/internal";
import { confineImports, NESTED_RESOLVE } from "./confine-imports.js";
import { needsOwnZod } from "./dependency-zod.js";
import { errorOf, type PluginDiagnostic } from "./diagnostics.js";

/** Modules the host provides at run time: never bundled, so every plugin shares the host's zod and SDK. */
export const HOST_MODULE_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  "@skillport/plugin": "@skillport/plugin",
  "@fastgpt-plugin/sdk-factory": "@skillport/plugin",
  zod: "zod",
});

/** Maps an import specifier to the host module it stands for, or undefined when the plugin bundles it. */
export function hostModuleFor(specifier: string): string | undefined {
  const direct = HOST_MODULE_ALIASES[specifier];
  if (direct !== undefined) return direct;
  if (specifier.startsWith("zod/")) return specifier;
  return undefined;
}

const hostModules: esbuild.Plugin = {
  name: "skillport-host-modules",
  setup(build) {
    build.onResolve({ filter: /^(?:zod(?:\/.*)?|@skillport\/plugin|@fastgpt-plugin\/sdk-factory)$/ }, async (args) => {
      if (args.pluginData === NESTED_RESOLVE) return undefined;
      // A dependency built for another zod major bundles its own copy (see dependency-zod.ts).
      if ((args.path === "zod" || args.path.startsWith("zod/")) && args.importer.includes("node_modules")) {
        const own = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: NESTED_RESOLVE,
        });
        if (own.errors.length === 0 && needsOwnZod(args.importer, own.path)) return { path: own.path };
      }
      return { path: hostModuleFor(args.path) ?? args.path, external: true };
    });
  },
};

// Bundled CommonJS dependencies call require() for Node built-ins; give ESM output a real one.
const REQUIRE_SHIM =
  'import { createRequire as __skillportCreateRequire } from "node:module";\n' +
  "const require = __skillportCreateRequire(import.meta.url);";

export interface BundleOptions {
  /** The plugin directory; paths in output and messages are relative to it. */
  entryDir: string;
  /** The entry file name inside `entryDir`. */
  entryFile: string;
  minify?: boolean;
  /**
   * Bundle imports that resolve outside the plugin folder and its node_modules (a sibling workspace package, a
   * shared file). Default false: such an import is an error naming it, since it could carry any of the builder's
   * files into the bundle.
   */
  allowOutsideImports?: boolean;
}

export type BundleResult =
  { ok: true; code: string; inputs: string[] } | { ok: false; diagnostics: PluginDiagnostic[] };

/**
 * Bundles a plugin into one ESM file for Node >= 20. Deterministic: the same sources give the same bytes. Throws
 * MissingDependencyError when esbuild (an optional peer) is not installed.
 */
export async function bundlePlugin(options: BundleOptions): Promise<BundleResult> {
  // esbuild is an optional peer (decision 0295): without it, building says which command installs it (throws).
  const { build } = await importOptional("esbuild", "building a plugin", () => import("esbuild"));
  try {
    const result = await build({
      absWorkingDir: options.entryDir,
      entryPoints: [options.entryFile],
      bundle: true,
      write: false,
      outfile: "index.js",
      format: "esm",
      platform: "node",
      target: "node20",
      minify: options.minify === true,
      sourcemap: false,
      legalComments: options.minify === true ? "none" : "eof",
      charset: "utf8",
      banner: { js: REQUIRE_SHIM },
      metafile: true,
      logLevel: "silent",
      plugins: options.allowOutsideImports === true ? [hostModules] : [hostModules, confineImports(options.entryDir)],
    });
    const output = result.outputFiles.find((file) => file.path.endsWith(".js"));
    if (output === undefined)
      return { ok: false, diagnostics: [errorOf("PLUGIN_BUNDLE_FAILED", "esbuild produced no JavaScript output")] };
    return { ok: true, code: output.text, inputs: Object.keys(result.metafile.inputs).sort() };
  } catch (error) {
    return { ok: false, diagnostics: esbuildDiagnostics(error) };
  }
}

function esbuildDiagnostics(error: unknown): PluginDiagnostic[] {
  const failure = error as Partial<esbuild.BuildFailure>;
  if (!Array.isArray(failure.errors) || failure.errors.length === 0) {
    return [
      errorOf("PLUGIN_BUNDLE_FAILED", `bundling failed: ${error instanceof Error ? error.message : String(error)}`),
    ];
  }
  return failure.errors.map((message) =>
    errorOf("PLUGIN_BUNDLE_FAILED", message.text, {
      ...(message.location
        ? { file: message.location.file, line: message.location.line, column: message.location.column + 1 }
        : {}),
    }),
  );
}
