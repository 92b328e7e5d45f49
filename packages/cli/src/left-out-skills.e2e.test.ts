// A skill with no description is packed and deployed, but the catalog commands leave it out (issue 20, item 9;
// docs/decisions/0282). Wherever a skill is left out, it is said, through the BUILT binary: a warning line on stderr
// naming the skill and the reason for text output, a `failures` entry for --json, and exit 1.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skillMd, useTempTrees } from "./test-support.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const tree = useTempTrees();

function skillport(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      HOME: cwd,
      SKILLPORT_CACHE_DIR: path.join(cwd, ".cache"),
      FORCE_COLOR: undefined,
      NO_COLOR: "1",
    },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SKILLS = {
  "skills/good/SKILL.md": skillMd("good", "Says good things about a csv file. Use when the user asks for good things."),
  "skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n# No description\n",
  "skills/notes/readme.md": "# not a skill\n",
};
const WARNING = "warning  skipped fs:skills:nodesc: skill \"nodesc\": required field 'description' is missing\n";
const FAILURE = {
  source: "fs:skills",
  id: "nodesc",
  message: "skill \"nodesc\": required field 'description' is missing",
};

describe.runIf(existsSync(bin))("a skill left out of the catalog is reported", () => {
  it.each([
    ["list", ["list", "skills"]],
    ["prompt", ["prompt", "skills"]],
    ["prompt --format json", ["prompt", "skills", "--format", "json"]],
    ["tools", ["tools", "skills"]],
    ["search", ["search", "good things csv", "skills"]],
  ])(
    "%s: a warning line on stderr naming the skill and why, exit 1, the skill absent from stdout",
    async (_label, args) => {
      const dir = await tree(SKILLS);
      const run = skillport(args, dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(WARNING);
      expect(run.stdout).toContain("good");
      expect(run.stdout).not.toContain("nodesc");
    },
  );

  it("tools also notes the folder that is not a skill, as list does", async () => {
    const dir = await tree(SKILLS);
    expect(skillport(["tools", "skills"], dir).stderr).toContain(
      "note  fs:skills:notes is not a skill: the folder has no SKILL.md, so it is not a skill\n",
    );
  });

  it.each([
    ["list --json", ["list", "skills", "--json"]],
    ["search --json", ["search", "good things csv", "skills", "--json"]],
  ])("%s: the skill is in `failures`, exit 1", async (_label, args) => {
    const dir = await tree(SKILLS);
    const run = skillport(args, dir);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as { failures: unknown }).failures).toEqual([FAILURE]);
  });
});
