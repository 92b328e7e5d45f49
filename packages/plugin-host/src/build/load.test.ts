import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { bundlePlugin } from "./bundle.js";
import { loadPluginDescription, permissionFlag } from "./load.js";
import { seedToolSet, tempPlugins, writeFiles } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

async function bundled(source: string): Promise<string> {
  const dir = await temp.make({ "index.ts": source });
  const result = await bundlePlugin({ entryDir: dir, entryFile: "index.ts" });
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  await writeFiles(dir, { "index.js": result.code });
  return join(dir, "index.js");
}

describe("loadPluginDescription", () => {
  it("describes a tool set; whatever the plugin prints does not corrupt the answer", async () => {
    const bundle = await bundled(`console.log("{not json"); process.stdout.write("noise");\n${seedToolSet}`);
    const loaded = await loadPluginDescription(bundle);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.description.kind).toBe("toolSet");
    expect(loaded.description.children.map((c) => c.id)).toEqual(["search"]);
    expect(loaded.description.problems).toEqual([]);
  });

  it("gives the plugin an empty environment", async () => {
    const bundle = await bundled(`if (Object.keys(process.env).length > 0) throw new Error("env leaked: " + Object.keys(process.env).join(","));\n${seedToolSet}`);
    expect((await loadPluginDescription(bundle)).ok).toBe(true);
  });

  it("replaces host paths in messages", async () => {
    const bundle = await bundled(`throw new Error("at " + import.meta.url);`);
    const loaded = await loadPluginDescription(bundle, { redact: [[bundle, "index.js"]] });
    expect(loaded).toEqual({ ok: false, code: "PLUGIN_LOAD_FAILED", message: "loading the bundle failed: at index.js" });
  });
});

describe("permissionFlag", () => {
  it.each([
    ["20.19.0", "--experimental-permission"],
    ["22.12.0", "--experimental-permission"],
    ["22.13.0", "--permission"],
    ["24.1.0", "--permission"],
  ])("node %s uses %s", (version, flag) => {
    expect(permissionFlag(version)).toBe(flag);
  });
});
