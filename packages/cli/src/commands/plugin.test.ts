import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// End to end: the built CLI (npx tsc -b packages/cli), real esbuild, real child processes, temp dirs.
const dist = fileURLToPath(new URL("../../dist/", import.meta.url));
const seeds = fileURLToPath(new URL("../../../plugin/test/", import.meta.url));
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n';

let work: string;
let cli: string;

beforeAll(async () => {
  if (!existsSync(join(dist, "main.js"))) throw new Error("build the CLI first: npx tsc -b packages/cli");
  work = await mkdtemp(join(tmpdir(), "skillport-plugin-cli-"));
  // Runs dist/main.js with the plugin group registered even before commands/index.ts lists it.
  cli = join(work, "skillport.mjs");
  await writeFile(
    cli,
    `import { commands } from ${JSON.stringify(join(dist, "commands/index.js"))};
import { registerPlugin } from ${JSON.stringify(join(dist, "commands/plugin.js"))};
if (!commands.includes(registerPlugin)) commands.push(registerPlugin);
await import(${JSON.stringify(join(dist, "main.js"))});
`,
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function skillport(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function pluginDir(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(dir, file, ".."), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return name;
}

describe("skillport plugin: create -> build -> check -> pack", () => {
  it.each(["tool", "tool-suite"])("the %s template, with no npm install", async (type) => {
    const name = `cli-${type}`;
    const created = skillport("plugin", "create", name, "--type", type, "--cwd", ".");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`created ${type} plugin ${name} in ${name}\n`);

    const built = skillport("plugin", "build", "--entry", name, "--output", `${name}/dist`);
    expect(built.stderr).toBe("");
    expect(built.code).toBe(0);
    expect(built.stdout).toBe(
      type === "tool"
        ? `built ${name}@0.1.0 into ${name}/dist (README.md, index.js, logo.svg, manifest.json)\n`
        : `built ${name}@0.1.0 into ${name}/dist (README.md, index.js, logo.svg, manifest.json, sign.logo.svg)\n`,
    );

    const checked = skillport("plugin", "check", "--entry", name, "--output", `${name}/dist`);
    expect(checked.stdout).toBe("check passed (0 warnings)\n");
    expect(checked.code).toBe(0);

    const packed = skillport("plugin", "pack", "--entry", name, "--dist", `${name}/dist`, "--output", `${name}/out`);
    expect(packed.code, packed.stderr).toBe(0);
    const match = /^packed (\S+) \((\d+) bytes, (\d+) files\)\nsha256 ([0-9a-f]{64})\n$/.exec(packed.stdout);
    expect(match?.[1]).toBe(`${name}/out/${name}-0.1.0.pkg`);
    const bytes = await readFile(join(work, `${name}/out/${name}-0.1.0.pkg`));
    expect(match?.[4]).toBe(createHash("sha256").update(bytes).digest("hex"));

    const again = skillport("plugin", "pack", "--entry", name, "--dist", `${name}/dist`, "--output", `${name}/out`);
    expect(again.stdout).toBe(packed.stdout); // reproducible package

    // The package runs in the host: the build's manifest and bundle are what `plugin run` expects.
    const ran =
      type === "tool"
        ? skillport("plugin", "run", `${name}/out/${name}-0.1.0.pkg`, "--input", '{"text":"hello big world"}')
        : skillport("plugin", "run", `${name}/out/${name}-0.1.0.pkg`, "--tool", "digest", "--input", '{"text":"abc"}', "--secrets", '{"signingKey":"0123456789abcdef"}');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual(
      type === "tool" ? { words: 3, characters: 15, lines: 1 } : { sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    );
  });

  it.each([
    ["seed-tool.ts", "text-normalizer"],
    ["seed-tool-set.ts", "example-search-tools"],
  ])("the seed's %s importing @fastgpt-plugin/sdk-factory, unchanged", async (seed, id) => {
    const source = (await readFile(join(seeds, seed), "utf8")).replace("from '@skillport/plugin'", "from '@fastgpt-plugin/sdk-factory'");
    const name = await pluginDir(`fastgpt-${id}`, { "index.ts": source, "logo.svg": LOGO, "README.md": "# seed\n" });
    const built = skillport("plugin", "build", "--entry", name, "--json");
    expect(built.code, built.stderr).toBe(0);
    expect(JSON.parse(built.stdout)).toEqual({
      ok: true,
      pluginId: id,
      version: "1.0.0",
      output: `${name}/dist`,
      files: ["README.md", "index.js", "logo.svg", "manifest.json"],
      diagnostics: [],
    });
    const checked = skillport("plugin", "check", "--entry", name, "--json");
    expect(JSON.parse(checked.stdout)).toEqual({ ok: true, diagnostics: [] });
    const packed = skillport("plugin", "pack", "--entry", name, "--json");
    expect(packed.code, packed.stderr).toBe(0);
    expect(JSON.parse(packed.stdout)).toMatchObject({ ok: true, file: `${name}/out/${id}-1.0.0.pkg` });
  });
});

describe("skillport plugin: problems and errors", () => {
  const uploader = `import { createToolHandler, defineTool } from '@skillport/plugin';
import z from 'zod';
export default defineTool({
  manifest: { pluginId: 'uploader', version: '1.0.0', name: { en: 'Up', 'zh-CN': '上传' }, description: { en: 'Up', 'zh-CN': '上传' }, permission: [] },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string().meta({ title: 'Text', isToolParam: true }) }),
    outputSchema: z.object({ url: z.string().meta({ title: 'URL' }) }),
    handler: async (input, ctx) => {
      const [file, err] = await ctx.invoke.uploadFile({ fileName: 'a.txt', file: input.text });
      if (err) throw new Error(err.reason.en);
      return { url: file.accessURL };
    }
  })
});
`;

  it("check flags uploadFile without file-upload:allow and exits 1; pack refuses", async () => {
    const name = await pluginDir("uploader", { "index.ts": uploader, "logo.svg": LOGO, "README.md": "# up\n" });
    const built = skillport("plugin", "build", "--entry", name);
    expect(built.code, built.stderr).toBe(0);
    const checked = skillport("plugin", "check", "--entry", name);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toBe(
      'error   PLUGIN_PERMISSION_MISSING index.ts the code calls ctx.invoke.uploadFile but manifest.permission lacks "file-upload:allow"\n' +
        "check failed: 1 error, 0 warnings\n",
    );
    const json = JSON.parse(skillport("plugin", "check", "--entry", name, "--json").stdout) as { ok: boolean; diagnostics: { code: string }[] };
    expect(json.ok).toBe(false);
    expect(json.diagnostics.map((d) => d.code)).toEqual(["PLUGIN_PERMISSION_MISSING"]);
    const packed = skillport("plugin", "pack", "--entry", name);
    expect(packed.code).toBe(1);
    expect(packed.stderr).toContain("skillport: check failed with 1 error; nothing was packed\n");
    expect(existsSync(join(work, name, "out"))).toBe(false);
  });

  it("a failing build prints diagnostics and exits 1, without a stack trace", async () => {
    const name = await pluginDir("nologo", { "index.ts": uploader.replace("permission: []", "permission: ['file-upload:allow']") });
    const built = skillport("plugin", "build", "--entry", name);
    expect(built.code).toBe(1);
    expect(built.stderr).toBe(
      "error   PLUGIN_LOGO_MISSING no main logo: put logo.<ext> (svg, png, jpg, jpeg, webp, gif) in the plugin root\n" +
        "skillport: build failed with 1 error\n",
    );
    expect(built.stderr).not.toContain(work);
  });

  it.each([
    [["plugin", "create", "uploader", "--type", "tool"], "skillport: uploader already exists; refusing to overwrite it\n"],
    [["plugin", "create", "Bad Name"], 'skillport: invalid plugin name "Bad Name": use lowercase letters, digits, \'-\' and \'_\' (it becomes the pluginId)\n'],
  ])("usage errors exit 2 with one line: %j", async (args, message) => {
    await pluginDir("uploader", { "index.ts": uploader });
    const result = skillport(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(message);
  });

  it("an unknown template type is a usage error", () => {
    const result = skillport("plugin", "create", "x", "--type", "agent");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are tool, tool-suite");
  });
});
