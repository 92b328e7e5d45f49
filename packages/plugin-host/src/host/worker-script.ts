/**
 * Puts the worker's code into a runtime folder the sandbox can read: a copy of the compiled worker when the
 * host runs from dist/, or an esbuild bundle of worker/main.ts when it runs from sources (tests under vitest).
 * A private folder with its own package.json keeps the worker independent of the host's install layout.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importOptional } from "@skillport/core/internal";

export async function installWorkerScript(runtimeDir: string): Promise<string> {
  await mkdir(runtimeDir, { recursive: true });
  await writeFile(join(runtimeDir, "package.json"), JSON.stringify({ type: "module", private: true }));
  const compiledDir = fileURLToPath(new URL("./worker/", import.meta.url));
  const script = join(runtimeDir, "main.js");
  if (existsSync(join(compiledDir, "main.js"))) {
    for (const name of await readdir(compiledDir)) {
      if (name.endsWith(".js")) await copyFile(join(compiledDir, name), join(runtimeDir, name));
    }
  } else {
    await writeFile(script, await bundledSource(join(compiledDir, "main.ts")));
  }
  return script;
}

let bundle: Promise<string> | undefined;

function bundledSource(entry: string): Promise<string> {
  bundle ??= (async () => {
    const { build } = await importOptional(
      "esbuild",
      "running a plugin from the source checkout",
      () => import("esbuild"),
    );
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error("esbuild produced no worker bundle");
    return output.text;
  })();
  return bundle;
}
