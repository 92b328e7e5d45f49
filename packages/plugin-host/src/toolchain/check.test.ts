import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildPlugin } from "./build.js";
import { checkPlugin } from "./check.js";
import { createPlugin } from "./create.js";
import { LOGO, seedTool, seedToolSet, tempPlugins, toolSetSource, toolSource } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

// One clean, built plugin shared by every "damage the build" case: each case checks its own copy, so the
// assertions are unchanged while the plugin is built once instead of once per case.
const shared = tempPlugins();
let clean: string;
beforeAll(async () => {
  clean = await shared.make({ "logo.svg": LOGO, "README.md": "# Probe\n", "index.ts": toolSource() });
  await buildPlugin({ entry: clean, output: join(clean, "dist") });
});
afterAll(() => shared.cleanup());

const README = { "README.md": "# Probe\n" };
const base = (files: Record<string, string> = {}) => ({ "logo.svg": LOGO, ...README, ...files });
const codesOf = (diagnostics: { code: string; severity: string }[]) =>
  diagnostics.map((d) => `${d.severity}:${d.code}`);

type Damage = (dir: string) => Promise<void>;

/** Build (when the sources build), then check. */
async function checkCase(files: Record<string, string>) {
  const dir = await temp.make(files);
  await buildPlugin({ entry: dir, output: join(dir, "dist") }).catch(() => undefined);
  return checkPlugin({ entry: dir, output: join(dir, "dist") });
}

