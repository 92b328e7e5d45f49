// `install`: restores exactly what skills-lock.json names, for the agents recorded, verifying every digest.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { LocalFileSystemSkillProvider } from "@skillport/fs";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

async function locked(): Promise<{ dir: string; project: string }> {
  const dir = await tree({
    "src/skills/alpha/SKILL.md": skillMd("alpha"),
    "src/skills/alpha/run.sh": "echo a\n",
    "project/": { dir: true },
  });
  const project = path.join(dir, "project");
  expect((await runInProcess(["add", "../src/skills/alpha", "--agent", "claude-code"], project)).code).toBe(0);
  return { dir, project };
}

describe("skillport install", () => {
  it("restores a deleted install from the lockfiles, with the recorded agent's link", async () => {
    const { project } = await locked();
    await rm(path.join(project, ".agents"), { recursive: true });
    await rm(path.join(project, ".claude"), { recursive: true });
    const run = await runInProcess(["install"], project);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/^installed alpha \([0-9a-f]{12}\)\n$/);
    expect(readFileSync(path.join(project, ".agents/skills/alpha/run.sh"), "utf8")).toBe("echo a\n");
    expect(lstatSync(path.join(project, ".claude/skills/alpha")).isSymbolicLink()).toBe(true);
  });

  it("refuses a source that no longer matches the locked digest and writes nothing", async () => {
    const { dir, project } = await locked();
    await rm(path.join(project, ".agents"), { recursive: true });
    await writeFile(path.join(dir, "src/skills/alpha/run.sh"), "echo changed\n");
    const run = await runInProcess(["install"], project);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^skillport: .*alpha/);
    expect(existsSync(path.join(project, ".agents/skills/alpha"))).toBe(false);
  });

  it("lists a source's skills once for the whole lock, not once per skill", async () => {
    const dir = await tree({
      "src/skills/alpha/SKILL.md": skillMd("alpha"),
      "src/skills/beta/SKILL.md": skillMd("beta"),
      "src/skills/gamma/SKILL.md": skillMd("gamma"),
      "project/": { dir: true },
    });
    const project = path.join(dir, "project");
    const added = await runInProcess(
      ["add", "../src/skills", "--skill", "*", "--yes", "--agent", "claude-code"],
      project,
    );
    expect([added.code, added.stderr]).toEqual([0, ""]);
    await rm(path.join(project, ".agents"), { recursive: true });
    const discover = vi.spyOn(LocalFileSystemSkillProvider.prototype, "discover");
    try {
      const run = await runInProcess(["install", "--frozen"], project);
      expect([run.code, run.stderr]).toEqual([0, ""]);
      expect(run.stdout.match(/^installed /gm)).toHaveLength(3);
      expect(discover).toHaveBeenCalledTimes(1);
    } finally {
      discover.mockRestore();
    }
  });

  it("a lock naming no skills: exit 1, one line", async () => {
    const dir = await tree({ "project/skills-lock.json": JSON.stringify({ version: 1, skills: {} }) });
    const run = await runInProcess(["install"], path.join(dir, "project"));
    expect([run.code, run.stdout, run.stderr]).toEqual([1, "", "skillport: skills-lock.json names no skills\n"]);
  });
});
