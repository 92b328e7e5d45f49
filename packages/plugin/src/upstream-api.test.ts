/**
 * FastGPT parity of the SDK surface: the definition object's upstream methods (issue 10 gap 4) and the shapes of
 * upstream's invoke types (gap 6). The type cases are checked by `tsc -p tsconfig.json`; each mirrors a line a
 * FastGPT plugin writes.
 */
import { Readable } from "node:stream";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createToolHandler, defineTool, defineToolSet, isPluginDefinition, type ToolHandler } from "./define.js";
import { describePlugin } from "./describe.js";
import { createTestContext } from "./testing.js";
import type {
  HostInvoke,
  InvokeFailure,
  InvokeResult,
  UploadFileRequest,
  UploadFileResult,
  UserInfo,
  WecomCorpToken,
} from "./context.js";

const manifest = {
  pluginId: "getTime",
  version: "1.0",
  name: { en: "Get time", "zh-CN": "获取时间" },
  description: { en: "Current time", "zh-CN": "当前时间" },
};
const echo = createToolHandler({
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  handler: async ({ text }) => ({ text }),
});
const child = (id: string) => ({
  id,
  name: { en: id, "zh-CN": id },
  description: { en: id, "zh-CN": id },
  handler: echo,
});

describe("the definition object has upstream's methods", () => {
  it("defineTool: manifest, the tool handler, no children, an empty secret schema", () => {
    const tool = defineTool({ manifest, handler: echo });
    expect(tool.getUserToolManifest()).toBe(manifest);
    expect(tool.getToolHandler()).toBe(echo);
    expect(tool.getToolHandler("tool")).toBe(echo);
    expect(tool.getToolHandler("other")).toBeUndefined();
    expect(tool.getChildManifests()).toEqual([]);
    expect(tool.getSecretSchema().safeParse({}).success).toBe(true);
    expect(tool.secretSchema).toBeUndefined();
  });

  it("defineToolSet: child manifests without handlers, handlers by id, the shared secret schema", () => {
    const secretSchema = z.object({ key: z.string() });
    const set = defineToolSet({ manifest, secretSchema, children: [{ ...child("a"), icon: "a.svg" }, child("b")] });
    expect(set.getChildManifests()).toEqual([
      { id: "a", name: { en: "a", "zh-CN": "a" }, description: { en: "a", "zh-CN": "a" }, icon: "a.svg" },
      { id: "b", name: { en: "b", "zh-CN": "b" }, description: { en: "b", "zh-CN": "b" } },
    ]);
    expect(set.getToolHandler("b")).toBe(echo);
    expect(set.getToolHandler()).toBeUndefined();
    expect(set.getSecretSchema()).toBe(secretSchema);
  });

  it("registerTool and setSecretSchema change what the host and build see", () => {
    const set = defineToolSet({ manifest, children: [child("a")] });
    const later = z.object({ token: z.string() });
    set.setSecretSchema(later);
    set.registerTool(echo, "c", { id: "c", name: { en: "c", "zh-CN": "c" }, description: { en: "c", "zh-CN": "c" } });
    set.registerTool(echo, "hidden");
    expect(set.secretSchema).toBe(later);
    expect(set.children.map((c) => c.id)).toEqual(["a", "c"]);
    expect(set.getToolHandler("hidden")).toBe(echo);
    expect(isPluginDefinition(set)).toBe(true);
    expect(describePlugin(set).children.map((c) => c.id)).toEqual(["a", "c"]);
    expect(Object.isFrozen(set)).toBe(true);
  });

  it("exposes upstream's userToolManifest, toolHandlers and childManifests, which plugins' own tests read", () => {
    const set = defineToolSet({ manifest, children: [child("a"), child("b")] });
    expect(set.userToolManifest.pluginId).toBe("getTime");
    expect(set.toolHandlers.size).toBe(2);
    expect(set.toolHandlers.has("b")).toBe(true);
    expect([...set.childManifests.keys()]).toEqual(["a", "b"]);
    expect(defineTool({ manifest, handler: echo }).toolHandlers.get("tool")).toBe(echo);
  });

  it("a plugin's own spec can call its handler through getToolHandler", async () => {
    const tool = defineTool({ manifest, handler: echo });
    const { ctx } = createTestContext();
    expect(await tool.getToolHandler()?.handler({ text: "hi" }, ctx)).toEqual({ text: "hi" });
  });
});

describe("upstream's invoke types (compile-time)", () => {
  it("the invoke result is a mutable tuple a plugin's own [T | null, unknown] helper accepts", () => {
    const unwrap = <T>(result: [T | null, unknown]): T | null => result[0];
    const result = [{ access_token: "t", expires_in: 1 }, null] as InvokeResult<WecomCorpToken>;
    expectTypeOf(unwrap(result)).toEqualTypeOf<WecomCorpToken | null>();
    expectTypeOf<InvokeResult<string>>().toEqualTypeOf<[string, null] | [null, InvokeFailure]>();
  });

  it("uploadFile takes a stream, a Buffer or bytes, and an explicit undefined contentType", () => {
    const maybe: string | undefined = undefined;
    const requests: UploadFileRequest[] = [
      { file: Readable.from(["a"]) },
      { file: Buffer.from("a"), contentType: maybe, fileName: maybe },
      { file: new Uint8Array([1]) },
    ];
    expect(requests).toHaveLength(3);
    expectTypeOf<UploadFileResult>().toEqualTypeOf<{
      accessURL: string;
      fileName?: string | undefined;
      contentType?: string | undefined;
      size?: number | undefined;
      etag?: string | undefined;
      createTime?: Date | undefined;
    }>();
  });

  it("userInfo has FastGPT's org and group objects", () => {
    expectTypeOf<UserInfo["orgs"]>().toEqualTypeOf<{ pathId: string; name: string }[]>();
    expectTypeOf<UserInfo["groups"]>().toEqualTypeOf<{ name: string }[]>();
    expectTypeOf<UserInfo["contact"]>().toEqualTypeOf<string | null | undefined>();
  });

  it("getWecomCorpToken is a reverse call", () => {
    expectTypeOf<HostInvoke["getWecomCorpToken"]>().toEqualTypeOf<() => Promise<InvokeResult<WecomCorpToken>>>();
    expectTypeOf<ReturnType<typeof defineTool>["getToolHandler"]>().returns.toEqualTypeOf<ToolHandler | undefined>();
  });
});
