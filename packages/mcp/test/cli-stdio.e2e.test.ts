// `skillport mcp` end to end: the built CLI serves over stdio and over HTTP; the SDK's verifying skills client reads
// every skill and every file (the examples and a generated 1,000-skill corpus). Needs the build (npm run build).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, describe, expect, it } from "vitest";
import { generateCorpus, httpClient, readEverything } from "../src/test-support/clients.js";
import { cli, startHttp } from "./cli-process.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const examples = path.join(repo, "examples/skills");
const tmp = mkdtempSync(path.join(os.tmpdir(), "skillport-mcp-e2e-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function stdioClient(roots: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", ...roots],
    cwd: repo,
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e", version: "1.0.0" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  await client.connect(transport);
  return { client, skills: new SkillsClient(client), stderr: () => stderr };
}

describe("skillport mcp", () => {
  it("stdio: the examples, every file verified; the client config lines are on stderr", async () => {
    const { client, skills, stderr } = await stdioClient([examples]);
    try {
      const listing = await skills.list();
      expect(listing.skills.map((s) => s.frontmatter.name).sort()).toEqual([
        "api-healthcheck",
        "csv-insights",
        "git-changelog",
      ]);
      expect(await readEverything(skills, listing.skills)).toBeGreaterThan(3);
      expect(stderr()).toContain(`Claude Code:  claude mcp add skillport -- npx skillport mcp ${examples}`);
      expect(stderr()).toContain("Codex (~/.codex/config.toml):  [mcp_servers.skillport]");
    } finally {
      await client.close();
    }
  });

  it(
    "stdio and HTTP: a generated 1,000-skill corpus, every skill and file verified through both transports",
    { timeout: 600_000 },
    async () => {
      const root = path.join(tmp, "corpus");
      generateCorpus(root, 1000);
      const stdio = await stdioClient([root]);
      try {
        const listing = await stdio.skills.list();
        expect(listing.skills).toHaveLength(1000);
        expect(await readEverything(stdio.skills, listing.skills, 8)).toBe(3000);
      } finally {
        await stdio.client.close();
      }
      const token = "e2e-token-0123456789abcdef";
      const http = await startHttp([root], { SKILLPORT_MCP_TOKEN: token });
      try {
        expect(http.stderr()).not.toContain(token);
        const c = await httpClient(http.url, token, "modern");
        const listing = await c.skills.list();
        expect(listing.skills).toHaveLength(1000);
        expect(await readEverything(c.skills, listing.skills, 8)).toBe(3000);
        await c.close();
      } finally {
        http.child.kill("SIGTERM");
      }
    },
  );

  it(
    "the MCP source: `skillport list` and `copy` read from `skillport mcp` through mcp+stdio: and mcp+http://",
    { timeout: 120_000 },
    async () => {
      const run = (args: string[], env: Record<string, string> = {}) =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [cli, ...args], { cwd: repo, env: { ...process.env, ...env } });
          let stdout = "";
          let stderr = "";
          child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
          child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
          child.on("exit", (code) => resolve({ code, stdout, stderr }));
        });
      const viaStdio = await run(["list", `mcp+stdio:${process.execPath} ${cli} mcp ${examples}`, "--json"]);
      expect(viaStdio.code, viaStdio.stderr).toBe(0);
      expect((JSON.parse(viaStdio.stdout) as { skills: { id: string }[] }).skills.map((s) => s.id)).toEqual([
        "api-healthcheck",
        "csv-insights",
        "git-changelog",
      ]);
      const token = "e2e-token-abcdefghijklmnop";
      const http = await startHttp([examples], { SKILLPORT_MCP_TOKEN: token });
      try {
        const target = path.join(tmp, "copied");
        const copied = await run(["copy", `mcp+${http.url}`, target], { SKILLPORT_MCP_TOKEN: token });
        expect([copied.code, copied.stdout], copied.stderr).toEqual([0, expect.stringContaining("3 copied")]);
        const shown = await run(["show", "csv-insights", "--root", target, "--file", "SKILL.md"]);
        expect(shown.stdout).toContain("name: csv-insights");
      } finally {
        http.child.kill("SIGTERM");
      }
    },
  );

  it("HTTP: refuses to start without a token, and --no-auth off loopback, with one line and exit 2", async () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [cli, "mcp", examples, ...args], {
          cwd: repo,
          env: { PATH: process.env.PATH ?? "", HOME: tmp, ...env },
        });
        let stderr = "";
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        child.on("exit", (code) => resolve({ code, stderr }));
      });
    expect(await run(["--http", "127.0.0.1:0"])).toEqual({
      code: 2,
      stderr:
        "skillport: serving over HTTP needs a bearer token of at least 16 characters: set $SKILLPORT_MCP_TOKEN or --token-file, or --no-auth on a loopback address\n",
    });
    expect(await run(["--http", "0.0.0.0:0", "--no-auth"])).toEqual({
      code: 2,
      stderr: "skillport: --no-auth is allowed only on a loopback address (127.0.0.1, ::1, localhost), not 0.0.0.0\n",
    });
    expect(await run(["--http", "nonsense"])).toEqual({
      code: 2,
      stderr: 'skillport: --http takes HOST:PORT (e.g. 127.0.0.1:8787), not "nonsense"\n',
    });
  });
});
