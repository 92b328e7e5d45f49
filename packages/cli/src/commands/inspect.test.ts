// `inspect`: what a package holds, read-only; layout errors exit 1 with the findings on stderr.
import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

interface Inspection {
  valid: boolean;
  source: string;
  versionId: string;
  files: Array<{ path: string; size: number }>;
  skills: Array<{ name: string; path: string }>;
  excluded: Array<{ path: string; reason: string }>;
}

describe("skillport inspect", () => {
  it("a workspace: its skills, files and exclusions, the same versionId as the archive packed from it", async () => {
    const dir = await tree({
      "pkg/skills/a/SKILL.md": skillMd("a"),
      "pkg/skills/a/run.sh": "echo a\n",
      "pkg/.env": "SECRET=1\n",
    });
    const run = await runInProcess(["inspect", "pkg", "--json"], dir);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const report = JSON.parse(run.stdout) as Inspection;
    expect(report.valid).toBe(true);
    expect(report.source).toBe("directory");
    expect(report.skills.map((s) => s.name)).toEqual(["a"]);
    expect(report.files.map((f) => f.path)).toEqual(["skills/a/SKILL.md", "skills/a/run.sh"]);
    expect(report.excluded.map((e) => e.path)).toEqual([".env"]);
    expect((await runInProcess(["pack", "pkg", "--output", "pkg.zip"], dir)).code).toBe(0);
    const archived = JSON.parse((await runInProcess(["inspect", "pkg.zip", "--json"], dir)).stdout) as Inspection;
    expect(archived.versionId).toBe(report.versionId);
    // Read-only: nothing was written next to the workspace but the archive asked for.
    expect((await readdir(dir)).sort()).toEqual(["pkg", "pkg.zip"]);
  });

  it("a workspace whose skills/ folder holds a folder without SKILL.md: exit 1, the finding on stderr", async () => {
    const dir = await tree({ "pkg/skills/a/SKILL.md": skillMd("a"), "pkg/skills/b/notes.md": "no skill here\n" });
    const run = await runInProcess(["inspect", "pkg"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^package {3}directory, 2 files/);
    expect(run.stderr).toContain("skills/b/  error  package-skill-md-missing  ");
  });

  it("a path that does not exist: exit 2, one line", async () => {
    const dir = await tree({});
    const run = await runInProcess(["inspect", "nope.zip"], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", "skillport: nope.zip: no such file or directory\n"]);
  });
});
