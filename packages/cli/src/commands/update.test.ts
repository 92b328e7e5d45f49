// `update`: re-installs only the locked skills whose source changed, for the agents they were installed for.
import { lstatSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

const lockHash = (project: string, name: string) =>
  (
    JSON.parse(readFileSync(path.join(project, "skills-lock.json"), "utf8")) as {
      skills: Record<string, { computedHash: string }>;
    }
  ).skills[name]?.computedHash;

describe("skillport update", () => {
  it("re-installs the changed skill, keeps its agent's link, moves its lock hash, and says what changed", async () => {
    const dir = await tree({
      "src/skills/alpha/SKILL.md": skillMd("alpha"),
      "src/skills/beta/SKILL.md": skillMd("beta"),
      "project/": { dir: true },
    });
    const project = path.join(dir, "project");
    expect((await runInProcess(["add", "../src/skills", "--skill", "*", "--agent", "claude-code"], project)).code).toBe(
      0,
    );
    const before = { alpha: lockHash(project, "alpha"), beta: lockHash(project, "beta") };

    expect(await runInProcess(["update"], project)).toEqual({
      code: 0,
      stdout: "Everything is up to date.\n",
      stderr: "",
    });

    await writeFile(path.join(dir, "src/skills/beta/notes.md"), "new file\n");
    const run = await runInProcess(["update", "--json"], project);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const updated = (
      JSON.parse(run.stdout) as {
        updated: Array<{ name: string; from: string; to: string; changes: { added: string[] } | null }>;
      }
    ).updated;
    expect(updated.map((u) => u.name)).toEqual(["beta"]);
    expect(updated[0]!.from).toBe(before.beta);
    expect(updated[0]!.changes?.added).toEqual(["notes.md"]);
    expect(lockHash(project, "beta")).toBe(updated[0]!.to);
    expect(lockHash(project, "alpha")).toBe(before.alpha);
    expect(readFileSync(path.join(project, ".agents/skills/beta/notes.md"), "utf8")).toBe("new file\n");
    expect(lstatSync(path.join(project, ".claude/skills/beta")).isSymbolicLink()).toBe(true);
  });

  it("a name not in skills-lock.json: an error naming it", async () => {
    const dir = await tree({ "project/skills-lock.json": JSON.stringify({ version: 1, skills: {} }) });
    const run = await runInProcess(["update", "ghost"], path.join(dir, "project"));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^skillport: ghost: not in skills-lock\.json/);
  });
});
