import { afterEach, describe, expect, it } from "vitest";
import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { buildPlugin } from "./build.js";
import { PluginBuildError } from "./diagnostics.js";
import {
  fastgptTool,
  fastgptToolSet,
  LOGO,
  seedTool,
  seedToolSet,
  tempPlugins,
  toolSource,
} from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

const failure = async (promise: Promise<unknown>): Promise<PluginBuildError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginBuildError);
  return error as PluginBuildError;
};
const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, "utf8"));

describe("buildPlugin: the seed's templates", () => {
  it("single tool: one ESM bundle with the SDK and zod external, and the built manifest", async () => {
    const dir = await temp.make({
      "index.ts": seedTool,
      "logo.svg": LOGO,
      "README.md": "# Text normalizer\n",
      "assets/example.txt": "x",
    });
    const result = await buildPlugin({ entry: dir, output: join(dir, "dist") });
    expect(result.files).toEqual(["README.md", "assets/example.txt", "index.js", "logo.svg", "manifest.json"]);
    expect(result.diagnostics).toEqual([]);
    const bundle = await readFile(join(dir, "dist/index.js"), "utf8");
    expect(bundle).toMatch(/from "@skillport\/plugin"/);
    expect(bundle).toMatch(/from "zod"/);
    expect(bundle).not.toMatch(/ZodObject/); // zod itself was not bundled
    expect(await readFile(join(dir, "dist/logo.svg"), "utf8")).toBe(LOGO);
    expect(await readJson(join(dir, "dist/manifest.json"))).toEqual({
      type: "tool",
      pluginId: "text-normalizer",
      version: "1.0.0",
      name: { en: "Text Normalizer", "zh-CN": "文本规范化" },
      description: { en: "Normalize input text", "zh-CN": "规范化输入文本" },
      versionDescription: { en: "Initial version", "zh-CN": "初始版本" },
      permission: [],
      icon: "logo.svg",
      toolDescription: "规范化输入文本",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          text: {
            type: "string",
            minLength: 1,
            title: "Text",
            toolDescription: "Text to normalize",
            isToolParam: true,
          },
        },
        required: ["text"],
      },
      outputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { result: { type: "string", title: "Result" } },
        required: ["result"],
        additionalProperties: false,
      },
    });
  });

  it("tool set: children with their own or the main logo, the shared secret schema", async () => {
    const dir = await temp.make({ "index.ts": seedToolSet, "logo.png": LOGO, "search.logo.svg": LOGO });
    const result = await buildPlugin({ entry: dir, output: join(dir, "dist") });
    expect(result.files).toEqual(["index.js", "logo.png", "manifest.json", "search.logo.svg"]);
    const manifest = result.manifest;
    expect(manifest.icon).toBe("logo.png");
    expect(manifest.toolDescription).toBe("搜索公开示例数据");
    expect(manifest.secretSchema?.properties).toEqual({
      apiKey: { type: "string", minLength: 1, title: "API Key", isSecret: true },
    });
    expect(manifest.inputSchema).toBeUndefined();
    expect(manifest.children?.map((c) => [c.id, c.icon, c.toolDescription])).toEqual([
      ["search", "search.logo.svg", "Search public example data by query"],
    ]);
    expect(await readJson(join(dir, "dist/manifest.json"))).toEqual(manifest);
  });

  it("a child without its own logo reuses the main one", async () => {
    const dir = await temp.make({ "index.ts": seedToolSet, "logo.svg": LOGO });
    const result = await buildPlugin({ entry: dir, output: join(dir, "dist") });
    expect(result.manifest.children?.[0]?.icon).toBe("logo.svg");
  });

  it.each([
    ["single tool", fastgptTool, "text-normalizer"],
    ["tool set", fastgptToolSet, "example-search-tools"],
  ])(
    "%s importing @fastgpt-plugin/sdk-factory builds unchanged (aliased to @skillport/plugin)",
    async (_label, source, id) => {
      const dir = await temp.make({ "index.ts": source, "logo.svg": LOGO });
      const result = await buildPlugin({ entry: dir, output: join(dir, "dist") });
      expect(result.manifest.pluginId).toBe(id);
      const bundle = await readFile(join(dir, "dist/index.js"), "utf8");
      expect(bundle).toContain('from "@skillport/plugin"');
      expect(bundle).not.toContain("@fastgpt-plugin/sdk-factory");
    },
  );
});

