import { afterEach, describe, expect, it } from "vitest";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MAX_REMOVE_DEPTH, openPinnedDir, removePinnedTree } from "./dir-fd.js";
import { makeTempDir, removeDir } from "@skillport/testing";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await removeDir(dir);
});
const tmp = async (): Promise<string> => {
  const dir = await makeTempDir();
  made.push(dir);
  return dir;
};

describe("openPinnedDir", () => {
  // What sits at a/b before the call → what each mode does. `outside` must stay empty in every case.
  const cases: Array<[string, (root: string, outside: string) => void, "refused" | "opened"]> = [
    ["nothing (create)", () => undefined, "opened"],
    ["a folder", (root) => mkdirSync(path.join(root, "a/b"), { recursive: true }), "opened"],
    [
      "a link to a folder outside",
      (root, outside) => {
        mkdirSync(path.join(root, "a"));
        symlinkSync(outside, path.join(root, "a/b"));
      },
      "refused",
    ],
    ["a link on the way (a -> outside)", (root, outside) => symlinkSync(outside, path.join(root, "a")), "refused"],
    [
      "a dangling link to a path outside",
      (root, outside) => {
        mkdirSync(path.join(root, "a"));
        symlinkSync(path.join(outside, "x/y"), path.join(root, "a/b"));
      },
      "refused",
    ],
    [
      "a file",
      (root) => {
        mkdirSync(path.join(root, "a"));
        writeFileSync(path.join(root, "a/b"), "x");
      },
      "refused",
    ],
  ];

  it.each(cases)(
    "with %s at a/b: create refuses or opens; repair always ends with a real folder",
    async (_name, plant, plain) => {
      for (const repair of [false, true]) {
        const root = await tmp();
        const outside = await tmp();
        plant(root, outside);
        const open = () => openPinnedDir(root, "a/b", { create: true, repair });
        if (plain === "refused" && !repair) {
          expect(open).toThrow(/is a symbolic link or not a folder; refusing to write through it/);
        } else {
          const dir = open();
          const fd = dir.createFile("made.txt");
          writeFileSync(fd, "ok");
          dir.close();
          expect(lstatSync(path.join(root, "a/b")).isDirectory()).toBe(true);
          expect(readFileSync(path.join(root, "a/b/made.txt"), "utf8")).toBe("ok");
        }
        expect(readdirSync(outside)).toEqual([]);
      }
    },
  );

  it("writes land in the pinned folder even after its path was swapped for a link", async () => {
    const root = await tmp();
    const outside = await tmp();
    mkdirSync(path.join(root, "out"));
    const dir = openPinnedDir(root, "out");
    // The swap a sandboxed process would make between the host's check and its write.
    renameSync(path.join(root, "out"), path.join(root, "moved"));
    symlinkSync(outside, path.join(root, "out"));
    dir.replaceFile("state.json", "{}\n");
    mkdirSync(dir.at("sub"));
    dir.close();
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(path.join(root, "moved")).sort()).toEqual(["state.json", "sub"]);
  });

  it("createFile never follows or replaces an existing entry; at() takes one name only", async () => {
    const root = await tmp();
    const outside = await tmp();
    symlinkSync(path.join(outside, "target"), path.join(root, "log"));
    const dir = openPinnedDir(root, "");
    expect(() => dir.createFile("log")).toThrow(/EEXIST/);
    for (const bad of ["", ".", "..", "a/b", "x\0"]) expect(() => dir.at(bad)).toThrow(/not a single file name/);
    dir.close();
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("PinnedDir.makeChild", () => {
  it("makes a new folder and opens it; anything already at the name is refused and left as it was", async () => {
    const root = await tmp();
    const outside = await tmp();
    mkdirSync(path.join(root, "folder"));
    writeFileSync(path.join(root, "file"), "x");
    symlinkSync(outside, path.join(root, "link"));
    symlinkSync(path.join(outside, "gone"), path.join(root, "dangling"));
    const dir = openPinnedDir(root, "");
    try {
      const made = dir.makeChild("new");
      made.createFile("a.txt");
      made.close();
      expect(readdirSync(path.join(root, "new"))).toEqual(["a.txt"]);
      for (const name of ["folder", "file", "link", "dangling", "new"])
        expect(() => dir.makeChild(name)).toThrow(/EEXIST/);
      for (const bad of ["", ".", "..", "a/b"]) expect(() => dir.makeChild(bad)).toThrow(/not a single file name/);
    } finally {
      dir.close();
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(path.join(root, "link")).isSymbolicLink()).toBe(true);
  });
});

describe("removeTree / removePinnedTree: removal that never follows a link", () => {
  const keep = (outside: string) => {
    mkdirSync(path.join(outside, "deep"));
    writeFileSync(path.join(outside, "deep/keep.txt"), "keep");
    writeFileSync(path.join(outside, "keep.txt"), "keep");
  };
  const kept = (outside: string) => readdirSync(outside, { recursive: true, encoding: "utf8" }).sort();

  it.each([
    [
      "files and folders",
      (tree: string) => {
        mkdirSync(path.join(tree, "a/b"), { recursive: true });
        writeFileSync(path.join(tree, "a/b/f.txt"), "x");
      },
    ],
    ["a link to a folder outside", (tree: string, outside: string) => symlinkSync(outside, path.join(tree, "out"))],
    [
      "a link to a file outside",
      (tree: string, outside: string) => symlinkSync(path.join(outside, "keep.txt"), path.join(tree, "f")),
    ],
    [
      "a dangling link",
      (tree: string, outside: string) => symlinkSync(path.join(outside, "nothing/x"), path.join(tree, "dangling")),
    ],
  ])("removes a tree holding %s, and nothing outside", async (_name, plant) => {
    const root = await tmp();
    const outside = await tmp();
    keep(outside);
    const tree = path.join(root, "tree");
    mkdirSync(tree);
    plant(tree, outside);
    removePinnedTree(tree);
    expect(readdirSync(root)).toEqual([]);
    expect(kept(outside)).toEqual(["deep", "deep/keep.txt", "keep.txt"]);
  });

  it("a folder swapped for a link after its parent was pinned loses only the link", async () => {
    const root = await tmp();
    const outside = await tmp();
    keep(outside);
    mkdirSync(path.join(root, "work/sub"), { recursive: true });
    writeFileSync(path.join(root, "work/sub/f.txt"), "x");
    const work = openPinnedDir(root, "work");
    renameSync(path.join(root, "work/sub"), path.join(root, "moved"));
    symlinkSync(outside, path.join(root, "work/sub"));
    work.removeTree("sub");
    work.close();
    expect(readdirSync(path.join(root, "work"))).toEqual([]);
    expect(kept(outside)).toEqual(["deep", "deep/keep.txt", "keep.txt"]);
  });

  it(`refuses to descend past ${MAX_REMOVE_DEPTH} folders (one descriptor each) and leaves the rest`, async () => {
    const root = await tmp();
    const deep = path.join(root, "tree", ...Array.from({ length: MAX_REMOVE_DEPTH + 2 }, () => "d"));
    mkdirSync(deep, { recursive: true });
    expect(() => removePinnedTree(path.join(root, "tree"))).toThrow(/is nested deeper than 400 folders; not removed/);
    expect(lstatSync(deep).isDirectory()).toBe(true);
  });
});
