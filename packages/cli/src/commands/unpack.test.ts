// `unpack`: an archive checked in full, then written into a new or empty folder; never over existing files.
import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

async function packed(): Promise<string> {
  const dir = await tree({ "pkg/skills/a/SKILL.md": skillMd("a"), "pkg/skills/a/scripts/run.sh": "echo a\n" });
  expect((await runInProcess(["pack", "pkg", "--output", "pkg.zip"], dir)).code).toBe(0);
  return dir;
}

describe("skillport unpack", () => {
  it("writes every file into a new folder and reports the package's versionId", async () => {
    const dir = await packed();
    const inspected = JSON.parse((await runInProcess(["inspect", "pkg.zip", "--json"], dir)).stdout) as {
      versionId: string;
    };
    const run = await runInProcess(["unpack", "pkg.zip", "out", "--json"], dir);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const result = JSON.parse(run.stdout) as { output: string; versionId: string; files: number; format: string };
    expect(result).toMatchObject({ output: "out", versionId: inspected.versionId, files: 2, format: "zip" });
    expect(await readFile(path.join(dir, "out/skills/a/scripts/run.sh"), "utf8")).toBe("echo a\n");
    expect(await readFile(path.join(dir, "out/skills/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  it("refuses a folder that holds files (exit 2) and leaves it as it was", async () => {
    const dir = await packed();
    await mkdir(path.join(dir, "busy"));
    await writeFile(path.join(dir, "busy", "keep.txt"), "mine\n");
    const run = await runInProcess(["unpack", "pkg.zip", "busy"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^skillport: .*busy.*\n$/);
    expect(await readdir(path.join(dir, "busy"))).toEqual(["keep.txt"]);
  });

  it("a missing archive: exit 2, one line, nothing created", async () => {
    const dir = await tree({});
    const run = await runInProcess(["unpack", "nope.zip", "out"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", "skillport: nope.zip: no such file\n"]);
    expect(await readdir(dir)).toEqual([]);
  });
});
