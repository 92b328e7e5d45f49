// `list`: what it prints from skills is inert text (decision 0260), and a root that is no folder says what to write.
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport list", () => {
  it("shows a description's escape sequences as visible text, in text and JSON alike", async () => {
    const dir = await tree({
      "skills/a/SKILL.md": skillMd("a", '"Sets \\e]0;title\\a and \\u009b2J. Use when testing."'),
    });
    const text = await runInProcess(["list", "skills"], dir);
    expect(text.stdout).toContain("Sets \\x1b]0;title\\x07 and \\x9b2J.");
    expect(text.stdout).not.toMatch(/[\u001b\u0007\u009b]/u);
    const json = await runInProcess(["list", "skills", "--json"], dir);
    expect(json.stdout).toContain("\\u001b]0;title\\u0007 and \\u009b2J");
    expect((JSON.parse(json.stdout) as { skills: { description: string }[] }).skills[0]?.description).toBe(
      "Sets \u001b]0;title\u0007 and \u009b2J. Use when testing.",
    );
  });

  it.each([
    [
      "owner/repo",
      "anthropics/skills",
      "skillport: no such folder: anthropics/skills (a git repository? write its address: git+https://github.com/anthropics/skills.git, with #<ref>:<folder> for a folder in it)\n",
    ],
    ["a plain missing folder", "nowhere", "skillport: no such folder: nowhere\n"],
    ["a file", "skills/a/SKILL.md", "skillport: not a directory: skills/a/SKILL.md\n"],
  ])("a root that is %s: one line, exit 2", async (_case, root, line) => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    const run = await runInProcess(["list", root], dir);
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", line]);
  });
});
