// What a remote source left in its cache folder, for tests that look at the files themselves.
import { readdirSync } from "node:fs";
import path from "node:path";

/** The per-credential folders (`id-<keyed hash>`) inside a source's cache folder. */
export function identityFolders(cacheDir: string): string[] {
  return readdirSync(cacheDir)
    .filter((name) => name.startsWith("id-"))
    .map((name) => path.join(cacheDir, name));
}

/** The one state file of a cache folder used by one identity. */
export function stateFile(cacheDir: string): string {
  const [only, ...more] = identityFolders(cacheDir);
  if (only === undefined || more.length > 0)
    throw new Error(`${cacheDir} holds ${more.length + (only ? 1 : 0)} identity folders, not one`);
  return path.join(only, "state.json");
}
