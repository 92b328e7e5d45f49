import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { InvalidPathError, LimitExceededError } from "@skillport/core";
import { tempTree, type TreeSpec } from "@skillport/testing";
import { walkTree, type WalkOptions, type WalkProblemKind } from "./walk.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});
async function tree(spec: TreeSpec): Promise<string> {
  const t = await tempTree(spec, "skillport-walk-");
  cleanups.push(t.cleanup);
  return t.dir;
}

const paths = (dir: string, options: WalkOptions = {}) => walkTree(dir, options).entries.map((e) => e.path);

describe("walkTree: plain trees", () => {
  it("lists every file, hidden ones included, sorted by code units, with sizes and modes", async () => {
    const dir = await tree({ "b.txt": "bb", "a/b/c.txt": "ccc", "a-b": "x", ".hidden": "", B: "1", "a/z": "zz" });
    const result = walkTree(dir);
    expect(result.entries.map((e) => [e.path, e.size])).toEqual([
      [".hidden", 0],
      ["B", 1],
      ["a-b", 1],
      ["a/b/c.txt", 3],
      ["a/z", 2],
      ["b.txt", 2],
    ]);
    const first = result.entries[3]!;
    expect(first).toMatchObject({
      kind: "file",
      realPath: path.join(dir, "a", "b", "c.txt"),
      viaLink: false,
      nlink: 1,
    });
    expect(first.mode & 0o170000).toBe(0o100000);
    expect(result.problems).toEqual([]);
    expect(result.directories).toBe(3);
  });

  it("lists directories on request, and only directories with files: false", async () => {
    const dir = await tree({ "a/b/c.txt": "c", "d/e.txt": "e" });
    expect(paths(dir, { directories: true })).toEqual(["a", "a/b", "a/b/c.txt", "d", "d/e.txt"]);
    expect(paths(dir, { directories: true, files: false })).toEqual(["a", "a/b", "d"]);
  });

  it("reports hard links through nlink", async () => {
    const dir = await tree({ "a.txt": "a" });
    execFileSync("ln", [path.join(dir, "a.txt"), path.join(dir, "b.txt")]);
    expect(walkTree(dir).entries.map((e) => e.nlink)).toEqual([2, 2]);
  });
});

describe("walkTree: links", () => {
  const spec = (): TreeSpec => ({
    "real.md": "real content",
    "sub/x.md": "x",
    "alias.md": { link: "real.md" },
    subalias: { link: "sub" },
  });

  it("refuse: the first link throws InvalidPathError naming it; collect mode reports every link", async () => {
    const dir = await tree(spec());
    expect(() => walkTree(dir)).toThrow(InvalidPathError);
    expect(() => walkTree(dir)).toThrow(/"alias\.md".*symbolic link/);
    const result = walkTree(dir, { onProblem: "collect" });
    expect(result.problems.map((p) => [p.path, p.kind])).toEqual([
      ["alias.md", "link"],
      ["subalias", "link"],
    ]);
    expect(result.entries.map((e) => e.path)).toEqual(["real.md", "sub/x.md"]);
  });

  it("follow-inside: links inside are followed (target size, real path, viaLink), directories too", async () => {
    const dir = await tree(spec());
    const result = walkTree(dir, { links: "follow-inside" });
    expect(result.entries.map((e) => [e.path, e.size, e.viaLink, path.relative(dir, e.realPath)])).toEqual([
      ["alias.md", 12, true, "real.md"],
      ["real.md", 12, false, "real.md"],
      ["sub/x.md", 1, false, "sub/x.md"],
      ["subalias/x.md", 1, true, "sub/x.md"],
    ]);
  });

  it.each<[string, TreeSpec, WalkProblemKind]>([
    ["a link leaving the root", { "out.md": { link: "/etc/hostname" } }, "link-outside"],
    ["a relative link climbing out", { "sub/out": { link: "../../" } }, "link-outside"],
    ["a dangling link", { "gone.md": { link: "nowhere.md" } }, "link-dangling"],
    ["a link to itself", { "self.md": { link: "self.md" } }, "link-dangling"],
    ["a link to the root (a loop)", { "sub/loop": { link: ".." } }, "link-loop"],
    ["a link to its own directory (a loop)", { "sub/again": { link: "." } }, "link-loop"],
  ])("follow-inside refuses %s", async (_label, links, kind) => {
    const dir = await tree({ "ok.md": "ok", ...links });
    const result = walkTree(dir, { links: "follow-inside", onProblem: "collect" });
    expect(result.problems.map((p) => p.kind)).toEqual([kind]);
    expect(result.entries.map((e) => e.path)).toEqual(["ok.md"]);
    expect(() => walkTree(dir, { links: "follow-inside" })).toThrow(InvalidPathError);
    for (const p of result.problems) expect(p.message).not.toContain(dir);
  });

  it("follow-inside with a narrower boundary refuses links inside the root but outside the boundary", async () => {
    const dir = await tree({ "skill/SKILL.md": "s", "skill/peek.md": { link: "../other/x.md" }, "other/x.md": "x" });
    const result = walkTree(path.join(dir, "skill"), { links: "follow-inside", onProblem: "collect" });
    expect(result.problems.map((p) => [p.path, p.kind])).toEqual([["peek.md", "link-outside"]]);
    expect(
      walkTree(path.join(dir, "skill"), { links: "follow-inside", boundary: dir }).entries.map((e) => e.path),
    ).toEqual(["SKILL.md", "peek.md"]);
  });

  it("exclude: links are left out with a reason, never followed or reported as problems", async () => {
    const dir = await tree(spec());
    const result = walkTree(dir, { links: "exclude", linkReason: "links are not deployed" });
    expect(result.excluded).toEqual([
      { path: "alias.md", reason: "links are not deployed" },
      { path: "subalias", reason: "links are not deployed" },
    ]);
    expect(result.problems).toEqual([]);
  });
});

