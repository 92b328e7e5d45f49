// `validate` on something that is not a skill (issue 20, item 4; docs/decisions/0280), through the BUILT binary: a
// path that is not a skill, a SKILL.md or a folder of skills is a usage error (exit 2, one line naming it); with no path
// validate reads where `list` does, or says nothing was found. Folders that are not skills are not "skills checked".
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skillMd, useTempTrees } from "./test-support.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const tree = useTempTrees();

/** The binary in `cwd`, with HOME set to `home` (user-level skills are looked for there). */
function skillport(args: string[], cwd: string, home: string) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home, FORCE_COLOR: undefined, NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.runIf(existsSync(bin))("skillport validate on what is not a skill", () => {
  it.each([
    [
      "a text file",
      ["notes.txt"],
      /^skillport: notes\.txt is a file, not a skill: give a skill folder, its SKILL\.md, or a folder of skills\n$/,
    ],
    ["a missing path", ["missing"], /^skillport: no such file or directory: missing\n$/],
    [
      "an empty folder",
      ["empty"],
      /^skillport: no skills in empty: it has no SKILL\.md and no folders; give a skill folder/,
    ],
    [
      "a folder with other files and no skills",
      ["other"],
      /^skillport: no skills in other: it has no SKILL\.md, nor has any of its 2 folders; give/,
    ],
    [
      "no path where nothing is found",
      [],
      /^skillport: no skills to validate: no \.agents\/skills or \.claude\/skills folder here, up to the git root, or in your home; pass a path/,
    ],
  ])("%s: exit 2, one line, nothing on stdout", async (_label, args, message) => {
    const dir = await tree({
      "notes.txt": "just notes\n",
      "empty/": { dir: true },
      "other/readme.md": "# not a skill\n",
      "other/docs/guide.md": "# guide\n",
      "other/assets/logo.txt": "logo\n",
      "home/": { dir: true },
    });
    const run = skillport(["validate", ...args], dir, path.join(dir, "home"));
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("with no path, reads .agents/skills and .claude/skills as `list` does (project, then home)", async () => {
    const dir = await tree({
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/.agents/skills/alpha/SKILL.md": skillMd("alpha"),
      "repo/.agents/skills/docs/readme.md": "# not a skill\n",
      "repo/sub/.claude/skills/beta/SKILL.md": skillMd("beta"),
      "repo/sub/notes.txt": "not a skill\n",
      "home/.claude/skills/gamma/SKILL.md": skillMd("gamma"),
    });
    const cwd = path.join(dir, "repo/sub");
    const home = path.join(dir, "home");
    const run = skillport(["validate", "--format", "json"], cwd, home);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      skills: Array<{ path: string; name: string | null }>;
      summary: Record<string, number>;
    };
    expect(report.skills.map((s) => [s.path, s.name])).toEqual([
      [".claude/skills/beta/SKILL.md", "beta"],
      ["../.agents/skills/alpha/SKILL.md", "alpha"],
      ["../.agents/skills/docs/", null],
      ["../../home/.claude/skills/gamma/SKILL.md", "gamma"],
    ]);
    // The folder without SKILL.md is reported, not counted as a skill checked.
    expect(report.summary).toMatchObject({ skills: 3, errors: 0, notSkills: 1 });
    const listed = skillport(["list", "--json"], cwd, home);
    expect((JSON.parse(listed.stdout) as { skills: Array<{ id: string }> }).skills.map((s) => s.id).sort()).toEqual([
      "alpha",
      "beta",
      "gamma",
    ]);
    const text = skillport(["validate"], cwd, home);
    expect(text.stdout).toMatch(/3 skills checked: 0 errors, \d+ warnings?; 1 folder is not a skill\n$/);
  });

  it("with no path and agent folders that hold no skill: exit 2, naming where it looked", async () => {
    const dir = await tree({
      "repo/.git/HEAD": "x\n",
      "repo/.agents/skills/docs/readme.md": "# no skill\n",
      "home/": { dir: true },
    });
    const run = skillport(["validate"], path.join(dir, "repo"), path.join(dir, "home"));
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toMatch(/^skillport: no skills found in \.agents\/skills; pass a path/);
  });

  it("still takes a SKILL.md, a skill folder and a folder of skills", async () => {
    const dir = await tree({
      "skills/a/SKILL.md": skillMd("a"),
      "skills/b/SKILL.md": skillMd("b"),
      "home/": { dir: true },
    });
    const home = path.join(dir, "home");
    for (const [target, count] of [
      ["skills/a/SKILL.md", 1],
      ["skills/a", 1],
      ["skills", 2],
    ] as const) {
      const run = skillport(["validate", target, "--format", "json"], dir, home);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).summary).toEqual({ skills: count, errors: 0, warnings: 0 });
    }
  });
});
