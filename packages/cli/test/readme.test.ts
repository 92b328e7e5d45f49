// "The README is executable" (issue 9): a fresh clone, the README's set-up command, then every command of the
// README's CLI tour exactly as printed (`$ …` lines in ```console blocks), run by `sh` in the clone. Where the
// README shows output, the command's output must match it: whitespace runs compare equal, and `…` stands for any
// text (a line of its own: any lines). A command whose shown output ends with `✖` (problems found) must exit 1;
// every other command must exit 0. Slow: a clone and an `npm ci`.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../", import.meta.url));

interface TourStep {
  command: string;
  /** The output the README shows, or undefined when it shows none. */
  expected: string | undefined;
}

/** The `$ command` lines of every ```console block, each with the output lines printed under it. */
function tourSteps(markdown: string): TourStep[] {
  const steps: TourStep[] = [];
  let inConsole = false;
  let current: { command: string; output: string[] } | undefined;
  const flush = () => {
    if (current)
      steps.push({
        command: current.command,
        expected: current.output.length === 0 ? undefined : current.output.join("\n"),
      });
    current = undefined;
  };
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      flush();
      inConsole = !inConsole && line.trim() === "```console";
    } else if (inConsole && line.startsWith("$ ")) {
      flush();
      current = { command: line.slice(2), output: [] };
    } else if (inConsole && current) {
      current.output.push(line);
    }
  }
  return steps;
}

const normalize = (text: string) =>
  text
    .replace(/\s+/g, " ")
    .replace(/([[{]) /g, "$1")
    .replace(/ ([\]}])/g, "$1")
    .trim();

/** Whether `actual` is what the README shows, with `…` as a wildcard. */
function matchesShown(actual: string, shown: string): boolean {
  const pattern = normalize(shown)
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`, "s").test(normalize(actual));
}

describe("matchesShown", () => {
  it.each([
    ["a  b\n", "a b", true],
    ["x 1\ny 2\nz 3\n", "x 1\n…\nz 3", true],
    [
      '{\n  "a": 1,\n  "b": [\n    {\n      "n": "x",\n      "d": "y"\n    }\n  ]\n}',
      '{ "a": 1, "b": [ { "n": "x", … } ] }',
      true,
    ],
    ["x 1\n", "x 2", false],
    ["x 1\nextra\n", "x 1", false],
  ])("%j vs %j → %s", (actual, shown, expected) => {
    expect(matchesShown(actual, shown)).toBe(expected);
  });
});

const readme = readFileSync(path.join(repo, "README.md"), "utf8");
const steps = tourSteps(readme);
let clone: string;

describe("the README's CLI tour, run as printed on a fresh clone", () => {
  beforeAll(async () => {
    clone = mkdtempSync(path.join(tmpdir(), "skillport-readme-"));
    const run = (command: string, args: string[]) => {
      const result = spawnSync(command, args, { cwd: clone, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      expect(result.status, `${command} ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
    };
    run("git", ["clone", "--quiet", repo, "."]);
    // The README's set-up command: `npm ci && npm start`. `npm start` serves a registry until Ctrl-C: stop it like
    // a terminal does (SIGINT to its process group) once it prints the MCP line; it must exit 0.
    run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"]);
    const start = spawn("npm", ["start"], { cwd: clone, detached: true, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    start.stdout.on("data", (d: Buffer) => {
      output += d.toString();
      if (/\n {2}MCP: /.test(output)) process.kill(-(start.pid as number), "SIGINT");
    });
    start.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => start.once("exit", resolve));
    expect(code, output).toBe(0);
    expect(output).toContain("registry stopped");
  }, 900_000);
  afterAll(() => rmSync(clone, { recursive: true, force: true }));

  it("finds the tour (a dozen commands or more)", () => {
    expect(steps.length).toBeGreaterThanOrEqual(12);
  });

  it.each(steps.map((step) => [step.command, step] as const))("$ %s", (_command, step) => {
    const result = spawnSync("sh", ["-c", step.command], {
      cwd: clone,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 300_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    const problems = step.expected?.trimEnd().split("\n").at(-1)?.startsWith("✖") ?? false;
    expect(result.status, output).toBe(problems ? 1 : 0);
    if (step.expected !== undefined)
      expect(
        matchesShown(result.stdout, step.expected) || matchesShown(output, step.expected),
        `shown:\n${step.expected}\n\ngot:\n${output}`,
      ).toBe(true);
  });
});
