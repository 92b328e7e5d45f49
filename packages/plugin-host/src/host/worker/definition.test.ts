import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolHandler, defineTool, defineToolSet } from "@skillport/plugin";
import { readDefinition } from "./definition.js";

const manifest = {
  pluginId: "p",
  version: "1.0.0",
  name: { en: "P", "zh-CN": "P" },
  description: { en: "P", "zh-CN": "P" },
};
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
    const plugin = readDefinition({
      default: defineToolSet({ manifest, secretSchema: shared, children: [child("a"), child("b")] }),
    });
    expect([...plugin.tools.keys()]).toEqual(["a", "b"]);
    expect(plugin.tools.get("b")?.secretSchema).toBe(shared);
  });

  it.each([
    [{}, "the plugin's index.js has no default export (expected defineTool() or defineToolSet())"],
    [
      { default: { manifest: {} } },
      "the default export has no manifest.pluginId (expected defineTool() or defineToolSet())",
    ],
    [{ default: { manifest, handler: {} } }, "handler is not a createToolHandler() result (no handler function)"],
    [
      { default: { manifest, handler: { handler() {}, inputSchema: {}, outputSchema: {} } } },
      "handler.inputSchema is not a zod schema",
    ],
    [{ default: { manifest, children: [{ handler }] } }, "children[0] has no id"],
  ])("explains what is wrong with %j", (namespace, message) => {
    expect(() => readDefinition(namespace)).toThrow(message);
  });
});

describe("readDefinition reads a FastGPT ToolFactory through its methods", () => {
  // The shape of upstream's ToolFactory instance (methods on a class, no `children` field), written here from its API.
  class Factory {
    readonly #handlers = new Map<string, unknown>();
    readonly #children: { id: string }[] = [];
    #secrets: unknown = z.object({});
    constructor(readonly owner: { pluginId: string }) {}
    registerTool(h: unknown, id = "tool", child?: { id: string }) {
      this.#handlers.set(id, h);
      if (child) this.#children.push(child);
    }
    setSecretSchema(schema: unknown) {
      this.#secrets = schema;
    }
    getUserToolManifest() {
      return this.owner;
    }
    getToolHandler(id = "tool") {
      return this.#handlers.get(id);
    }
    getChildManifests() {
      return [...this.#children];
    }
    getSecretSchema() {
      return this.#secrets;
    }
  }

  it("a single tool", () => {
    const factory = new Factory({ pluginId: "delayTool" });
    factory.registerTool(handler);
    factory.setSecretSchema(secretSchema);
    const plugin = readDefinition({ default: factory });
    expect(plugin.pluginId).toBe("delayTool");
    expect([...plugin.tools.keys()]).toEqual(["tool"]);
    expect(plugin.tools.get("tool")?.secretSchema).toBe(secretSchema);
  });

  it("a tool set", () => {
    const factory = new Factory({ pluginId: "dbops" });
    factory.registerTool(handler, "mysql", { id: "mysql" });
    factory.registerTool(handler, "pgsql", { id: "pgsql" });
    expect([...readDefinition({ default: factory }).tools.keys()]).toEqual(["mysql", "pgsql"]);
  });

  it("a child without a handler is named", () => {
    const factory = new Factory({ pluginId: "x" });
    factory.registerTool(handler, "a", { id: "a" });
    factory.getChildManifests = () => [{ id: "a" }, { id: "b" }];
    expect(() => readDefinition({ default: factory })).toThrow(
      'getToolHandler("b") is not a createToolHandler() result',
    );
  });
});
