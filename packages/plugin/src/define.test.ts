import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createToolHandler, defineTool, defineToolSet, isPluginDefinition, PLUGIN_DEFINITION } from "./define.js";
import { describePlugin } from "./describe.js";
import { createTestContext } from "./testing.js";
import {
  INVOKE_PERMISSIONS,
  permissionDenied,
  type InvokeResult,
  type ToolHandlerContext,
  type UploadFileResult,
} from "./context.js";
import type { InputSchemaMetaType, SecretSchemaMetaType } from "./meta.js";

const manifest = {
  pluginId: "demo",
  version: "0.1.0",
  name: { en: "Demo", "zh-CN": "演示" },
  description: { en: "Demo tool", "zh-CN": "演示工具" },
};

const secretSchema = z.object({
  token: z.string().meta({ title: "Token", isSecret: true } satisfies SecretSchemaMetaType),
});

const upload = createToolHandler({
  inputSchema: z.object({ text: z.string().meta({ title: "Text", isToolParam: true } satisfies InputSchemaMetaType) }),
  outputSchema: z.object({ url: z.string() }),
  secretSchema,
  handler: async (input, ctx) => {
    expectTypeOf(ctx.secrets).toEqualTypeOf<{ token: string }>();
    const [result, failure] = await ctx.invoke.uploadFile({ fileName: "a.txt", file: input.text });
    if (failure) throw new Error(failure.reason.en);
    return { url: result.accessURL };
  },
});

describe("defineTool / defineToolSet", () => {
  it("a single tool has one child with id 'tool' and its handler's secret schema", () => {
    const tool = defineTool({ manifest, handler: upload });
    expect(tool.kind).toBe("tool");
    expect(tool[PLUGIN_DEFINITION]).toBe(true);
    expect(tool.children).toHaveLength(1);
    expect(tool.children[0]).toMatchObject({ id: "tool", name: manifest.name, description: manifest.description });
    expect(tool.secretSchema).toBe(secretSchema);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it("a tool set keeps its children in order and its top-level secret schema", () => {
    const set = defineToolSet({
      manifest,
      secretSchema,
      children: [
        { id: "b", name: manifest.name, description: manifest.description, handler: upload },
        { id: "a", name: manifest.name, description: manifest.description, icon: "a.logo.svg", handler: upload },
      ],
    });
    expect(set.kind).toBe("toolSet");
    expect(set.children.map((c) => c.id)).toEqual(["b", "a"]);
    expect(set.secretSchema).toBe(secretSchema);
  });

  it("accepts strict and loose object schemas and handlers without secrets in one tool set", async () => {
    const strict = createToolHandler({
      inputSchema: z.strictObject({ a: z.number().default(1) }),
      outputSchema: z.looseObject({ b: z.string() }),
      handler: (input, ctx) => {
        expectTypeOf(input.a).toEqualTypeOf<number>();
        expectTypeOf(ctx.secrets).toEqualTypeOf<undefined>();
        return { b: String(input.a) };
      },
    });
    const set = defineToolSet({
      manifest,
      children: [
        { id: "strict", name: manifest.name, description: manifest.description, handler: strict },
        { id: "upload", name: manifest.name, description: manifest.description, handler: upload },
      ],
    });
    const { ctx } = createTestContext();
    await expect(Promise.resolve(set.children[0]?.handler.handler({ a: 2 }, ctx))).resolves.toEqual({ b: "2" });
    expect(describePlugin(set).children[0]?.inputSchema?.required).toBeUndefined(); // defaults make inputs optional
  });

  it.each([
    ["null", null, false],
    ["a plain object", { kind: "tool", children: [] }, false],
    [
      "a symbol-branded object from another SDK copy",
      { [Symbol.for("skillport.plugin.definition")]: true, kind: "toolSet", children: [] },
      true,
    ],
    ["a wrong kind", { [Symbol.for("skillport.plugin.definition")]: true, kind: "agent", children: [] }, false],
  ])("isPluginDefinition(%s)", (_label, value, expected) => {
    expect(isPluginDefinition(value)).toBe(expected);
  });
});

describe("ctx.invoke in tests", () => {
  it("a handler sees reverse-call results as tuples", async () => {
    const { ctx } = createTestContext({
      secrets: { token: "t" },
      invoke: { uploadFile: async (req) => [{ accessURL: `mem://${req.fileName}`, size: 2 }, null] as const },
    });
    await expect(upload.handler({ text: "hi" }, ctx)).resolves.toEqual({ url: "mem://a.txt" });
  });

  it("calls without a stand-in resolve to a bilingual failure, never throw", async () => {
    const { ctx } = createTestContext();
    const [value, failure] = await ctx.invoke.teamInfo();
    expect(value).toBeNull();
    expect(failure?.error).toBe("NotAvailable");
    expect(failure?.reason["zh-CN"]).toContain("ctx.invoke.teamInfo");
  });

  it("permissionDenied names the permission in English and Chinese", () => {
    expect(INVOKE_PERMISSIONS).toEqual({
      userInfo: "userInfo:read",
      teamInfo: "teamInfo:read",
      model: "model:read",
      dataset: "dataset:read",
      uploadFile: "file-upload:allow",
      getWecomCorpToken: "teamInfo:read",
    });
    const failure = permissionDenied("uploadFile");
    expect(failure.reason.en).toContain('"file-upload:allow"');
    expect(failure.reason["zh-CN"]).toContain('"file-upload:allow"');
    expect(failure.data).toEqual({ permission: "file-upload:allow" });
    expectTypeOf<Awaited<ReturnType<ToolHandlerContext["invoke"]["uploadFile"]>>>().toEqualTypeOf<
      InvokeResult<UploadFileResult>
    >();
  });
});

describe("describePlugin", () => {
  it("reports schemas that are not z.object or cannot become JSON Schema", () => {
    const broken = defineToolSet({
      manifest,
      children: [
        {
          id: "x",
          name: manifest.name,
          description: manifest.description,
          handler: {
            inputSchema: z.string(),
            outputSchema: z.object({ when: z.date() }),
            handler: async () => ({}),
          } as never,
        },
      ],
    });
    const described = describePlugin(broken);
    expect(described.problems).toHaveLength(2);
    expect(described.problems[0]).toBe("children[0].handler.inputSchema: must be a z.object(...) schema");
    expect(described.problems[1]).toMatch(/^children\[0\]\.handler\.outputSchema: cannot be expressed as JSON Schema/);
  });

  it("reports a child that is not an object", () => {
    const broken = defineToolSet({ manifest, children: [null as never] });
    expect(describePlugin(broken).problems[0]).toBe("children[0]: must be an object {id, name, description, handler}");
  });

  it("reports a child without a handler", () => {
    const broken = defineToolSet({
      manifest,
      children: [{ id: "x", name: manifest.name, description: manifest.description } as never],
    });
    expect(describePlugin(broken).problems).toEqual([
      "children[0].handler: must be a createToolHandler(...) result with a handler function",
      "children[0].handler.inputSchema: is required",
      "children[0].handler.outputSchema: is required",
    ]);
  });
});
