// `list --installed`: each installed skill with its source and agents; a copy edited since install exits 1.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

interface Row {
  name: string;
  source: string | null;
  agents: string[];
  intact: boolean | null;
}

describe("skillport list --installed", () => {
  it("lists the installed skills, a folder not in the lock too, and flags one modified since install (exit 1)", async () => {
    const dir = await tree({ "src/skills/alpha/SKILL.md": skillMd("alpha"), "project/": { dir: true } });
    const project = path.join(dir, "project");
    expect((await runInProcess(["add", "../src/skills/alpha", "--agent", "claude-code"], project)).code).toBe(0);
    // A folder put there by hand, and a hidden temp entry, which is never a skill.
    await writeFile(path.join(project, ".agents/skills/.tmp-x"), "");
    const stray = path.join(project, ".agents/skills/stray");
    await mkdir(stray);
    await writeFile(path.join(stray, "SKILL.md"), skillMd("stray"));

    const clean = await runInProcess(["list", "--installed", "--json"], project);
    expect(clean.code).toBe(0);
    const rows = (JSON.parse(clean.stdout) as { installed: Row[] }).installed;
    expect(rows.map((r) => [r.name, r.source === null, r.agents])).toEqual([
      ["alpha", false, expect.arrayContaining(["claude-code"])],
      ["stray", true, expect.any(Array)],
    ]);

    await writeFile(path.join(project, ".agents/skills/alpha/SKILL.md"), skillMd("alpha", undefined, "# edited\n"));
    const drifted = await runInProcess(["list", "--installed"], project);
    expect(drifted.code).toBe(1);
    expect(drifted.stdout).toMatch(/^alpha .*\(modified since install\)$/m);
  });

  it("nothing installed: says so, exit 0", async () => {
    const dir = await tree({ "project/": { dir: true } });
    expect(await runInProcess(["list", "--installed"], path.join(dir, "project"))).toEqual({
      code: 0,
      stdout: "No skills installed.\n",
      stderr: "",
    });
  });
});
