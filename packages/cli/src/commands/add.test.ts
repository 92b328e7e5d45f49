// `add`: which skills and agents (the one agent-choosing rule), a copy or links, and nothing written on a usage error.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

async function project(): Promise<string> {
  const dir = await tree({
    "src/skills/alpha/SKILL.md": skillMd("alpha"),
    "src/skills/beta/SKILL.md": skillMd("beta"),
    "project/": { dir: true },
  });
  return path.join(dir, "project");
}

describe("skillport add", () => {
  it("--list names the source's skills and writes nothing", async () => {
    const cwd = await project();
    const run = await runInProcess(["add", "../src/skills", "--list", "--json"], cwd);
    expect(run.code).toBe(0);
    expect(JSON.stringify(JSON.parse(run.stdout))).toMatch(/alpha.*beta/);
    expect(existsSync(path.join(cwd, ".agents"))).toBe(false);
  });

  it("several skills and no --skill: exit 2 naming them, nothing written", async () => {
    const cwd = await project();
    const run = await runInProcess(["add", "../src/skills", "--agent", "claude-code"], cwd);
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toBe(
      "skillport: the source has 2 skills (alpha, beta); pass --skill NAME, --skill '*' or --yes\n",
    );
    expect(existsSync(path.join(cwd, "skills-lock.json"))).toBe(false);
  });

  it("an unknown agent id: exit 2 listing the known ones, nothing written", async () => {
    const cwd = await project();
    const run = await runInProcess(["add", "../src/skills", "--skill", "alpha", "--agent", "claude-code,nope"], cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^skillport: unknown agent "nope"; known agents: .*claude-code/);
    expect(existsSync(path.join(cwd, ".agents"))).toBe(false);
  });

  it("links by default, copies with --copy, and records both in the lock", async () => {
    const cwd = await project();
    expect((await runInProcess(["add", "../src/skills", "--skill", "alpha", "--agent", "claude-code"], cwd)).code).toBe(
      0,
    );
    expect(lstatSync(path.join(cwd, ".claude/skills/alpha")).isSymbolicLink()).toBe(true);
    const run = await runInProcess(
      ["add", "../src/skills", "--skill", "beta", "--agent", "claude-code", "--copy", "--json"],
      cwd,
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ installed: [{ name: "beta", agents: { "claude-code": "copy" } }] });
    expect(lstatSync(path.join(cwd, ".claude/skills/beta")).isDirectory()).toBe(true);
    const lock = JSON.parse(readFileSync(path.join(cwd, "skills-lock.json"), "utf8")) as {
      skills: Record<string, unknown>;
    };
    expect(Object.keys(lock.skills).sort()).toEqual(["alpha", "beta"]);
  });
});
