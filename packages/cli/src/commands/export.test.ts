// `export`: --output naming a folder is a usage error that suggests a file name (decision 0262).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport export", () => {
  it("--output an existing folder: one line with a file name to use, exit 2", async () => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    await mkdir(path.join(dir, "out"));
    const run = await runInProcess(["export", "skills/a", "--output", "out"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      "",
      "skillport: --output out: is a directory; give a file name, e.g. out/a.skill\n",
    ]);
  });

  it("--output a file writes it", async () => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    const run = await runInProcess(["export", "skills/a", "--output", "out.skill"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^exported a \(1 files\) to out\.skill/);
  });
});
