import { describe, expect, it } from "vitest";
import { createTestContext, describePlugin, isPluginDefinition, parsePluginManifest } from "@skillport/plugin";
import seedTool from "./seed-tool.js";
import seedToolSet from "./seed-tool-set.js";

describe("the seed's templates work unchanged", () => {
  it("single tool: a valid definition whose handler trims", async () => {
    expect(isPluginDefinition(seedTool)).toBe(true);
    expect(seedTool.kind).toBe("tool");
    expect(seedTool.children.map((c) => c.id)).toEqual(["tool"]);
    expect(parsePluginManifest(seedTool.manifest).ok).toBe(true);
    const { ctx } = createTestContext();
    const input = seedTool.handler.inputSchema.parse({ text: "  hi  " });
    await expect(seedTool.handler.handler(input, ctx)).resolves.toEqual({ result: "hi" });
  });

  it("single tool: JSON Schemas keep the .meta() keys", () => {
    const described = describePlugin(seedTool);
    expect(described.problems).toEqual([]);
    expect(described.children[0]?.inputSchema?.properties).toEqual({
      text: { type: "string", minLength: 1, title: "Text", toolDescription: "Text to normalize", isToolParam: true },
    });
    expect(described.children[0]?.outputSchema?.properties).toEqual({ result: { type: "string", title: "Result" } });
    expect(described.secretSchema).toBeUndefined();
  });

  it("tool set: shared secret schema and streamed progress", async () => {
    expect(seedToolSet.kind).toBe("toolSet");
    const search = seedToolSet.children.find((c) => c.id === "search");
    expect(search?.toolDescription).toBe("Search public example data by query");
    const { ctx, events } = createTestContext({ secrets: { apiKey: "k" } });
    await expect(search?.handler.handler({ query: "cats" }, ctx)).resolves.toEqual({ items: [] });
    expect(events).toEqual([{ type: "answer", content: "Searching: cats" }]);
    const described = describePlugin(seedToolSet);
    expect(described.secretSchema?.properties).toEqual({ apiKey: { type: "string", minLength: 1, title: "API Key", isSecret: true } });
  });
});
