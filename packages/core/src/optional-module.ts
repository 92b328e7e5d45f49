import path from "node:path";
import { fileURLToPath } from "node:url";
import { MissingDependencyError } from "./errors.js";

/**
 * Loads an optional peer (decision 0295). `load` is the caller's own `import("…")`, written out so bundlers and
 * readers see the specifier. Only "this package is not installed" becomes MissingDependencyError; a package that is
 * installed but fails to load (a broken native build) keeps its own error.
 */
export async function importOptional<T>(packageName: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isNotInstalled(error, packageName)) throw new MissingDependencyError(packageName, feature, { install: installCommand(packageName), cause: error });
    throw error;
  }
}

function isNotInstalled(error: unknown, packageName: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  // Node names the package it looked for: "Cannot find package 'pg' imported from …" (or the subpath's module).
  return error.message.includes(`'${packageName}'`) || error.message.includes(`'${packageName}/`);
}

/**
 * The line that makes `packageName` resolvable from code at `here`: a globally installed CLI resolves from npm's
 * global folder (found by walking up), so it needs `--global`; anywhere else the project's own install.
 */
export function installCommand(packageName: string, here = fileURLToPath(import.meta.url), execPath = process.execPath): string {
  const bin = path.dirname(execPath);
  // npm's default global folders: <prefix>/lib/node_modules (POSIX, node in <prefix>/bin) and <prefix>/node_modules
  // (Windows, node.exe in <prefix>).
  const globalRoots = [path.join(path.dirname(bin), "lib", "node_modules"), path.join(bin, "node_modules")];
  return globalRoots.some((root) => here.startsWith(root + path.sep)) ? `npm install --global ${packageName}` : `npm install ${packageName}`;
}
