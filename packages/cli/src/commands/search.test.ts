// `search`: a limit of 0 and an empty query are usage errors (decision 0262).
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport search refuses questions that ask for nothing", () => {
  it.each([
    [
      "--limit 0",
      ["search", "a", "skills", "--limit", "0"],
      /^error: option '-n, --limit <n>' argument '0' is invalid\. expected a whole number ≥ 1, got "0"\n/,
    ],
    ["--limit -1", ["search", "a", "skills", "--limit", "-1"], /argument '-1' is invalid/],
    ["an empty query", ["search", "", "skills"], /^skillport: the query is empty/],
    ["a blank query", ["search", " \t", "skills"], /^skillport: the query is empty/],
  ])("%s: exit 2", async (_case, args, line) => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    const run = await runInProcess(args, dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(line);
  });

  it("--limit 1 is accepted", async () => {
    const dir = await tree({ "skills/a/SKILL.md": skillMd("a") });
    const run = await runInProcess(
      ["search", "a things", "skills", "--limit", "1", "--min-confidence", "0", "--no-cache"],
      dir,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^a {2}/);
  });
});
