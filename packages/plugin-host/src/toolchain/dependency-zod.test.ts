import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PluginHost } from "../host/index.js";
import { buildPlugin } from "./build.js";
import { LOGO, tempPlugins } from "./__fixtures__/plugins.js";
import { hostZodMajor, zodMajorAt } from "./dependency-zod.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

/** A stand-in zod of the given version (only its package.json and a marker matter here). */
const fakeZod = (version: string) => ({
  "package.json": JSON.stringify({ name: "zod", version, type: "module", main: "index.js" }),
  "index.js": `export const z = { marker: "zod-${version}" };\n`,
});

/** A dependency that imports zod, with its own nested copy of the given version (or none: the hoisted one). */
function dependency(name: string, nestedZod?: string): Record<string, string> {
  const files: Record<string, string> = {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: "1.0.0", type: "module", main: "index.js" }),
    [`node_modules/${name}/index.js`]: `import { z } from "zod";\nexport const which = () => (z.marker ?? "host zod");\n`,
  };
  if (nestedZod !== undefined) {
    for (const [file, text] of Object.entries(fakeZod(nestedZod)))
      files[`node_modules/${name}/node_modules/zod/${file}`] = text;
  }
  return files;
}

describe("zod for dependencies (issue 10 gap 10)", () => {
  it("reads zod majors", () => {
    expect(hostZodMajor()).toBe(4);
  });

  it("bundles a dependency's own zod when its major differs, and keeps the host's zod for the rest", async () => {
    const dir = await temp.make({
      "logo.svg": LOGO,
      "README.md": "# p\n",
      "index.ts": `import { createToolHandler, defineTool } from '@skillport/plugin';
import z from 'zod';
import { which as old } from 'needs-v3';
import { which as same } from 'uses-v4';
export default defineTool({
  manifest: { pluginId: 'zodDeps', version: '1.0.0', name: { en: 'Z', 'zh-CN': 'Z' }, description: { en: 'Z', 'zh-CN': 'Z' } },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string().meta({ title: 'Text' }) }),
    outputSchema: z.object({ text: z.string().meta({ title: 'Text' }) }),
    handler: async () => ({ text: old() + ' / ' + same() }),
  }),
});
`,
      ...dependency("needs-v3", "3.23.8"),
      ...dependency("uses-v4", "4.1.0"),
    });
    await buildPlugin({ entry: dir, output: join(dir, "dist") });
    const bundle = await readFile(join(dir, "dist", "index.js"), "utf8");
    expect(bundle).toContain("zod-3.23.8");
    expect(bundle).not.toContain("zod-4.1.0");
    expect(zodMajorAt(join(dir, "node_modules/needs-v3/node_modules/zod/index.js"))).toBe(3);
    const host = await PluginHost.load(dir, { maxHeapMb: 64 });
    try {
      const { output } = await host.invoke("tool", { text: "x" });
      expect(output).toEqual({ text: "zod-3.23.8 / host zod" });
    } finally {
      await host.close();
    }
  }, 120_000);
});
