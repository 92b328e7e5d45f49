import path from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeConformance, runConformance, writeConformanceFixture, CONFORMANCE_SKILL_ID } from "@skillport/testing";
import { makeTempDir, removeDir } from "@skillport/testing";
import { SkillRegistry } from "@skillport/core";
import { SkillServer } from "./server.js";
import { serveHttp, type HttpServeHandle } from "./http.js";
import { McpSkillSource } from "./client-source.js";
import { folderRegistry } from "./test-support/clients.js";

// The provider conformance kit through an MCP source reading from a Skillport MCP server over Streamable HTTP.
const TOKEN = "client-source-token-0123456789";
let root: string;
let http: HttpServeHandle;
let server: SkillServer;
let toolHttp: HttpServeHandle;
let toolServer: SkillServer;
const opened: McpSkillSource[] = [];

beforeAll(async () => {
  root = await makeTempDir("skillport-mcp-source-");
  await writeConformanceFixture(path.join(root, "served"));
  const tools = path.join(root, "tooled", "tooled");
  mkdirSync(tools, { recursive: true });
  writeFileSync(
    path.join(tools, "SKILL.md"),
    "---\nname: tooled\ndescription: Has allowed-tools. Use when testing approval.\nallowed-tools: Bash(rm:*) Read\n---\n# Tooled\n",
  );
  server = await SkillServer.create(await folderRegistry(path.join(root, "served")), { watch: false });
  http = await serveHttp(server, { token: TOKEN, rateLimit: 1_000_000 });
  toolServer = await SkillServer.create(await folderRegistry(path.join(root, "tooled")), { watch: false });
  toolHttp = await serveHttp(toolServer, { token: TOKEN });
}, 120_000);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await http?.close();
  server?.close();
  await toolHttp?.close();
  toolServer?.close();
  await removeDir(root);
});

const make = () => {
  const source = new McpSkillSource({ address: `mcp+${http.url}`, token: TOKEN });
  opened.push(source);
  return source;
};

describe("McpSkillSource", () => {
  describeConformance("McpSkillSource", make, { describe, it });

  it("passes the whole kit in one report", async () => {
    const report = await runConformance(make);
    expect(report.failed).toEqual([]);
    expect(report.passed.length).toBeGreaterThanOrEqual(48);
  }, 300_000);

  it("lists without reading any file; drops allowed-tools unless approved; its name carries the server, never the token", async () => {
    const source = new McpSkillSource({ address: `mcp+${toolHttp.url}`, token: TOKEN });
    opened.push(source);
    expect(source.name).toBe(`mcp+${toolHttp.url}`);
    expect(await source.discover()).toEqual(["tooled"]);
    expect((await source.getMetadata("tooled"))["allowed-tools"]).toBeUndefined();
    const approved = new McpSkillSource({
      address: `mcp+${toolHttp.url}`,
      token: TOKEN,
      approvedAllowedTools: (id) => id === "tooled",
    });
    opened.push(approved);
    expect((await approved.getMetadata("tooled"))["allowed-tools"]).toBe("Bash(rm:*) Read");
  });

  it("usable wherever a source is: a registry over it keeps local skills first and reaches the MCP one by qualified id", async () => {
    const local = path.join(root, "local");
    await writeConformanceFixture(local);
    const registry = await folderRegistry(local);
    const remote = make();
    await registry.addProvider(remote, { watch: false });
    expect(registry.get(CONFORMANCE_SKILL_ID).source).toBe("fs:test");
    expect(registry.shadowed.map((s) => s.shadowed)).toEqual([`${remote.name}:${CONFORMANCE_SKILL_ID}`]);
    const viaMcp = registry.get(`${remote.name}:${CONFORMANCE_SKILL_ID}`);
    expect(new TextDecoder().decode(await viaMcp.readFile("references/notes.md"))).toContain("A reference document");
    expect(registry).toBeInstanceOf(SkillRegistry);
  });

  it("an unreachable server or a wrong token is one clear error", async () => {
    const wrong = new McpSkillSource({ address: `mcp+${http.url}`, token: "wrong-token-wrong-token" });
    opened.push(wrong);
    await expect(wrong.discover()).rejects.toThrow(/could not be reached/);
    expect(() => new McpSkillSource({ address: "http://x" })).toThrow(/mcp\+http/);
  });
});
