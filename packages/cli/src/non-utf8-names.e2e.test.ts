// Folder names that are not UTF-8 (issue 20, item 6; docs/decisions/0281), through the BUILT binary. Each command
// used to say "the folder has no SKILL.md" (false), copy 0 skills silently, or print ENOENT on a mangled name; now
// each names the folder with its bad bytes written \xHH, says the name is not valid UTF-8, and exits non-zero.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
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
    env: { ...process.env, HOME: cwd, FORCE_COLOR: undefined, NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `<dir>/<parent>/caf\xFF/SKILL.md`, a valid skill in a folder whose name is not UTF-8. */
function badSkill(dir: string, parent: string): void {
  const folder = Buffer.concat([Buffer.from(path.join(dir, parent, "caf")), Buffer.from([0xff])]);
  mkdirSync(folder, { recursive: true });
  writeFileSync(Buffer.concat([folder, Buffer.from("/SKILL.md")]), skillMd("cafe"));
}

const SAID = 'the folder name "caf\\xFF" is not valid UTF-8';

describe.runIf(existsSync(bin))("a skill folder whose name is not UTF-8", () => {
  it.each([
    ["validate", ["validate", "skills"], "stdout", `skills/caf\\xFF/  error  skill-id-not-utf8  ${SAID}`],
    ["list", ["list", "skills"], "stderr", `skipped fs:skills:caf\\xFF: skipped: ${SAID}`],
    ["prompt", ["prompt", "skills"], "stderr", `skipped fs:skills:caf\\xFF: skipped: ${SAID}`],
    ["tools", ["tools", "skills"], "stderr", `skipped fs:skills:caf\\xFF: skipped: ${SAID}`],
    ["copy", ["copy", "skills", "out"], "stdout", `failed  caf\\xFF: ${SAID}`],
  ] as const)("%s names it, says the name is not valid UTF-8, and exits 1", async (_command, args, stream, line) => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good") });
    badSkill(dir, "skills");
    const run = skillport([...args], dir);
    expect(run.code, run.stderr).toBe(1);
    expect(run[stream]).toContain(line);
    expect(run.stdout + run.stderr).not.toMatch(/has no SKILL\.md|ENOENT|\uFFFD/);
  });

  it("list --json counts it in failures", async () => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good") });
    badSkill(dir, "skills");
    const run = skillport(["list", "skills", "--json"], dir);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      skills: Array<{ id: string }>;
      failures: Array<{ id: string; message: string }>;
    };
    expect(report.skills.map((s) => s.id)).toEqual(["good"]);
    expect(report.failures).toEqual([
      {
        source: "fs:skills",
        id: "caf\\xFF",
        message: `skipped: ${SAID} (bad bytes shown as \\xHH); rename it to serve the skill`,
      },
    ]);
  });

  it("copy of a root holding only that skill copies 0 and says why, exit 1 (not a silent 0)", async () => {
    const dir = await tree({ "skills/": { dir: true } });
    badSkill(dir, "skills");
    const run = skillport(["copy", "skills", "out", "--json"], dir);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      copied: [],
      failed: [{ id: "caf\\xFF", message: expect.stringContaining(SAID) }],
    });
  });

  it("pack refuses the package with one line naming the path, exit 2, no ENOENT", async () => {
    const dir = await tree({ "pkg/skills/good/SKILL.md": skillMd("good") });
    badSkill(dir, "pkg/skills");
    const run = skillport(["pack", "pkg"], dir);
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toMatch(/^skillport: invalid path "skills\/caf\\\\xFF": is not valid UTF-8; rename it\n$/);
  });
});
