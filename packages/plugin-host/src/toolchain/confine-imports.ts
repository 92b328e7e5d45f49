/**
 * The bundler may read only the plugin: files under the plugin folder and its dependencies (issue 8, hole 6).
 * esbuild inlines whatever an import resolves to, so `import x from "../../.aws/credentials.json"`, an absolute
 * path or a link out of the folder would copy the builder's files into dist/index.js and the .pkg. Every import
 * is resolved first and judged by the real path of what it resolves to (for a message naming the import), and every
 * file esbuild loads is judged again (glob-style dynamic imports skip the resolve step).
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type * as esbuild from "esbuild";
import { isInside } from "@skillport/fs";

/**
 * Marks a plugin's own nested `build.resolve`: every onResolve hook of the build skips it, so two hooks that each
 * resolve through the other never recurse (esbuild would spin). Shared with the host-modules hook in bundle.ts.
 */
export const NESTED_RESOLVE = Symbol("skillport-nested-resolve");

/**
 * The real paths an import may resolve into: the plugin folder, and every `node_modules` on the way from it up to the
 * file system root (where Node and esbuild look for its dependencies, hoisted or not) that is a real directory with
 * no link anywhere on its path (issue 19, hole 2). The walk follows the plugin folder's real path, whose ancestors
 * hold no link by construction, and takes a `node_modules` only when lstat says directory: a `node_modules -> /`
 * shipped with the plugin or planted above it (`/tmp/node_modules`) would otherwise make `/` a dependency folder.
 * Links inside an accepted folder (pnpm's `node_modules/x -> .pnpm/…`, a tool's link into a hoisted store) are
 * judged per file by where they lead.
 */
function allowedImportRoots(pluginDir: string): string[] {
  const pluginReal = realpathSync.native(pluginDir);
  const roots = [pluginReal];
  for (let dir = pluginReal; ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    if (lstatSync(modules, { throwIfNoEntry: false })?.isDirectory() === true) roots.push(modules);
    if (dirname(dir) === dir) break;
  }
  return roots;
}

export function confineImports(pluginDir: string): esbuild.Plugin {
  return {
    name: "skillport-confine-imports",
    setup(build) {
      const roots = allowedImportRoots(pluginDir);
      const pluginReal = roots[0] as string;
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === NESTED_RESOLVE) return undefined;
        const result = await build.resolve(args.path, {
          importer: args.importer,
          namespace: args.namespace,
          resolveDir: args.resolveDir,
          kind: args.kind,
          with: args.with,
          pluginData: NESTED_RESOLVE,
        });
        // The hook only judges; esbuild then resolves the import itself (`undefined`), as it would without the hook.
        // Handing back the nested result instead loses what esbuild's resolver knows beyond the path: the `type` of
        // the package a file belongs to, so a `type: module` plugin's default import of a CommonJS package marked
        // `__esModule` (@clickhouse/client) got `exports.default` instead of `module.exports`, undefined at run time.
        // Nothing resolved means nothing is read: esbuild's own handling applies (a `require` inside `try` becomes a
        // warning and throws at run time, where the package's catch expects it: debug's supports-color, pg-native).
        if (result.errors.length > 0 || result.external || result.namespace !== "file" || result.path === "")
          return undefined;
        let real: string;
        try {
          real = realpathSync.native(result.path);
        } catch {
          real = result.path;
        }
        if (roots.some((root) => isInside(root, real))) return undefined;
        const from = args.importer === "" ? "the entry" : relative(pluginReal, realOr(args.importer)) || args.importer;
        return {
          errors: [
            {
              text:
                `import "${args.path}" in ${from} resolves to ${relative(pluginReal, real)}, outside the plugin folder and its ` +
                `node_modules; the bundle would carry that file. Move it into the plugin, or build with ` +
                `allowOutsideImports (CLI: --allow-outside-imports) if it is meant to be bundled`,
            },
          ],
        };
      });
      // Every file esbuild loads, also those a glob-style dynamic import (`import(`../${name}.json`)`) expands to,
      // which never pass through onResolve.
      build.onLoad({ filter: /.*/, namespace: "file" }, (args) => {
        const real = realOr(args.path);
        if (roots.some((root) => isInside(root, real))) return undefined;
        return {
          errors: [
            {
              text:
                `${relative(pluginReal, real)} is outside the plugin folder and its node_modules (reached through an import ` +
                `pattern); the bundle would carry that file. Build with allowOutsideImports (CLI: --allow-outside-imports) ` +
                `if it is meant to be bundled`,
            },
          ],
        };
      });
    },
  };
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