describe("walkTree: special files and names", () => {
  it("a FIFO is a problem (`special`), never opened", async () => {
    const dir = await tree({ "a.txt": "a" });
    execFileSync("mkfifo", [path.join(dir, "pipe")]);
    expect(() => walkTree(dir)).toThrow(/"pipe".*not a regular file/);
    expect(walkTree(dir, { onProblem: "collect" }).problems.map((p) => [p.path, p.kind])).toEqual([
      ["pipe", "special"],
    ]);
  });

  it.each(["a\\b", "x:y", "tab\there", "nul%00.md"])(
    "a name the shared rules refuse (%j) is reported",
    async (name) => {
      const dir = await tree({ [name]: "x", "ok.md": "ok" });
      const result = walkTree(dir, { onProblem: "collect" });
      expect(result.problems.map((p) => [p.path, p.kind])).toEqual([[name, "unsafe-name"]]);
      expect(result.entries.map((e) => e.path)).toEqual(["ok.md"]);
      expect(walkTree(dir, { checkNames: false }).entries).toHaveLength(2);
    },
  );
});

describe("walkTree: limits", () => {
  it.each<[WalkOptions, string]>([
    [{ maxDepth: 2 }, "maxDepth"],
    [{ maxFiles: 3 }, "maxFiles"],
    [{ maxDirs: 3 }, "maxDirs"],
  ])("%j throws LimitExceededError naming the limit", async (options, limit) => {
    const dir = await tree({ "a/b/c/d.txt": "d", "e.txt": "e", "f.txt": "f", "g.txt": "g" });
    let thrown: unknown;
    try {
      walkTree(dir, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LimitExceededError);
    expect((thrown as LimitExceededError).limit).toBe(limit);
  });

  it("exactly at each limit passes", async () => {
    const dir = await tree({ "a/b/c.txt": "c", "d.txt": "d" });
    expect(paths(dir, { maxDepth: 2, maxFiles: 2, maxDirs: 3 })).toEqual(["a/b/c.txt", "d.txt"]);
  });

  it("collect mode: a deep directory is skipped and reported; a count limit stops the walk (truncated)", async () => {
    const dir = await tree({ "a/b/c/d.txt": "d", "e.txt": "e", "f.txt": "f", "g.txt": "g" });
    const deep = walkTree(dir, { maxDepth: 2, onProblem: "collect" });
    expect(deep.problems).toEqual([
      { path: "a/b/c", kind: "limit", limit: "maxDepth", message: "is nested deeper than 2 directories" },
    ]);
    expect(deep.truncated).toBe(false);
    expect(deep.entries.map((e) => e.path)).toEqual(["e.txt", "f.txt", "g.txt"]);
    const many = walkTree(dir, { maxFiles: 2, onProblem: "collect" });
    expect(many.truncated).toBe(true);
    expect(many.entries).toHaveLength(2);
    expect(many.problems.map((p) => p.limit)).toEqual(["maxFiles"]);
  });
});

describe("walkTree: caller rules", () => {
  it("exclude gets (path, isDir, link) before the name and link rules; an excluded directory is not entered", async () => {
    const dir = await tree({
      "node_modules/x/index.js": "x",
      "src/a.ts": "a",
      "src/.env": "SECRET=1",
      "bad:name": "x",
      dirlink: { link: "src" },
    });
    const seen: Array<[string, boolean, boolean]> = [];
    const result = walkTree(dir, {
      exclude: (rel, isDir, { link }) => {
        seen.push([rel, isDir, link]);
        if (rel === "node_modules" || rel.endsWith(".env") || rel === "bad:name" || rel === "dirlink")
          return `rule for ${rel}`;
        return undefined;
      },
    });
    expect(result.entries.map((e) => e.path)).toEqual(["src/a.ts"]);
    expect(result.excluded).toEqual([
      { path: "bad:name", reason: "rule for bad:name" },
      { path: "dirlink/", reason: "rule for dirlink" },
      { path: "node_modules/", reason: "rule for node_modules" },
      { path: "src/.env", reason: "rule for src/.env" },
    ]);
    expect(seen).toContainEqual(["dirlink", true, true]);
    expect(seen.some(([rel]) => rel.startsWith("node_modules/"))).toBe(false);
  });

  it("onDirectory sees each directory's sorted entries before they are judged, and false skips them", async () => {
    const dir = await tree({
      "skills/a/SKILL.md": "a",
      "skills/a/scripts/x.sh": "x",
      "skills/b/notes/SKILL.md": "b",
      "top.txt": "t",
    });
    const visited: string[] = [];
    const result = walkTree(dir, {
      files: false,
      onDirectory: ({ path: rel, depth, entries }) => {
        visited.push(`${depth}:${rel}:${entries.map((e) => e.name).join(",")}`);
        return !entries.some((e) => e.name === "SKILL.md");
      },
    });
    expect(visited).toEqual([
      "0::skills,top.txt",
      "1:skills:a,b",
      "2:skills/a:SKILL.md,scripts",
      "2:skills/b:notes",
      "3:skills/b/notes:SKILL.md",
    ]);
    expect(result.entries).toEqual([]);
  });
});