describe("buildPlugin: reproducible", () => {
  it("the same sources give the same bytes, in place and in another directory", async () => {
    const files = {
      "index.ts": seedToolSet,
      "lib/extra.ts": "export const x = 1;\n",
      "logo.svg": LOGO,
      "README.md": "# r\n",
      "assets/a.txt": "a",
    };
    const one = await temp.make(files);
    const two = await temp.make(files);
    const snapshot = async (dir: string) => {
      const out: Record<string, string> = {};
      for (const file of await readdir(join(dir, "dist"), { recursive: true })) {
        const bytes = await readFile(join(dir, "dist", file)).catch(() => undefined);
        if (bytes) out[file] = bytes.toString("base64");
      }
      return out;
    };
    await buildPlugin({ entry: one, output: join(one, "dist"), minify: true });
    const first = await snapshot(one);
    await buildPlugin({ entry: one, output: join(one, "dist"), minify: true });
    await buildPlugin({ entry: two, output: join(two, "dist"), minify: true });
    expect(await snapshot(one)).toEqual(first);
    expect(await snapshot(two)).toEqual(first);
    expect(Object.keys(first).sort()).toEqual(
      ["README.md", "assets", "assets/a.txt", "index.js", "logo.svg", "manifest.json"].filter((f) => f !== "assets"),
    );
  });
});

