// `prompt`: no skills is said (exit 1), not an empty catalog with exit 0 (decision 0262).
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport prompt", () => {
  it("with no skills says where it looked, exit 1", async () => {
    const dir = await tree({ "empty/.keep": "", "also-empty/.keep": "" });
    const run = await runInProcess(["prompt", "empty", "also-empty"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([1, "", "skillport: no skills found in empty, also-empty\n"]);
  });

  it("with skills prints the catalog, exit 0", async () => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    const run = await runInProcess(["prompt", "skills"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("<name>\na\n</name>");
  });
});
