import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolHandler, defineTool, defineToolSet } from "@skillport/plugin";
import { readDefinition } from "./definition.js";

const manifest = { pluginId: "p", version: "1.0.0", name: { en: "P", "zh-CN": "P" }, description: { en: "P", "zh-CN": "P" } };
const secretSchema = z.object({ key: z.string() });
const handler = createToolHandler({
  inputSchema: z.object({ a: z.string() }),
  outputSchema: z.object({ b: z.string() }),
  secretSchema,
  handler: async ({ a }) => ({ b: a }),
});

describe("readDefinition", () => {
  it("reads a defineTool result as one tool with id 'tool' and its handler's secret schema", () => {
    const plugin = readDefinition({ default: defineTool({ manifest, handler }) });
    expect(plugin.pluginId).toBe("p");
    expect([...plugin.tools.keys()]).toEqual(["tool"]);
    expect(plugin.tools.get("tool")?.secretSchema).toBe(secretSchema);
  });

  it("gives every child of a tool set the set's secret schema (upstream semantics)", () => {
    const shared = z.object({ token: z.string() });
    const child = (id: string) => ({ id, name: manifest.name, description: manifest.description, handler });
    const plugin = readDefinition({ default: defineToolSet({ manifest, secretSchema: shared, children: [child("a"), child("b")] }) });
    expect([...plugin.tools.keys()]).toEqual(["a", "b"]);
    expect(plugin.tools.get("b")?.secretSchema).toBe(shared);
  });

  it.each([
    [{}, "the plugin's index.js has no default export (expected defineTool() or defineToolSet())"],
    [{ default: { manifest: {} } }, "the default export has no manifest.pluginId (expected defineTool() or defineToolSet())"],
    [{ default: { manifest, handler: {} } }, "handler is not a createToolHandler() result (no handler function)"],
    [{ default: { manifest, handler: { handler() {}, inputSchema: {}, outputSchema: {} } } }, "handler.inputSchema is not a zod schema"],
    [{ default: { manifest, children: [{ handler }] } }, "children[0] has no id"],
  ])("explains what is wrong with %j", (namespace, message) => {
    expect(() => readDefinition(namespace)).toThrow(message);
  });
});
