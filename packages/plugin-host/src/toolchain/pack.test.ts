import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import yauzl from "yauzl";
import { packPlugin } from "./pack.js";
import { PluginBuildError } from "./diagnostics.js";
import { LOGO, seedToolSet, tempPlugins, toolSource } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

interface Entry {
  name: string;
  mode: number;
  dosTime: number;
  dosDate: number;
  extraFields: number;
}

function zipEntries(file: string): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries: Entry[] = [];
      zip.on("entry", (entry: yauzl.Entry) => {
        entries.push({
          name: entry.fileName,
          mode: (entry.externalFileAttributes >>> 16) & 0o777777,
          dosTime: entry.lastModFileTime,
          dosDate: entry.lastModFileDate,
          extraFields: entry.extraFields.length,
        });
        zip.readEntry();
      });
      zip.on("end", () => resolve(entries));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

const files = {
  "index.ts": seedToolSet,
  "logo.svg": LOGO,
  "search.logo.svg": LOGO,
  "README.md": "# r\n",
  "assets/data/x.json": "{}",
};

describe("packPlugin", () => {
  it("writes <pluginId>-<version>.pkg: a flat, sorted ZIP of dist/ with fixed times and modes", async () => {
    const dir = await temp.make(files);
    const result = await packPlugin({ entry: dir, dist: join(dir, "dist"), output: join(dir, "out") });
    expect(result.fileName).toBe("example-search-tools-1.0.0.pkg");
    expect(await readdir(join(dir, "out"))).toEqual(["example-search-tools-1.0.0.pkg"]);
    const bytes = await readFile(result.file);
    expect(result.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(result.size).toBe(bytes.byteLength);
    const entries = await zipEntries(result.file);
    expect(entries.map((e) => e.name)).toEqual([
      "README.md",
      "assets/data/x.json",
      "index.js",
      "logo.svg",
      "manifest.json",
      "search.logo.svg",
    ]);
    expect(result.entries).toEqual(entries.map((e) => e.name));
    for (const entry of entries) {
      expect(entry.mode).toBe(0o100644);
      expect(entry.dosDate).toBe((0 << 9) | (1 << 5) | 1); // 1980-01-01
      expect(entry.dosTime).toBe(0);
      expect(entry.extraFields).toBe(0);
    }
  });

  it("packing twice, or from another directory, gives the same bytes and hash", async () => {
    const one = await temp.make(files);
    const two = await temp.make(files);
    const a = await packPlugin({ entry: one, dist: join(one, "dist"), output: join(one, "out") });
    const b = await packPlugin({ entry: one, dist: join(one, "dist"), output: join(one, "out") });
    const c = await packPlugin({ entry: two, dist: join(two, "dist"), output: join(two, "out") });
    expect(b.sha256).toBe(a.sha256);
    expect(c.sha256).toBe(a.sha256);
    expect((await readFile(c.file)).equals(await readFile(a.file))).toBe(true);
  });

  it("refuses to pack when check finds errors, and writes nothing", async () => {
    const dir = await temp.make({
      "index.ts": toolSource({ body: "await ctx.invoke.uploadFile({ file: 'x' });" }),
      "logo.svg": LOGO,
    });
    const error = await packPlugin({ entry: dir, dist: join(dir, "dist"), output: join(dir, "out") }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PluginBuildError);
    expect((error as PluginBuildError).code).toBe("PLUGIN_CHECK_FAILED");
    expect((error as PluginBuildError).diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toEqual([
      "PLUGIN_PERMISSION_MISSING",
    ]);
    await expect(readdir(join(dir, "out"))).rejects.toThrow();
  });
});
