// Runs the BUILT binary (packages/cli/dist/cli.js) the way users do; `npm test` builds before testing.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skillMd, tempTree } from "./test-support.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");

function skillport(args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.runIf(existsSync(bin))("the built skillport binary", () => {
  it("prints help listing every command, exit 0", () => {
    const run = skillport(["--help"]);
    expect(run.code).toBe(0);
    for (const command of [
      "validate",
      "list",
      "show",
      "prompt",
      "search",
      "init",
      "pack",
      "inspect",
      "unpack",
      "export",
      "import",
      "deploy",
      "exec",
      "plugin",
      "demo",
    ])
      expect(run.stdout).toContain(command);
  });

  it.each([["--version"], ["-V"], ["list", "--version"]])(
    "answers %s with the package version (fast path and parser agree)",
    (...args) => {
      const run = skillport(args);
      expect([run.code, run.stdout, run.stderr]).toEqual([
        0,
        `${(JSON.parse(readFileSync(path.join(repo, "packages/cli/package.json"), "utf8")) as { version: string }).version}\n`,
        "",
      ]);
    },
  );

  it("validates the bundled examples under the lenient profile", () => {
    const run = skillport(["validate", "examples/skills", "--profile", "lenient", "--format", "json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.summary).toMatchObject({ skills: 5, errors: 0 });
    expect(report.skills.map((s: { name: string }) => s.name)).toEqual([
      "api-healthcheck",
      "csv-insights",
      "git-changelog",
      "weather-brief",
      "数据清洗",
    ]);
  });

  it("fails spec validation of the AgentScope-style example with exit 1 and the rule named", () => {
    const run = skillport(["validate", "examples/skills/weather-brief"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/weather-brief\/SKILL\.md:\d+:1 {2}error {2}field-unexpected/);
  });

  it("runs the main job (npm start) end to end on the bundled examples", () => {
    const run = skillport(["demo"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("5 skills checked: 0 errors");
    expect(run.stdout).toContain("<available_skills>");
    expect(run.stdout).toMatch(/versionId [0-9a-f]{24}/);
    expect(run.stdout).toMatch(/entrypoint [0-9a-f]{24}: ran — entrypoint: 3 skills ready/);
    expect(run.stdout).toMatch(/word-stats +projects\/[0-9a-f]{24}\/skills\/word-stats\/SKILL\.md/);
    expect(run.stdout).toMatch(/lines \d+\n +words \d+/);
  });

  it("stops quietly when the reader closes the pipe early", async () => {
    // More output than a pipe buffers (64 KiB), so writes continue after `head` has gone.
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++)
      files[`s/skill-${i}/SKILL.md`] = skillMd(`skill-${i}`, `${"Long description. ".repeat(30)}Use when testing.`);
    const { dir, cleanup } = await tempTree(files);
    try {
      const result = spawnSync("sh", ["-c", `"${process.execPath}" "${bin}" prompt s | head -c 1 >/dev/null`], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(result.status).toBe(0);
      expect(result.stderr).toBe("");
    } finally {
      await cleanup();
    }
  });

  it("exits 2 on a usage error with a one-line message and no stack trace", () => {
    const run = skillport(["validate", "--format", "yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const unknown = skillport(["frobnicate"]);
    expect(unknown.code).toBe(2);
  });
});

it("the binary exists once built (npm test builds first)", () => {
  expect(existsSync(bin), `${bin} missing: run npm run build`).toBe(true);
});