/** A copy of the shared clean build, damaged, then checked. */
async function checkDamaged(damage: Damage) {
  const dir = await temp.make({});
  await cp(clean, dir, { recursive: true });
  await damage(dir);
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
  const everyCall = [
    "await ctx.invoke.userInfo();",
    "await ctx.invoke.teamInfo();",
    "await ctx.invoke.model({ messages: [] });",
    "await ctx.invoke.dataset({ datasetIds: [], query: 'q' });",
    upload,
    "await ctx.invoke.getWecomCorpToken();",
  ].join("\n");
  const ownSecrets = `createToolHandler({
      inputSchema: z.object({ q: z.string().meta({ title: 'Q', isToolParam: true }) }),
      outputSchema: z.object({ ok: z.boolean().meta({ title: 'OK' }) }),
      secretSchema: z.object({ other: z.string().meta({ title: 'Other', isSecret: true }) }),
      handler: async () => ({ ok: true })
    })`;
  const sharedSecretRepeated = ownSecrets.replace(
    "other: z.string().meta({ title: 'Other', isSecret: true })",
    "key: z.string().meta({ title: 'Key', isSecret: true })",
  );
  it.each<[string, Record<string, string>, string[]]>([
    ["no index.ts", base(), ["error:PLUGIN_ENTRY_FILE_MISSING", "error:PLUGIN_DIST_MISSING"]],
    [
      "a syntax error",
      base({ "index.ts": "const x = ;\n" }),
      ["error:PLUGIN_BUNDLE_FAILED", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "top-level code that throws",
      base({ "index.ts": "throw new Error('no');\n" }),
      ["error:PLUGIN_LOAD_FAILED", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "default export is not a definition",
      base({ "index.ts": "export default { pluginId: 'x' };" }),
      ["error:PLUGIN_DEFAULT_EXPORT", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "name without zh-CN",
      base({ "index.ts": toolSource().replace("'zh-CN': '探针'", "") }),
      ["error:PLUGIN_MANIFEST_INVALID", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "permission outside the enum",
      base({ "index.ts": toolSource({ manifest: "permission: ['files:write'] as never" }) }),
      ["error:PLUGIN_MANIFEST_INVALID", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "an input schema that is not z.object",
      base({
        "index.ts": toolSource().replace(/inputSchema: z\.object\(\{.*\}\),/, "inputSchema: z.string() as never,"),
      }),
      ["error:PLUGIN_SCHEMA_INVALID", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "two children with one id",
      base({ "index.ts": toolSetSource([{ id: "a" }, { id: "a" }]) }),
      ["error:PLUGIN_CHILD_INVALID", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "uploadFile without file-upload:allow",
      base({ "index.ts": toolSource({ body: upload }) }),
      ["error:PLUGIN_PERMISSION_MISSING"],
    ],
    [
      "every ctx.invoke call without its permission",
      base({ "index.ts": toolSource({ body: everyCall }) }),
      Array(6).fill("error:PLUGIN_PERMISSION_MISSING"),
    ],
    [
      "getWecomCorpToken with teamInfo:read (no unused warning)",
      base({
        "index.ts": toolSource({
          manifest: "permission: ['teamInfo:read']",
          body: "await ctx.invoke.getWecomCorpToken();",
        }),
      }),
      [],
    ],
    [
      "a FastGPT camelCase pluginId",
      base({ "index.ts": toolSource().replace("pluginId: 'probe'", "pluginId: 'getTime'") }),
      [],
    ],
    [
      "a version that is not SemVer",
      base({ "index.ts": toolSource().replace("version: '1.0.0'", "version: '1.0'") }),
      ["warning:PLUGIN_VERSION_NOT_SEMVER"],
    ],
    [
      "a declared permission never used",
      base({ "index.ts": toolSource({ manifest: "permission: ['dataset:read']" }) }),
      ["warning:PLUGIN_PERMISSION_UNUSED"],
    ],
    [
      "an unknown manifest key",
      base({
        "index.ts": toolSource({ manifest: "permission: [], permisson: ['model:read']" }).replace(
          "defineTool({",
          "defineTool(<never>{",
        ),
      }),
      ["warning:PLUGIN_MANIFEST_UNKNOWN_KEY"],
    ],
    // FastGPT infers isToolParam from toolDescription: leaving it out is not a mistake (no warning).
    [
      "an input field without isToolParam",
      base({ "index.ts": toolSource({ input: "q: z.string().meta({ title: 'Q' })" }) }),
      [],
    ],
    [
      "an input field with a non-boolean isToolParam",
      base({ "index.ts": toolSource({ input: "q: z.string().meta({ title: 'Q', isToolParam: 'yes' as never })" }) }),
      ["warning:PLUGIN_TOOL_PARAM_INVALID"],
    ],
    [
      "an input field without a label",
      base({ "index.ts": toolSource({ input: "q: z.string().meta({ isToolParam: true })" }) }),
      ["warning:PLUGIN_FIELD_UNLABELLED"],
    ],
    [
      "an input field of any type",
      base({ "index.ts": toolSource({ input: "q: z.any().meta({ title: 'Q', isToolParam: false })" }) }),
      ["warning:PLUGIN_FIELD_UNTYPED"],
    ],
    [
      "a key literal in another module",
      base({
        "index.ts": toolSource({ imports: "import './lib/conf';" }),
        "lib/conf.ts": "export const awsId = 'AKIAABCDEFGHIJKLMNOP';\n",
      }),
      ["warning:PLUGIN_SECRET_LITERAL"],
    ],
    [
      "process.env reads",
      base({ "index.ts": toolSource({ body: "void process.env.TOKEN;" }) }),
      ["warning:PLUGIN_ENV_ACCESS"],
    ],
    [
      "a secret field without isSecret",
      base({
        "index.ts": seedToolSet.replace(
          "isSecret: true\n} satisfies SecretSchemaMetaType",
          "} as SecretSchemaMetaType",
        ),
      }),
      [],
    ],
    [
      "a tool-set child with its own secret schema",
      base({ "index.ts": toolSetSource([{ id: "a" }, { id: "b", handler: ownSecrets }]) }),
      ["warning:PLUGIN_CHILD_SECRET_IGNORED"],
    ],
    [
      "a tool-set child repeating the shared secret schema (nothing lost)",
      base({ "index.ts": toolSetSource([{ id: "a" }, { id: "b", handler: sharedSecretRepeated }]) }),
      [],
    ],
    ["no README.md", { "logo.svg": LOGO, "index.ts": toolSource() }, ["warning:PLUGIN_README_MISSING"]],
    [
      "no main logo",
      { ...README, "index.ts": toolSource() },
      ["error:PLUGIN_LOGO_MISSING", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "two main logos",
      base({ "index.ts": toolSource(), "logo.png": LOGO }),
      ["error:PLUGIN_LOGO_AMBIGUOUS", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "a logo with an unsupported extension",
      { ...README, "index.ts": toolSource(), "logo.bmp": LOGO },
      ["error:PLUGIN_LOGO_EXTENSION", "error:PLUGIN_LOGO_MISSING", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "a logo name with a space",
      base({ "index.ts": toolSetSource([{ id: "a" }]), "my a.logo.svg": LOGO }),
      ["error:PLUGIN_LOGO_NAME", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "a logo under assets/",
      base({ "index.ts": toolSource(), "assets/logo.png": LOGO }),
      ["error:PLUGIN_LOGO_IN_ASSETS", "error:PLUGIN_DIST_MISSING"],
    ],
    [
      "a child logo with the wrong id",
      base({ "index.ts": seedToolSet, "Search.logo.svg": LOGO }),
      ["error:PLUGIN_LOGO_UNKNOWN_CHILD", "error:PLUGIN_DIST_MISSING"],
    ],
  ])("%s", async (_label, files, expected) => {
    const result = await checkCase(files);
    expect(codesOf(result.diagnostics)).toEqual(expected);
    expect(result.ok).toBe(!expected.some((c) => c.startsWith("error:")));
  });

  it.each<[string, Damage, string[]]>([
    ["no build at all", (dir) => rm(join(dir, "dist"), { recursive: true }), ["error:PLUGIN_DIST_MISSING"]],
    [
      "dist/index.js missing",
      (dir) => rm(join(dir, "dist/index.js")),
      ["error:PLUGIN_DIST_BUNDLE_MISSING", "error:PLUGIN_DIST_STALE"],
    ],
    [
      "dist/manifest.json missing",
      (dir) => rm(join(dir, "dist/manifest.json")),
      ["error:PLUGIN_DIST_MANIFEST_MISSING"],
    ],
    [
      "dist/manifest.json not JSON",
      (dir) => writeFile(join(dir, "dist/manifest.json"), "{"),
      ["error:PLUGIN_DIST_MANIFEST_INVALID", "error:PLUGIN_DIST_STALE"],
    ],
    [
      "dist/manifest.json without icon",
      async (dir) => {
        const manifest = JSON.parse(await readFile(join(dir, "dist/manifest.json"), "utf8")) as Record<string, unknown>;
        delete manifest.icon;
        await writeFile(join(dir, "dist/manifest.json"), JSON.stringify(manifest));
      },
      ["error:PLUGIN_DIST_MANIFEST_INVALID", "error:PLUGIN_DIST_STALE"],
    ],
    [
      "the icon file missing from dist",
      (dir) => rm(join(dir, "dist/logo.svg")),
      ["error:PLUGIN_DIST_ICON_MISSING", "error:PLUGIN_DIST_STALE"],
    ],
    [
      "sources changed after the build",
      (dir) =>
        writeFile(
          join(dir, "index.ts"),
          toolSource({ body: "ctx.streamResponse({ type: 'answer', content: 'changed' });" }),
        ),
      ["error:PLUGIN_DIST_STALE"],
    ],
  ])("%s", async (_label, damage, expected) => {
    const result = await checkDamaged(damage);
    expect(codesOf(result.diagnostics)).toEqual(expected);
    expect(result.ok).toBe(false);
  });

  it("a missing plugin directory", async () => {
    const result = await checkPlugin({ entry: join(clean, "nowhere"), output: join(clean, "nowhere/dist") });
    expect(result).toEqual({
      ok: false,
      diagnostics: [
        {
          code: "PLUGIN_ENTRY_MISSING",
          severity: "error",
          message: "the entry directory does not exist",
          line: 0,
          column: 0,
        },
      ],
    });
  });

  it("assets beyond the limits", async () => {
    const dir = await temp.make(base({ "index.ts": toolSource(), "assets/a.txt": "a", "assets/b.txt": "b" }));
    await buildPlugin({ entry: dir, output: join(dir, "dist") });
    const result = await checkPlugin({ entry: dir, output: join(dir, "dist"), maxAssetFiles: 1 });
    expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["PLUGIN_ASSET_LIMIT", "assets/ holds more than 1 files"],
    ]);
    expect(result.ok).toBe(false);
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
    const result = await checkDamaged(async (dir) => {
      const manifest = JSON.parse(await readFile(join(dir, "dist/manifest.json"), "utf8")) as Record<string, unknown>;
      manifest.permission = ["model:read", "model:read"];
      await writeFile(join(dir, "dist/manifest.json"), JSON.stringify(manifest));
    });
    expect(result.diagnostics[0]?.message).toBe('dist/manifest.json permission[1]: duplicate permission "model:read"');
  });

  it("reports stale files by their dist path", async () => {
    const result = await checkDamaged((dir) => writeFile(join(dir, "README.md"), "# changed\n"));
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      "dist/README.md does not match a fresh build of the sources; run plugin build",
    ]);
  });
});
