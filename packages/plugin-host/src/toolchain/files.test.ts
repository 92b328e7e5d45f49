import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdir, readdir, rename, symlink, writeFile } from "node:fs/promises";
import { join, normalize, resolve } from "node:path";
import { isInside } from "@skillport/fs";
import { copyInto, listRegularFiles } from "./files.js";
import { tempPlugins } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

describe("listRegularFiles", () => {
  it("lists regular files sorted, and refuses links and special files", async () => {
    const root = await temp.make({ "assets/b.txt": "b", "assets/a/z.txt": "z", "outside.txt": "o" });
    await symlink(join(root, "outside.txt"), join(root, "assets/link.txt"));
    const listed = await listRegularFiles(root, join(root, "assets"));
    expect(listed.files).toEqual(["assets/a/z.txt", "assets/b.txt"]);
    expect(listed.diagnostics.map((d) => [d.code, d.file])).toEqual([["PLUGIN_ASSET_NOT_FILE", "assets/link.txt"]]);
  });

  it("refuses an assets/ directory whose real path is outside the plugin", async () => {
    const root = await temp.make({});
    const elsewhere = await temp.make({ "secret.txt": "s" });
    await symlink(elsewhere, join(root, "assets"), "dir");
    const listed = await listRegularFiles(root, join(root, "assets"));
    expect(listed).toEqual({
      files: [],
      diagnostics: [
        {
          code: "PLUGIN_ASSET_OUTSIDE",
          severity: "error",
          message: "assets/ resolves outside the plugin directory",
          file: "assets",
          line: 0,
          column: 0,
        },
      ],
    });
  });

  it.each([
    [{ maxAssetFiles: 2 }, "assets/ holds more than 2 files"],
    [{ maxAssetBytes: 5 }, "assets/ holds more than 5 bytes"],
  ])("stops at the limit %j", async (limits, message) => {
    const root = await temp.make({});
    await mkdir(join(root, "assets"));
    for (const name of ["a", "b", "c"]) await writeFile(join(root, "assets", name), "xyz");
    const listed = await listRegularFiles(root, join(root, "assets"), limits);
    expect(listed.diagnostics.map((d) => [d.code, d.message])).toEqual([["PLUGIN_ASSET_LIMIT", message]]);
  });
});

describe("copyInto", () => {
  // The attack: the listing saw regular files; before the copy, the plugin (whose top-level code ran during the build)
  // swaps a listed file, or the folder holding it, for a link to a host file. The copy must refuse, not copy the host file.
  it.each([
    ["the listed file", "assets/icons/a.txt"],
    ["the folder holding it", "assets/icons"],
  ])("refuses %s swapped for a link leading out of the plugin after the listing", async (_what, swapped) => {
    const root = await temp.make({ "assets/icons/a.txt": "asset" });
    const host = await temp.make({ "a.txt": "HOST SECRET", "icons/a.txt": "HOST SECRET" });
    const out = await temp.make({});
    const listed = await listRegularFiles(root, join(root, "assets"));
    expect(listed.files).toEqual(["assets/icons/a.txt"]);
    await rename(join(root, swapped), join(root, `${swapped}.moved`));
    await symlink(swapped.endsWith(".txt") ? join(host, "a.txt") : join(host, "icons"), join(root, swapped));
    await expect(copyInto(root, out, "assets/icons/a.txt")).rejects.toThrow(/outside the plugin|link/);
    expect(await readdir(join(out, "assets/icons"))).toEqual([]);
  });

  it("copies a listed regular file", async () => {
    const root = await temp.make({ "assets/icons/a.txt": "asset" });
    const out = await temp.make({});
    await copyInto(root, out, "assets/icons/a.txt");
    expect(await readdir(join(out, "assets/icons"))).toEqual(["a.txt"]);
  });
});

describe("isInside", () => {
  it.each([
    ["/p", "/p", true],
    ["/p", "/p/dist", true],
    ["/p", "/p/..dist", true],
    ["/p", "/p/../q", false],
    ["/p", "/", false],
    ["/p/dist", "/p", false],
    ["/p", "/pq", false],
  ])("isInside(%s, %s) = %s", (parent, child, expected) => {
    expect(isInside(parent, resolve(child))).toBe(expected);
  });

  it("agrees with a segment-wise prefix test for any relative path", () => {
    const segment = fc.constantFrom("a", "b", "..", ".", "..a", "a..");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const parent = "/root/plugin";
        const child = resolve(join(parent, ...segments));
        const expected = child === parent || child.startsWith(`${parent}/`);
        expect(isInside(parent, normalize(child))).toBe(expected);
      }),
    );
  });
});
