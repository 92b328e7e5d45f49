// Issue 20 item 17: colours follow the usual conventions (decision 0264). The BUILT CLI, into a pipe and on a
// pseudo-terminal; `list` draws its ids in bold when colours are on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempTree, type TempTree } from "@skillport/testing";
import { hasScript, isBuilt, runBuilt, runOnTerminal, skillMd } from "./test-support.js";

let work: TempTree;
beforeAll(async () => {
  work = await tempTree({ "skills/a/SKILL.md": skillMd("a") }, "skillport-color-");
});
afterAll(() => work?.cleanup());

const BOLD_ID = "\u001b[1ma";

/** [case, extra arguments, environment, colours expected] */
const PIPED: [string, string[], Record<string, string>, boolean][] = [
  ["nothing set", [], {}, false],
  ["FORCE_COLOR=1", [], { FORCE_COLOR: "1" }, true],
  ["FORCE_COLOR=3", [], { FORCE_COLOR: "3" }, true],
  ["FORCE_COLOR=true", [], { FORCE_COLOR: "true" }, true],
  ["FORCE_COLOR=0", [], { FORCE_COLOR: "0" }, false],
  ["FORCE_COLOR=false", [], { FORCE_COLOR: "false" }, false],
  ["FORCE_COLOR empty", [], { FORCE_COLOR: "" }, false],
  ["--color", ["--color"], {}, true],
  ["--no-color beats FORCE_COLOR=1", ["--no-color"], { FORCE_COLOR: "1" }, false],
  ["NO_COLOR beats FORCE_COLOR", [], { NO_COLOR: "1", FORCE_COLOR: "1" }, false],
  ["--color beats NO_COLOR", ["--color"], { NO_COLOR: "1" }, true],
  ["the flag before the command", ["--no-color", "list", "skills"], { FORCE_COLOR: "1" }, false],
];

const TERMINAL: [string, string[], Record<string, string>, boolean][] = [
  ["nothing set", [], {}, true],
  ["--no-color", ["--no-color"], {}, false],
  ["NO_COLOR=1", [], { NO_COLOR: "1" }, false],
  ["NO_COLOR empty is ignored", [], { NO_COLOR: "" }, true],
  ["FORCE_COLOR=0", [], { FORCE_COLOR: "0" }, false],
  ["TERM=dumb", [], { TERM: "dumb" }, false],
];

describe.skipIf(!isBuilt)("colours into a pipe", () => {
  it.each(PIPED)("%s", (_case, flags, env, coloured) => {
    const run = runBuilt(flags.includes("list") ? flags : ["list", "skills", ...flags], work.dir, env);
    expect(run.code).toBe(0);
    expect(run.stdout.toString().includes(BOLD_ID)).toBe(coloured);
    if (!coloured) expect(run.stdout.toString()).not.toContain("\u001b");
  });
});

describe.skipIf(!isBuilt || !hasScript)("colours on a terminal", () => {
  it.each(TERMINAL)("%s", async (_case, flags, env, coloured) => {
    const { code, output } = await runOnTerminal(["list", "skills", ...flags], work.dir, env);
    expect(code).toBe(0);
    expect(output.includes(BOLD_ID)).toBe(coloured);
    if (!coloured) expect(output).not.toContain("\u001b");
  });
});
