// `init`: a new skill folder that validates as written; never overwrites; a bad name is a usage error.
import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport init", () => {
  it("creates <dir>/<name> with a SKILL.md template that passes validate", async () => {
    const dir = await tree({ "skills/": { dir: true } });
    const run = await runInProcess(
      [
        "init",
        "pdf-tools",
        "--dir",
        "skills",
        "--description",
        "Fills PDF forms. Use when the user asks to fill a PDF.",
      ],
      dir,
    );
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/^Created skills\/pdf-tools\/\n/);
    expect((await readdir(path.join(dir, "skills/pdf-tools"))).sort()).toEqual([
      "SKILL.md",
      "assets",
      "references",
      "scripts",
    ]);
    const text = await readFile(path.join(dir, "skills/pdf-tools/SKILL.md"), "utf8");
    expect(text).toMatch(
      /^---\nname: pdf-tools\ndescription: "Fills PDF forms\. Use when the user asks to fill a PDF\."\n---\n/,
    );
    const check = await runInProcess(["validate", "skills/pdf-tools", "--format", "json"], dir);
    expect(check.code, check.stdout).toBe(0);
    expect((JSON.parse(check.stdout) as { summary: { errors: number } }).summary.errors).toBe(0);
  });

  it("refuses a folder that exists (exit 2, one line) and leaves its files alone", async () => {
    const dir = await tree({});
    await mkdir(path.join(dir, "mine"));
    await writeFile(path.join(dir, "mine", "SKILL.md"), "my own\n");
    const run = await runInProcess(["init", "mine"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", "skillport: mine already exists; not overwriting it\n"]);
    expect(await readFile(path.join(dir, "mine", "SKILL.md"), "utf8")).toBe("my own\n");
  });

  it.each([["Upper"], ["has space"], ["a--b"]])("refuses the name %j (exit 2) and creates nothing", async (name) => {
    const dir = await tree({});
    const run = await runInProcess(["init", name], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`^skillport: invalid skill name ${JSON.stringify(JSON.stringify(name)).slice(1, -1)}: `),
    );
    expect(await readdir(dir)).toEqual([]);
  });
});
