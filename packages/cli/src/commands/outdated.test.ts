// `outdated`: each locked skill fetched again from its source; a changed one is listed and the exit is 1.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

interface Row {
  name: string;
  locked: string;
  latest: string;
  outdated: boolean;
}

describe("skillport outdated", () => {
  it("says everything is up to date (exit 0), then lists the one skill whose source changed (exit 1)", async () => {
    const dir = await tree({
      "src/skills/alpha/SKILL.md": skillMd("alpha"),
      "src/skills/beta/SKILL.md": skillMd("beta"),
      "project/": { dir: true },
    });
    const project = path.join(dir, "project");
    expect((await runInProcess(["add", "../src/skills", "--skill", "*", "--agent", "claude-code"], project)).code).toBe(
      0,
    );

    const fresh = await runInProcess(["outdated"], project);
    expect([fresh.code, fresh.stdout, fresh.stderr]).toEqual([0, "All 2 locked skills are up to date.\n", ""]);

    await writeFile(path.join(dir, "src/skills/beta/SKILL.md"), skillMd("beta", undefined, "# beta\n\nNew steps.\n"));
    const run = await runInProcess(["outdated", "--json"], project);
    expect(run.code).toBe(1);
    const rows = (JSON.parse(run.stdout) as { skills: Row[] }).skills;
    expect(rows.map((r) => [r.name, r.outdated])).toEqual([
      ["alpha", false],
      ["beta", true],
    ]);
    const beta = rows.find((r) => r.name === "beta")!;
    expect(beta.latest).not.toBe(beta.locked);
    const text = await runInProcess(["outdated"], project);
    expect(text.stdout).toMatch(new RegExp(`^beta  ${beta.locked.slice(0, 12)} → ${beta.latest.slice(0, 12)}  `));
  });
});
