import { afterEach, describe, expect, it } from "vitest";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { createPlugin, kebabCase, templateFiles } from "./create.js";
import { PluginBuildError } from "./diagnostics.js";
import { tempPlugins } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

describe("createPlugin", () => {
  it.each([
    [
      "tool",
      ["README.md", "index.spec.ts", "index.ts", "logo.svg", "package.json", "tsconfig.json", "vitest.config.ts"],
    ],
    [
      "tool-suite",
      [
        "README.md",
        "index.spec.ts",
        "index.ts",
        "logo.svg",
        "package.json",
        "sign.logo.svg",
        "tsconfig.json",
        "vitest.config.ts",
      ],
    ],
  ] as const)("%s: writes the template files into <cwd>/<name>", async (type, expected) => {
    const parent = await temp.make({});
    const result = await createPlugin({ name: "my-tool", type, cwd: parent });
    expect(result.dir).toBe(join(parent, "my-tool"));
    expect(result.files).toEqual(expected);
    expect((await readdir(result.dir)).sort()).toEqual(expected);
    const pkg = JSON.parse(await readFile(join(result.dir, "package.json"), "utf8")) as {
      name: string;
      scripts: Record<string, string>;
    };
    expect(pkg.name).toBe("my-tool");
    expect(Object.keys(pkg.scripts).sort()).toEqual(["build", "build:dev", "check", "pack", "test"]);
    const index = await readFile(join(result.dir, "index.ts"), "utf8");
    expect(index).toContain("pluginId: 'my-tool'");
    expect(index).toContain("name: { en: 'My Tool'");
    expect(index).not.toContain("{{");
    const readme = await readFile(join(result.dir, "README.md"), "utf8");
    for (const heading of ["## Inputs", "## Outputs", "## Secrets", "## Usage"].filter(
      (h) => type === "tool" || (h !== "## Inputs" && h !== "## Outputs"),
    )) {
      expect(readme).toContain(heading);
    }
  });

  it("the suite template shares one secret schema and gives the sign child its own logo", () => {
    const files = templateFiles("x", "tool-suite");
    expect(files["index.ts"]).toContain("defineToolSet({\n  secretSchema,");
    expect(files["index.ts"]).toContain("isSecret: true");
    expect(files["index.ts"]).toContain("id: 'sign'");
    expect(files["sign.logo.svg"]).toContain("<svg");
  });

  it("refuses to overwrite an existing directory and leaves it alone", async () => {
    const parent = await temp.make({ "taken/index.ts": "mine" });
    const error = await createPlugin({ name: "taken", type: "tool", cwd: parent }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginBuildError);
    expect((error as PluginBuildError).message).toBe("taken already exists; refusing to overwrite it");
    expect(await readFile(join(parent, "taken/index.ts"), "utf8")).toBe("mine");
  });

  it.each(["My Tool", "../escape", "a/b", "", "-dash-first", "x".repeat(65)])("rejects the name %j", async (name) => {
    const parent = await temp.make({});
    const error = await createPlugin({ name, type: "tool", cwd: parent }).catch((e: unknown) => e);
    expect((error as PluginBuildError).code).toBe("PLUGIN_CREATE_INVALID");
    expect(await readdir(parent)).toEqual([]);
  });
});

describe("createPlugin, as FastGPT's CLI names things", () => {
  it.each([
    ["MyTool", "my-tool"],
    ["getTime", "get-time"],
    ["DingTalkWebhook", "ding-talk-webhook"],
    ["getHTTPStatus2", "get-http-status-2"],
    ["json_processor", "json-processor"],
  ])("%s keeps its case as pluginId and directory; package.json is named %s", (name, packageName) => {
    expect(kebabCase(name)).toBe(packageName);
  });

  it("writes the description, a vitest config and an index.spec.ts", async () => {
    const parent = await temp.make({});
    const { dir, files } = await createPlugin({
      name: "MyTool",
      type: "tool",
      cwd: parent,
      description: 'Does "things"\nwell',
    });
    expect(dir).toBe(join(parent, "MyTool"));
    expect(files).toContain("vitest.config.ts");
    expect(files).toContain("index.spec.ts");
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { name: string; description: string };
    expect(pkg).toMatchObject({ name: "my-tool", description: 'Does "things"\nwell' });
    expect(await readFile(join(dir, "README.md"), "utf8")).toContain('Does "things" well');
    expect(await readFile(join(dir, "index.ts"), "utf8")).toContain("pluginId: 'MyTool'");
  });
});
