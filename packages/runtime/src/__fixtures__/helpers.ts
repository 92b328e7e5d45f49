// Shared by this package's tests only (not exported from index.ts).
import path from "node:path";
import { afterEach } from "vitest";
import { tempTree, type TempTree } from "@skillport/testing";
import { findBubblewrap } from "@skillport/sandbox";

/**
 * An empty temp directory (the shared temp-tree helper). Its cleanup also removes the default state folder a
 * Workspace rooted there creates beside it (`.<name>.skillport-state`).
 */
export async function tempDir(prefix = "skillport-runtime-"): Promise<TempTree> {
  const tree = await tempTree({}, prefix);
  const stateDir = path.join(path.dirname(tree.dir), `.${path.basename(tree.dir)}.skillport-state`);
  const cleanup = async (): Promise<void> => {
    await tree.cleanup();
    await rm(stateDir, { recursive: true, force: true });
  };
  return { dir: tree.dir, cleanup };
}

/**
 * `tmp()` gives a fresh temp dir, removed (with its state folder) after each test of the calling file; `defer(fn)`
 * runs `fn` at the same point (closing a workspace, removing another folder).
 */
export function useTempDirs(): { tmp: () => Promise<string>; defer: (cleanup: () => Promise<void>) => void } {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const defer = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);
  const tmp = async (): Promise<string> => {
    const t = await tempDir();
    defer(t.cleanup);
    return t.dir;
  };
  return { tmp, defer };
}

/**
 * True when bwrap is usable; when it is missing and SKILLPORT_REQUIRE_SYSTEM_DEPS is set, that is a failure.
 * `onSkip` receives the reason to print (the calling test file prints it; fixtures stay silent).
 */
export function haveBubblewrap(onSkip: (reason: string) => void): boolean {
  if (findBubblewrap()) return true;
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS) throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but not installed");
  onSkip("skipping bubblewrap tests: bwrap is not installed");
  return false;
}

import { mkdir, rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

export interface PackageSpec {
  skills?: string[];
  entrypoint?: string;
  files?: Record<string, string | Uint8Array>;
}

/** Writes a package workspace (skills/<name>/SKILL.md, optional entrypoint.sh) into `dir`. */
export async function writePackage(dir: string, spec: PackageSpec): Promise<string> {
  for (const name of spec.skills ?? ["demo"]) {
    await mkdir(path.join(dir, "skills", name, "scripts"), { recursive: true });
    await writeFile(
      path.join(dir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\ndescription: The ${name} skill does one small thing for tests. Use it in tests.\n---\n\n# ${name}\n\nRun scripts/run.sh.\n`,
    );
    await writeFile(path.join(dir, "skills", name, "scripts", "run.sh"), `echo ${name} ran\n`);
  }
  if (spec.entrypoint !== undefined) await writeFile(path.join(dir, "entrypoint.sh"), spec.entrypoint);
  for (const [rel, content] of Object.entries(spec.files ?? {})) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  return dir;
}

/** Bundles this package's sources for child processes (vitest's source condition does not reach them). */
export async function bundleRuntime(outDir: string): Promise<string> {
  const src = (pkg: string, file = "index.ts") => fileURLToPath(new URL(`../../../${pkg}/src/${file}`, import.meta.url));
  const outfile = path.join(outDir, "runtime-bundle.mjs");
  await build({
    entryPoints: [src("runtime")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "silent",
    // Each package's "@skillport/source" export condition leads to its src/*.ts (decision 0310); without "node",
    // core's "#yaml-library" is the plain import, bundled.
    conditions: ["@skillport/source"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    nodePaths: [fileURLToPath(new URL("../../../../node_modules", import.meta.url))],
  });
  return outfile;
}
