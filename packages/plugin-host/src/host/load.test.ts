import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import yazl from "yazl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PluginHost } from "./host.js";
import { contentHash, stagePlugin } from "./load.js";
import { DEFAULT_PACKAGE_LIMITS } from "./package-files.js";
import { UPLOADER_SOURCE, writePluginFixture } from "./__fixtures__/plugins.js";

let root: string;
let dist: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skillport-load-test-"));
  dist = await writePluginFixture(join(root, "uploader"), { pluginId: "uploader", source: UPLOADER_SOURCE });
});
afterAll(() => rm(root, { recursive: true, force: true }));

let stageCount = 0;
const stage = (source: string) => stagePlugin(source, join(root, `stage-${stageCount++}`), DEFAULT_PACKAGE_LIMITS);

async function zipOf(
  entries: { name: string; data: string; mode?: number }[],
  rename?: [string, string],
): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const entry of entries)
    zip.addBuffer(Buffer.from(entry.data), entry.name, { mode: entry.mode ?? 0o100644, mtime: new Date(0) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  let bytes = Buffer.concat(chunks);
  // yazl refuses unsafe names, so plant them by rewriting same-length names in the finished archive.
  if (rename) bytes = Buffer.from(bytes.toString("latin1").split(rename[0]).join(rename[1]), "latin1");
  const file = join(root, `p${stageCount++}.pkg`);
  await writeFile(file, bytes);
  return file;
}

async function distEntries(): Promise<{ name: string; data: string }[]> {
  return Promise.all(
    ["index.js", "logo.svg", "manifest.json"].map(async (name) => ({
      name,
      data: await readFile(join(dist, name), "utf8"),
    })),
  );
}

describe("stagePlugin", () => {
  it("accepts a dist/ dir or the plugin folder holding it, with the same identity", async () => {
    const fromDist = await stage(dist);
    const fromFolder = await stage(join(root, "uploader"));
    expect(fromDist.identity).toEqual({
      pluginId: "uploader",
      version: "1.0.0",
      hash: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(fromFolder.identity).toEqual(fromDist.identity);
    expect(fromDist.tools.map((tool) => tool.id)).toEqual(["tool"]);
  });

  it("gives a .pkg of the same files the same identity", async () => {
    const pkg = await zipOf(await distEntries());
    expect((await stage(pkg)).identity).toEqual((await stage(dist)).identity);
  });

  it("changes the hash when any byte changes", () => {
    const a = contentHash([{ path: "index.js", bytes: Buffer.from("a") }]);
    expect(contentHash([{ path: "index.js", bytes: Buffer.from("b") }])).not.toBe(a);
    expect(contentHash([{ path: "index2.js", bytes: Buffer.from("a") }])).not.toBe(a);
    expect(contentHash([{ path: "index.js", bytes: Buffer.from("a") }])).toBe(a);
  });

  it("runs a tool from a .pkg", async () => {
    const host = await PluginHost.load(await zipOf(await distEntries()));
    try {
      const { output } = await host.invoke("tool", { text: "hi" });
      // No services configured: the reverse call fails cleanly instead of throwing.
      expect(JSON.parse((output as { text: string }).text)).toMatchObject({ error: "PermissionDenied" });
    } finally {
      await host.close();
    }
  });

  it.each([
    [
      "a parent-directory entry",
      () => distEntries().then((e) => zipOf([...e, { name: "xx/evil.js", data: "x" }], ["xx/evil.js", "../evil.js"])),
      /^p\d+\.pkg: invalid path "\.\.\/evil\.js": segment "\.\." is not allowed$/,
    ],
    [
      "a symlink entry",
      () => distEntries().then((e) => zipOf([...e, { name: "link", data: "/etc/passwd", mode: 0o120777 }])),
      /^p\d+\.pkg: archive entry link is a symbolic link; links are not allowed in packages$/,
    ],
    [
      "something that is not a zip",
      async () => {
        const f = join(root, "junk.pkg");
        await writeFile(f, "not a zip");
        return f;
      },
      /^junk\.pkg: not a zip, tar or tar\.gz archive/,
    ],
  ])("refuses a .pkg with %s before writing anything", async (_name, make, message) => {
    const pkg = await make();
    const target = join(root, `refused-${stageCount++}`);
    const error = await stagePlugin(pkg, target, DEFAULT_PACKAGE_LIMITS).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "PLUGIN_INVALID", message });
    await expect(readFile(join(target, "plugin", "index.js"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses a symlink inside dist/", async () => {
    const dir = await writePluginFixture(join(root, "linked"), { source: UPLOADER_SOURCE });
    await symlink("/etc/passwd", join(dir, "passwd"));
    await expect(stage(dir)).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message: expect.stringMatching(
        /^dist: invalid path "passwd": .*symbolic link.*\(symlinks, special files and unsafe names are not allowed in a plugin\)$/,
      ),
    });
  });

  it("reports every manifest problem with its field path", async () => {
    const dir = await writePluginFixture(join(root, "badmanifest"), { source: UPLOADER_SOURCE });
    const manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
    await writeFile(join(dir, "manifest.json"), JSON.stringify({ ...manifest, name: { en: "x" }, version: "1/0" }));
    await expect(stage(dir)).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
      message:
        "dist: manifest.json is invalid: version: must use letters, digits, '.', '+', '-' and '_'; name.zh-CN: is required",
    });
  });

  it("requires index.js and a manifest", async () => {
    const noBundle = join(root, "nobundle", "dist");
    await mkdir(noBundle, { recursive: true });
    await writeFile(join(noBundle, "manifest.json"), await readFile(join(dist, "manifest.json")));
    await expect(stage(noBundle)).rejects.toMatchObject({ message: "dist: index.js is missing" });
    await expect(stage(join(root, "nowhere"))).rejects.toMatchObject({ message: "nowhere: no such file or directory" });
    await expect(stage(root)).rejects.toMatchObject({
      message: expect.stringContaining("no manifest.json here or in dist/"),
    });
  });

  it("refuses to start a plugin whose module lacks a tool the manifest lists", async () => {
    const dir = await writePluginFixture(join(root, "mismatch"), {
      pluginId: "uploader",
      children: ["a"],
      source: UPLOADER_SOURCE,
    });
    const host = await PluginHost.load(dir);
    try {
      await expect(host.invoke("a", { text: "x" })).rejects.toMatchObject({
        code: "PLUGIN_WORKER_START_FAILED",
        message:
          'tool "a" of plugin "uploader": worker failed to start: could not load index.js: manifest.json lists tool "a" but index.js does not define it',
      });
    } finally {
      await host.close();
    }
  });
});
