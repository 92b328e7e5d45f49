// `remove`: an installed skill leaves every agent's folder, the canonical copy and both lockfiles; nothing else goes.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

async function installed(): Promise<string> {
  const dir = await tree({
    "src/skills/alpha/SKILL.md": skillMd("alpha"),
    "src/skills/beta/SKILL.md": skillMd("beta"),
    "project/": { dir: true },
  });
  const project = path.join(dir, "project");
  const run = await runInProcess(["add", "../src/skills", "--skill", "*", "--agent", "claude-code"], project);
  expect([run.code, run.stderr]).toEqual([0, ""]);
  return project;
}

const lockNames = (project: string) =>
  Object.keys(
    (JSON.parse(readFileSync(path.join(project, "skills-lock.json"), "utf8")) as { skills: object }).skills,
  ).sort();

describe("skillport remove", () => {
  it("removes the link, the canonical copy and the lock entry of one skill, and keeps the other", async () => {
    const project = await installed();
    expect(lstatSync(path.join(project, ".claude/skills/alpha")).isSymbolicLink()).toBe(true);
    const run = await runInProcess(["remove", "alpha", "--json"], project);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout)).toEqual({ removed: ["alpha"] });
    expect(existsSync(path.join(project, ".agents/skills/alpha"))).toBe(false);
    expect(lstatSync(path.join(project, ".claude/skills/alpha"), { throwIfNoEntry: false })).toBeUndefined();
    expect(existsSync(path.join(project, ".agents/skills/beta/SKILL.md"))).toBe(true);
    expect(lockNames(project)).toEqual(["beta"]);
    const listed = await runInProcess(["list", "--installed", "--json"], project);
    expect((JSON.parse(listed.stdout) as { installed: Array<{ name: string }> }).installed.map((r) => r.name)).toEqual([
      "beta",
    ]);
  });

  it("a name that is not installed: an error naming it, and nothing removed", async () => {
    const project = await installed();
    const run = await runInProcess(["remove", "gamma"], project);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^skillport: .*gamma/);
    expect(lockNames(project)).toEqual(["alpha", "beta"]);
  });
});
