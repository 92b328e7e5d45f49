// The official MCP conformance scenarios for the Skills extension (SEP-2640) against `skillport mcp --http`, the
// built CLI over the examples. The suite needs Node ≥ 22: it and Node 22 are installed once into a cache folder.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { conformanceRuntime } from "./conformance-runtime.js";
import { startHttp } from "./cli-process.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];

describe("MCP conformance: server scenarios of the Skills extension", () => {
  it(
    "sep-2640-skills-enumeration, -manifest and -directory pass against skillport mcp --http",
    { timeout: 900_000 },
    async (context) => {
      const runtime = await conformanceRuntime();
      if ("skip" in runtime) {
        console.warn(`skipped: ${runtime.skip}`);
        context.skip();
        return;
      }
      const server = await startHttp([path.join(repo, "examples/skills")], {}, ["--no-auth"]);
      try {
        for (const scenario of SCENARIOS) {
          const { stdout } = await promisify(execFile)(
            runtime.node,
            [runtime.cli, "server", "--url", server.url, "--scenario", scenario],
            { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
          );
          const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
          expect([scenario, summary?.[3]], stdout).toEqual([scenario, "0"]);
          expect(Number(summary?.[1])).toBe(Number(summary?.[2]));
          expect(Number(summary?.[2])).toBeGreaterThan(5);
        }
      } finally {
        server.child.kill("SIGTERM");
      }
    },
  );
});
