// Issue 20 item 16: bad input gives one line naming what is wrong and where, the right exit code (2 usage or runtime
// error, 1 problems found), never a raw errno or a host path. A table through the BUILT CLI (`npm run build`).
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempTree, type TempTree } from "@skillport/testing";
import { availableDialects, createTestDatabase, type TestDatabase } from "../../sql/src/test-support/databases.js";
import { isBuilt, runBuilt, skillMd } from "./test-support.js";

const repo = path.resolve(import.meta.dirname, "../../..");

let work: TempTree;
beforeAll(async () => {
  work = await tempTree(
    {
      "skills/a/SKILL.md": skillMd("a"),
      afile: "not a folder\n",
      "ws/.keep": "",
      "plugin/index.ts": "export {};\n",
      "empty/.keep": "",
    },
    "skillport-bad-input-",
  );
  await mkdir(path.join(work.dir, "outdir"));
  const exported = runBuilt(["export", "skills/a", "--output", "a.skill"], work.dir);
  expect(exported.code, exported.stderr.toString()).toBe(0);
});
afterAll(() => work?.cleanup());

/** [what, args, exit code, the one line on stderr (a pattern), stdout expected (default: empty)] */
const CASES: [string, string[], number, RegExp][] = [
  [
    "pack --output <existing dir>",
    ["pack", path.join(repo, "examples/package"), "--output", "outdir"],
    2,
    /^skillport: --output outdir: is a directory; give a file name, e\.g\. outdir\/package\.zip$/,
  ],
  [
    "export --output <existing dir>",
    ["export", "skills/a", "--output", "outdir"],
    2,
    /^skillport: --output outdir: is a directory; give a file name, e\.g\. outdir\/a\.skill$/,
  ],
  [
    "import --into <file>",
    ["import", "a.skill", "--into", "afile"],
    2,
    /^skillport: --into afile: not a directory \(give a folder, or a path where one can be created\)$/,
  ],
  [
    "deploy --workspace <file>",
    ["deploy", path.join(repo, "examples/package"), "--workspace", "afile", "--no-entrypoints"],
    2,
    /^skillport: --workspace afile: not a directory/,
  ],
  [
    "exec with the command's own option before --",
    ["exec", "-w", "ws", "ls", "-la"],
    2,
    /^error: unknown option '-la' \(a command with options of its own goes after --: skillport exec -w <dir> -- <command> -la\)$/,
  ],
  [
    "list owner/repo",
    ["list", "anthropics/skills"],
    2,
    /^skillport: no such folder: anthropics\/skills \(a git repository\? write its address: git\+https:\/\/github\.com\/anthropics\/skills\.git/,
  ],
  [
    "plugin build --entry <file>",
    ["plugin", "build", "--entry", "afile"],
    2,
    /^skillport: --entry afile: is a file; give the plugin's folder/,
  ],
  [
    "plugin build --entry <dir>/index.ts",
    ["plugin", "build", "--entry", "plugin/index.ts"],
    2,
    /^skillport: --entry plugin\/index\.ts: is a file; .*: --entry plugin$/,
  ],
  ["prompt with no skills", ["prompt", "empty"], 1, /^skillport: no skills found in empty$/],
  [
    "search --limit 0",
    ["search", "x", "skills", "--limit", "0"],
    2,
    /^error: option '-n, --limit <n>' argument '0' is invalid\. expected a whole number ≥ 1, got "0"$/,
  ],
  [
    "search with an empty query",
    ["search", "", "skills"],
    2,
    /^skillport: the query is empty: say what you are looking for/,
  ],
  ["search with a blank query", ["search", "   ", "skills"], 2, /^skillport: the query is empty/],
];

describe.skipIf(!isBuilt)("bad input through the built CLI", () => {
  it.each(CASES)("%s", (_what, args, code, line) => {
    const run = runBuilt(args, work.dir);
    const stderr = run.stderr.toString();
    expect(run.code).toBe(code);
    expect(run.stdout.toString()).toBe("");
    const [first] = stderr.split("\n");
    expect(first).toMatch(line);
    // commander adds its usual hint after a usage error; nothing else, and never an errno or a host path.
    expect(
      stderr
        .split("\n")
        .filter(Boolean)
        .filter((l) => l !== "(add --help for usage)"),
    ).toHaveLength(1);
    expect(stderr).not.toMatch(/\bE[A-Z]{3,}\b|\/tmp\/|at .*\.js:\d+/);
  });

  it("deploy lines up its table and prints no empty skills line", async () => {
    const run = runBuilt(
      ["deploy", path.join(repo, "examples/package"), "--workspace", "deployed", "--no-entrypoints"],
      work.dir,
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.toString().trimEnd().split("\n");
    expect(lines.every((l) => l.trimEnd() === l)).toBe(true);
    const skills = lines.slice(lines.findIndex((l) => l.startsWith("skills ")));
    expect(skills.map((l) => l.slice(0, 9))).toEqual([
      "skills   ",
      ...Array<string>(skills.length - 1).fill(" ".repeat(9)),
    ]);
    // Every SKILL.md path starts in the same column.
    expect(new Set(skills.map((l) => l.indexOf("projects/"))).size).toBe(1);
  });
});

describe.skipIf(!isBuilt)("a database without skill tables says which command creates them", () => {
  const databases: TestDatabase[] = [];
  afterAll(() => Promise.all(databases.map((d) => d.drop())));

  it("for every SQL server available here (SQLite always, PostgreSQL and MySQL/MariaDB when they answer)", async () => {
    for (const dialect of await availableDialects()) {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      // A database that exists (SQLite: a file with some other table) but has no skill tables.
      if (dialect === "sqlite") await writeFile(database.url.slice("sqlite:".length), "");
      for (const command of [["list"], ["validate"], ["show", "x", "-r"]]) {
        const run = runBuilt([...command, database.url], work.dir);
        expect(run.code, `${dialect} ${command[0]}`).toBe(2);
        expect(run.stderr.toString(), `${dialect} ${command[0]}`).toMatch(
          /no skill tables .*; `skillport copy <folder of skills> <this address>` creates them and copies skills in\n$/,
        );
      }
      // And that command does: copy creates the tables, then the database lists.
      expect(runBuilt(["copy", "skills", database.url], work.dir).code).toBe(0);
      expect(runBuilt(["list", database.url], work.dir).stdout.toString()).toMatch(/^a {2}/);
    }
  }, 120_000);
});
