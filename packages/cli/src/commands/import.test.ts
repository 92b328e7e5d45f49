// `import`: --into must be a folder (or absent); never a raw EEXIST (decision 0262).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

async function withArchive(): Promise<string> {
  const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
  expect((await runInProcess(["export", "skills/a", "--output", "a.skill"], dir)).code).toBe(0);
  return dir;
}

describe("skillport import", () => {
  it("--into a file: one line, exit 2, nothing written", async () => {
    const dir = await withArchive();
    await writeFile(path.join(dir, "afile"), "x");
    const run = await runInProcess(["import", "a.skill", "--into", "afile"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      "",
      "skillport: --into afile: not a directory (give a folder, or a path where one can be created)\n",
    ]);
  });

  it("--into a folder that does not exist yet creates it", async () => {
    const dir = await withArchive();
    const run = await runInProcess(["import", "a.skill", "--into", "new/skills"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^imported a \(1 files\) into new\/skills\/a\n$/);
  });
});