describe("buildPlugin: errors", () => {
  it.each([
    [
      "no default export",
      "export const tool = 1;\n",
      "PLUGIN_DEFAULT_EXPORT",
      "the entry has no default export; export default defineTool(...) or defineToolSet(...)",
    ],
    [
      "a plain object",
      "export default { manifest: {} };\n",
      "PLUGIN_DEFAULT_EXPORT",
      "the default export is an object that is not a defineTool/defineToolSet result; export default defineTool(...) or defineToolSet(...)",
    ],
    [
      "a function",
      "export default () => 1;\n",
      "PLUGIN_DEFAULT_EXPORT",
      "the default export is function; export default defineTool(...) or defineToolSet(...)",
    ],
    [
      "top-level code that throws",
      "throw new Error('boom at load');\n",
      "PLUGIN_LOAD_FAILED",
      "loading the bundle failed: boom at load",
    ],
  ])("default export: %s", async (_label, source, code, message) => {
    const dir = await temp.make({ "index.ts": source, "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics.map((d) => [d.code, d.message])).toEqual([[code, message]]);
  });

  it("a syntax error names the file, line and column", async () => {
    const dir = await temp.make({
      "index.ts": "import './lib/broken';\n",
      "lib/broken.ts": "const x = ;\n",
      "logo.svg": LOGO,
    });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics).toEqual([
      {
        code: "PLUGIN_BUNDLE_FAILED",
        severity: "error",
        message: 'Unexpected ";"',
        file: "lib/broken.ts",
        line: 1,
        column: 11,
      },
    ]);
  });

  it("a missing index.ts is reported", async () => {
    const dir = await temp.make({ "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_ENTRY_FILE_MISSING"]);
  });

  it("manifest issues are reported with their field paths", async () => {
    const source = seedTool
      .replace("pluginId: 'text-normalizer'", "pluginId: 'Text Normalizer'")
      .replace("'zh-CN': '文本规范化'", "");
    const dir = await temp.make({ "index.ts": source, "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics.map((d) => d.message)).toEqual([
      "manifest.pluginId: must use letters, digits, '-' and '_' (starting with a letter or digit)",
      "manifest.name.zh-CN: is required",
    ]);
    expect(error.diagnostics.every((d) => d.file === "index.ts" && d.code === "PLUGIN_MANIFEST_INVALID")).toBe(true);
  });

  it("a failed build leaves the previous dist untouched", async () => {
    const dir = await temp.make({ "index.ts": seedTool, "logo.svg": LOGO });
    await buildPlugin({ entry: dir, output: join(dir, "dist") });
    const before = await readFile(join(dir, "dist/manifest.json"), "utf8");
    await writeFile(join(dir, "index.ts"), "export default 42;\n");
    await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(await readFile(join(dir, "dist/manifest.json"), "utf8")).toBe(before);
    expect((await readdir(dir)).sort()).toEqual(["dist", "index.ts", "logo.svg"]); // no staging leftovers
  });

  it("top-level code that never finishes is stopped by the load timeout", async () => {
    const dir = await temp.make({ "index.ts": "while (true) {}\nexport default 1;\n", "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist"), loadTimeoutMs: 300 }));
    expect(error.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_LOAD_TIMEOUT"]);
  });

  it("top-level code cannot write files or spawn processes while the build reads the definition", async () => {
    const dir = await temp.make({
      "index.ts": "import { writeFileSync } from 'node:fs';\nwriteFileSync('pwned.txt', 'x');\nexport default 1;\n",
      "logo.svg": LOGO,
    });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_LOAD_FAILED"]);
    expect(error.diagnostics[0]?.message).toContain("Access to this API has been restricted");
    const spawner = await temp.make({
      "index.ts": "import { execSync } from 'node:child_process';\nexecSync('true');\nexport default 1;\n",
      "logo.svg": LOGO,
    });
    const denied = await failure(buildPlugin({ entry: spawner, output: join(spawner, "dist") }));
    expect(denied.diagnostics[0]?.message).toContain("Access to this API has been restricted");
  });

  it("load errors do not leak host paths", async () => {
    const dir = await temp.make({
      "index.ts": "import 'left-pad-not-installed';\nexport default 1;\n",
      "logo.svg": LOGO,
    });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    for (const d of error.diagnostics) expect(d.message).not.toContain(dir);
  });

  it.each([
    ["the plugin directory itself", "."],
    ["a parent of the plugin directory", ".."],
  ])("refuses an output that is %s", async (_label, output) => {
    const dir = await temp.make({ "index.ts": seedTool, "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, output) }));
    expect(error.code).toBe("PLUGIN_OUTPUT_INVALID");
  });

  it("refuses to replace a non-empty directory that holds no build", async () => {
    const dir = await temp.make({ "index.ts": seedTool, "logo.svg": LOGO, "dist/notes.txt": "mine" });
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.message).toBe(
      "the output directory dist is not empty and holds no previous build; refusing to replace it",
    );
    expect(await readFile(join(dir, "dist/notes.txt"), "utf8")).toBe("mine");
  });

  it("manifest.icon pointing into assets/ is an error; any other hand-written icon a warning", async () => {
    const bad = await temp.make({ "index.ts": toolSource({ manifest: "icon: 'assets/logo.png'" }), "logo.svg": LOGO });
    const error = await failure(buildPlugin({ entry: bad, output: join(bad, "dist") }));
    expect(error.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_LOGO_IN_ASSETS"]);
    const odd = await temp.make({
      "index.ts": toolSource({ manifest: "icon: 'https://example.com/x.png'" }),
      "logo.svg": LOGO,
    });
    const result = await buildPlugin({ entry: odd, output: join(odd, "dist") });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_ICON_IGNORED"]);
    expect(result.manifest.icon).toBe("logo.svg");
  });

  it("assets that are links are not copied", async () => {
    const dir = await temp.make({ "index.ts": seedTool, "logo.svg": LOGO, "secret.txt": "s" });
    await mkdir(join(dir, "assets"));
    const { symlink } = await import("node:fs/promises");
    await symlink(join(dir, "secret.txt"), join(dir, "assets/link.txt"));
    const error = await failure(buildPlugin({ entry: dir, output: join(dir, "dist") }));
    expect(error.diagnostics.map((d) => [d.code, d.file])).toEqual([["PLUGIN_ASSET_NOT_FILE", "assets/link.txt"]]);
  });
});
