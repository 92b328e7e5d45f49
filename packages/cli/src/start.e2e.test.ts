// `npm start` as a real process: the demo runs, then a registry on SQLite in a temporary folder serves the examples
// (the well-known index lists them, /mcp answers as the registry's MCP server) until Ctrl-C — SIGINT to the process
// group, as a terminal sends it — after which both stop, the folder is gone and the exit code is 0.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isBuilt } from "./test-support.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe.skipIf(!isBuilt)("npm start", () => {
  it("runs the demo, serves a registry with the examples published and its MCP line, stops on SIGINT with exit 0", async () => {
    const child = spawn("npm", ["start", "--silent"], {
      cwd: repo,
      detached: true,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const ready = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        output += d.toString();
        if (/\n {2}Ctrl-C stops it\.\n/.test(output)) resolve(output);
      });
      void exited.then((code) => reject(new Error(`npm start exited (${code}) before serving:\n${output}`)));
    });
    try {
      expect(ready).toMatch(/entrypoint [0-9a-f]{24}: ran/); // the demo ran first
      const url = /\n {2}registry: (http:\/\/127\.0\.0\.1:\d+)/.exec(ready)?.[1] ?? "";
      const data = /\n {2}data: +(\S+) /.exec(ready)?.[1] ?? "";
      expect(ready).toContain(`MCP:      claude mcp add --transport http skillport-registry ${url}/mcp`);
      expect(existsSync(data)).toBe(true);

      const index = (await (await fetch(`${url}/.well-known/agent-skills/index.json`)).json()) as {
        skills: Array<{ name: string }>;
      };
      expect(index.skills.map((s) => s.name)).toEqual(
        expect.arrayContaining(["csv-insights", "git-changelog", "word-stats"]),
      );
      const mcp = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
      expect(mcp.status).toBe(200);
      const init = (await mcp.json()) as {
        result: { serverInfo: { name: string }; capabilities: { extensions?: Record<string, unknown> } };
      };
      expect(init.result.serverInfo.name).toBe("skillport-registry");
      expect(init.result.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/skills"]);

      process.kill(-(child.pid as number), "SIGINT");
      expect(await exited, output).toBe(0);
      expect(output).toContain("registry stopped, its temporary folder removed");
      expect(existsSync(data)).toBe(false);
    } finally {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }, 180_000);
});
