import { afterEach, describe, expect, it } from "vitest";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildPlugin } from "./build.js";
import { checkPlugin } from "./check.js";
import { createPlugin } from "./create.js";
import { LOGO, seedTool, seedToolSet, tempPlugins, toolSource } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

const README = { "README.md": "# Probe\n" };
const base = (files: Record<string, string> = {}) => ({ "logo.svg": LOGO, ...README, ...files });
const codesOf = (diagnostics: { code: string; severity: string }[]) => diagnostics.map((d) => `${d.severity}:${d.code}`);

/** Build (when the sources build), optionally damage something, then check. */
async function checkCase(files: Record<string, string>, damage?: (dir: string) => Promise<void>) {
  const dir = await temp.make(files);
  await buildPlugin({ entry: dir, output: join(dir, "dist") }).catch(() => undefined);
  await damage?.(dir);
  return checkPlugin({ entry: dir, output: join(dir, "dist") });
}

describe("checkPlugin passes clean plugins", () => {
  it.each([
    ["the seed single tool", seedTool],
    ["the seed tool set", seedToolSet],
  ])("%s", async (_label, source) => {
    const result = await checkCase(base({ "index.ts": source }));
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it.each(["tool", "tool-suite"] as const)("a freshly created %s, with no npm install", async (type) => {
    const parent = await temp.make({});
    const { dir } = await createPlugin({ name: `fresh-${type}`, type, cwd: parent });
    await buildPlugin({ entry: dir, output: join(dir, "dist") });
    const result = await checkPlugin({ entry: dir, output: join(dir, "dist") });
    expect(result.diagnostics).toEqual([]);
    expect(result.manifest?.pluginId).toBe(`fresh-${type}`);
  });

  it("a minified build is not stale", async () => {
    const dir = await temp.make(base({ "index.ts": seedTool }));
    await buildPlugin({ entry: dir, output: join(dir, "dist"), minify: true });
    expect((await checkPlugin({ entry: dir, output: join(dir, "dist") })).diagnostics).toEqual([]);
  });
});

describe("checkPlugin catches each defect", () => {
  const upload = "await ctx.invoke.uploadFile({ fileName: 'a.txt', file: 'x' });";
  it.each<[string, Record<string, string>, ((dir: string) => Promise<void>) | undefined, string[]]>([
    ["no index.ts", base(), undefined, ["error:PLUGIN_ENTRY_FILE_MISSING", "error:PLUGIN_DIST_MISSING"]],
    ["default export is not a definition", base({ "index.ts": "export default { pluginId: 'x' };" }), undefined, ["error:PLUGIN_DEFAULT_EXPORT", "error:PLUGIN_DIST_MISSING"]],
    ["name without zh-CN", base({ "index.ts": toolSource().replace("'zh-CN': '探针'", "") }), undefined, ["error:PLUGIN_MANIFEST_INVALID", "error:PLUGIN_DIST_MISSING"]],
    ["permission outside the enum", base({ "index.ts": toolSource({ manifest: "permission: ['files:write'] as never" }) }), undefined, ["error:PLUGIN_MANIFEST_INVALID", "error:PLUGIN_DIST_MISSING"]],
    ["uploadFile without file-upload:allow", base({ "index.ts": toolSource({ body: upload }) }), undefined, ["error:PLUGIN_PERMISSION_MISSING"]],
    ["a declared permission never used", base({ "index.ts": toolSource({ manifest: "permission: ['dataset:read']" }) }), undefined, ["warning:PLUGIN_PERMISSION_UNUSED"]],
    ["an unknown manifest key", base({ "index.ts": toolSource({ manifest: "permission: [], permisson: ['model:read']" }).replace("defineTool({", "defineTool(<never>{") }), undefined, ["warning:PLUGIN_MANIFEST_UNKNOWN_KEY"]],
    ["an input field the model may or may not fill", base({ "index.ts": toolSource({ input: "q: z.string().meta({ title: 'Q' })" }) }), undefined, ["warning:PLUGIN_TOOL_PARAM_UNSET"]],
    ["an input field without a label", base({ "index.ts": toolSource({ input: "q: z.string().meta({ isToolParam: true })" }) }), undefined, ["warning:PLUGIN_FIELD_UNLABELLED"]],
    ["an input field of any type", base({ "index.ts": toolSource({ input: "q: z.any().meta({ title: 'Q', isToolParam: false })" }) }), undefined, ["warning:PLUGIN_FIELD_UNTYPED"]],
    ["a key literal in another module", base({ "index.ts": toolSource({ imports: "import './lib/conf';" }), "lib/conf.ts": "export const awsId = 'AKIAABCDEFGHIJKLMNOP';\n" }), undefined, ["warning:PLUGIN_SECRET_LITERAL"]],
    ["process.env reads", base({ "index.ts": toolSource({ body: "void process.env.TOKEN;" }) }), undefined, ["warning:PLUGIN_ENV_ACCESS"]],
    ["a secret field without isSecret", base({ "index.ts": seedToolSet.replace("isSecret: true\n} satisfies SecretSchemaMetaType", "} as SecretSchemaMetaType") }), undefined, ["warning:PLUGIN_SECRET_FLAG_UNSET"]],
    ["no README.md", { "logo.svg": LOGO, "index.ts": toolSource() }, undefined, ["warning:PLUGIN_README_MISSING"]],
    ["no main logo", { ...README, "index.ts": toolSource() }, undefined, ["error:PLUGIN_LOGO_MISSING", "error:PLUGIN_DIST_MISSING"]],
    ["a child logo with the wrong id", base({ "index.ts": seedToolSet, "Search.logo.svg": LOGO }), undefined, ["error:PLUGIN_LOGO_UNKNOWN_CHILD", "error:PLUGIN_DIST_MISSING"]],
    ["no build at all", base({ "index.ts": toolSource() }), (dir) => rm(join(dir, "dist"), { recursive: true }), ["error:PLUGIN_DIST_MISSING"]],
    ["dist/index.js missing", base({ "index.ts": toolSource() }), (dir) => rm(join(dir, "dist/index.js")), ["error:PLUGIN_DIST_BUNDLE_MISSING", "error:PLUGIN_DIST_STALE"]],
    ["dist/manifest.json missing", base({ "index.ts": toolSource() }), (dir) => rm(join(dir, "dist/manifest.json")), ["error:PLUGIN_DIST_MANIFEST_MISSING"]],
    ["dist/manifest.json not JSON", base({ "index.ts": toolSource() }), (dir) => writeFile(join(dir, "dist/manifest.json"), "{"), ["error:PLUGIN_DIST_MANIFEST_INVALID", "error:PLUGIN_DIST_STALE"]],
    ["dist/manifest.json without icon", base({ "index.ts": toolSource() }), async (dir) => {
      const manifest = JSON.parse(await readFile(join(dir, "dist/manifest.json"), "utf8")) as Record<string, unknown>;
      delete manifest.icon;
      await writeFile(join(dir, "dist/manifest.json"), JSON.stringify(manifest));
    }, ["error:PLUGIN_DIST_MANIFEST_INVALID", "error:PLUGIN_DIST_STALE"]],
    ["the icon file missing from dist", base({ "index.ts": toolSource() }), (dir) => rm(join(dir, "dist/logo.svg")), ["error:PLUGIN_DIST_ICON_MISSING", "error:PLUGIN_DIST_STALE"]],
    ["sources changed after the build", base({ "index.ts": toolSource() }), (dir) => writeFile(join(dir, "index.ts"), toolSource({ body: "ctx.streamResponse({ type: 'answer', content: 'changed' });" })), ["error:PLUGIN_DIST_STALE"]],
  ])("%s", async (_label, files, damage, expected) => {
    const result = await checkCase(files, damage);
    expect(codesOf(result.diagnostics)).toEqual(expected);
    expect(result.ok).toBe(!expected.some((c) => c.startsWith("error:")));
  });

  it("names the file and permission precisely", async () => {
    const result = await checkCase(base({ "index.ts": toolSource({ body: upload }) }));
    expect(result.diagnostics).toEqual([
      {
        code: "PLUGIN_PERMISSION_MISSING",
        severity: "error",
        message: 'the code calls ctx.invoke.uploadFile but manifest.permission lacks "file-upload:allow"',
        file: "index.ts",
        line: 0,
        column: 0,
      },
    ]);
  });

  it("names the dist manifest field that fails the schema", async () => {
    const result = await checkCase(base({ "index.ts": toolSource() }), async (dir) => {
      const manifest = JSON.parse(await readFile(join(dir, "dist/manifest.json"), "utf8")) as Record<string, unknown>;
      manifest.permission = ["model:read", "model:read"];
      await writeFile(join(dir, "dist/manifest.json"), JSON.stringify(manifest));
    });
    expect(result.diagnostics[0]?.message).toBe('dist/manifest.json permission[1]: duplicate permission "model:read"');
  });

  it("reports stale files by their dist path", async () => {
    const result = await checkCase(base({ "index.ts": toolSource() }), (dir) => writeFile(join(dir, "README.md"), "# changed\n"));
    expect(result.diagnostics.map((d) => d.message)).toEqual(["dist/README.md does not match a fresh build of the sources; run plugin build"]);
  });
});
