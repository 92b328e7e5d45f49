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
    if (isNotInstalled(error, packageName))
      throw new MissingDependencyError(packageName, feature, { install: installCommand(packageName), cause: error });
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
 * The line that makes `packageName` resolvable from code at `here` (a path): a globally installed CLI resolves from
 * npm's global folder (found by walking up), so it needs `--global`; anywhere else the project's own install.
 * Plain string work on `/`-separated paths: core imports no Node module (docs/architecture.md).
 */
export function installCommand(
  packageName: string,
  here = modulePath(),
  execPath = globalThis.process?.execPath ?? "",
): string {
  const slashes = (p: string) => p.replace(/\\/g, "/");
  const bin = slashes(execPath).replace(/\/[^/]*$/, "");
  // npm's default global folders: <prefix>/lib/node_modules (POSIX, node in <prefix>/bin) and <prefix>/node_modules
  // (Windows, node.exe in <prefix>).
  const globalRoots = [`${bin.replace(/\/[^/]*$/, "")}/lib/node_modules/`, `${bin}/node_modules/`];
  const at = slashes(here);
  return execPath !== "" && globalRoots.some((root) => at.startsWith(root))
    ? `npm install --global ${packageName}`
    : `npm install ${packageName}`;
}

/** This module's own path, from its file URL (`/C:/…` becomes `C:/…`). */
function modulePath(): string {
  return decodeURIComponent(new URL(import.meta.url).pathname).replace(/^\/([A-Za-z]:)/, "$1");
}
