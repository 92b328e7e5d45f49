import { fileURLToPath } from "node:url";
import { callMcpTool, SkillBox, toMcpTools } from "@skillport/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpSkillSource } from "./client-source.js";
import { serveHttp, type HttpServeHandle } from "./http.js";
import { SkillServer } from "./server.js";
import { folderRegistry } from "./test-support/clients.js";

// Interop: @skillport/agent's SkillBox takes skills from a Skillport MCP server through the MCP source, and its MCP
// adapter exposes the load tool that reads them.
const TOKEN = "agent-interop-token-0123456789";
let server: SkillServer;
let http: HttpServeHandle;
beforeAll(async () => {
  server = await SkillServer.create(
    await folderRegistry(fileURLToPath(new URL("../../../examples/skills", import.meta.url))),
    { watch: false },
  );
  http = await serveHttp(server, { token: TOKEN });
});
afterAll(async () => {
  await http.close();
  server.close();
});

describe("SkillBox over the MCP source", () => {
  it("lists the served skills and loads one through the MCP adapter's tool call", async () => {
    const source = new McpSkillSource({ address: `mcp+${http.url}`, token: TOKEN });
    const box = await SkillBox.create({ sources: [source] });
    try {
      expect(toMcpTools(box.tools()).map((t) => t.name)).toContain("load_skill_through_path");
      const result = await callMcpTool(box, {
        name: "load_skill_through_path",
        arguments: { skillId: "csv-insights", path: "SKILL.md" },
      });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain("CSV");
    } finally {
      await box.close();
      await source.close();
    }
  });
});
