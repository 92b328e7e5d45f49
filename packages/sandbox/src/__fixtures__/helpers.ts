// Shared by this package's tests only (not exported from index.ts).
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import { findBubblewrap } from "../bubblewrap.js";

export async function tempDir(prefix = "skillport-sandbox-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Named workspaces under one temporary folder for the whole test file, world-searchable (0755): code that runs as
 * another uid walks the real path down to its writable directory. Removed after the file's tests.
 */
export function useWorkspaces(): (name: string) => Promise<string> {
  let base: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeAll(async () => {
    base = await tempDir();
    await chmod(base.dir, 0o755);
  });
  afterAll(async () => {
    await base?.cleanup();
  });
  return async (name) => {
    if (!base) throw new Error("useWorkspaces: called outside a test");
    const dir = path.join(base.dir, name);
    await mkdir(dir, { recursive: true });
    return dir;
  };
}

/**
 * True when bwrap is usable; when it is missing and SKILLPORT_REQUIRE_SYSTEM_DEPS is set, that is a failure.
 * `onSkip` receives the reason to print (the calling test file prints it; fixtures stay silent).
 */
export function haveBubblewrap(onSkip: (reason: string) => void): boolean {
  if (findBubblewrap()) return true;
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS) throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set) but not installed");
  onSkip("skipping bubblewrap tests: bwrap is not installed or cannot create its namespaces here");
  return false;
}

/**
 * What a launcher needs to hold the egress forwarder (decision 0430): bubblewrap, a root host, nsenter and curl.
 * `findNsenter` comes from the caller, so a test that mocks egress-forwarder.js asks its own module.
 */
export function canHoldForwarder(findNsenter: () => string | undefined, onSkip: (reason: string) => void): boolean {
  if (!haveBubblewrap(onSkip)) return false;
  const held = process.getuid?.() === 0 && findNsenter() !== undefined && existsSync("/usr/bin/curl");
  if (!held) onSkip("skipping the held-forwarder runs: needs a root host, nsenter and curl");
  return held;
}

/** Bundles this package's sources for child processes (vitest's source condition does not reach them). */
export async function bundleSandbox(outDir: string): Promise<string> {
  const src = (pkg: string, file = "index.ts") => fileURLToPath(new URL(`../../../${pkg}/src/${file}`, import.meta.url));
  const outfile = path.join(outDir, "sandbox-bundle.mjs");
  await build({
    entryPoints: [src("sandbox")],
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
