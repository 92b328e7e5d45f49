// Issue 19, terminal escapes: text from skills and from sandboxed or model output must never drive the operator's
// terminal. Runs the BUILT CLI (`npm run build` first) under a real pseudo-terminal (`script` from util-linux), with a
// table of hostile sequences placed in skill descriptions, bodies, files, folder and file names, sandboxed output and a
// model's answer, through every command that prints them (decision 0260).
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { tempTree, type TempTree } from "@skillport/testing";
import { startScriptedServer, type ScriptedServer } from "../../agent/test/scripted-server.js";
import { hasScript, isBuilt as built, runBuilt, runOnTerminal } from "./test-support.js";

const hasBwrap = findBubblewrap() !== undefined;

/** name, the raw sequence, how it must appear instead (visible, inert). */
const SEQUENCES = [
  ["osc52-bel", "\u001b]52;c;ZXZpbA==\u0007", "\\x1b]52;c;ZXZpbA==\\x07"],
  ["osc52-st", "\u001b]52;c;ZXZpbA==\u001b\\", "\\x1b]52;c;ZXZpbA==\\x1b\\"],
  ["osc0-title", "\u001b]0;pwned\u0007", "\\x1b]0;pwned\\x07"],
  ["csi-clear", "\u001b[2J\u001b[H", "\\x1b[2J\\x1b[H"],
  ["dcs-decrqss", "\u001bP$qm\u001b\\", "\\x1bP$qm\\x1b\\"],
  ["c1-csi", "\u009b6n", "\\x9b6n"],
  ["c1-osc", "\u009d0;pwned\u009c", "\\x9d0;pwned\\x9c"],
  ["raw-esc-reset", "\u001bc", "\\x1bc"],
  ["bidi-override", "\u202eevil", "\\u202eevil"],
  // A lone carriage return would overwrite the line; whitespace folding may turn it into a space, also inert.
  ["carriage-return", "\rfake-line", "fake-line"],
] as const;

const ALL_RAW = SEQUENCES.map(([name, raw]) => `<${name}:${raw}>`).join(" ");
// What a terminal must never receive: C0 but tab/LF (CR only as the pty's own line end), DEL, C1, bidi controls.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
// The CLI's own sequences, the only kind allowed through: its colours, and the status line's erase-line (`io.status`,
// chat's waiting indicator).
const OWN_STYLE = /\u001b\[(?:1|2|22|3[1-6]|39)m|\u001b\[2?K/gu;

const onTerminal = async (args: readonly string[], cwd: string, env: Record<string, string> = {}) =>
  (await runOnTerminal(args, cwd, env)).output;

function expectInert(output: string, sequences: readonly (typeof SEQUENCES)[number][] = SEQUENCES): void {
  const withoutOwnStyles = output.replace(OWN_STYLE, "");
  expect(withoutOwnStyles).not.toMatch(RAW_CONTROL);
  // The hostile text was printed (so the check above is not vacuous), in its visible form.
  for (const [, , shown] of sequences) expect(output).toContain(shown);
}

/** A YAML double-quoted form of the text: every character outside printable ASCII as a \u escape. */
const yamlEscaped = (text: string) =>
  text.replace(/[^\x20-\x7e]|["\\]/gu, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);

let work: TempTree;
let server: ScriptedServer;
beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const [name, raw] of SEQUENCES) {
    files[`skills/seq-${name}/SKILL.md`] =
      `---\nname: seq-${name}\ndescription: "Shows ${yamlEscaped(raw)} here. Use when testing escapes."\n---\n# Body\n\n${ALL_RAW}\n`;
  }
  files["skills/seq-osc0-title/notes.txt"] = `${ALL_RAW}\n`;
  files["skills/styled/SKILL.md"] =
    "---\nname: styled\ndescription: A body that colours itself. Use when testing escapes.\n---\n\u001b[31mRED\u001b[39m \u001b[1mBOLD\u001b[22m\n";
  files["package/skills/plain/SKILL.md"] =
    "---\nname: plain\ndescription: A plain skill for the deploy test. Use when testing.\n---\n# Plain\n";
  files["package/entrypoint.sh"] = "#!/usr/bin/env bash\ncat payload.txt\nexit 1\n";
  files["package/payload.txt"] = `${ALL_RAW}\n`;
  files["ws/payload.txt"] = `${ALL_RAW}\n`;
  work = await tempTree(files, "skillport-escapes-");
  // Names the fs policy reports (a folder that is not a skill id, a file name that is unsafe): they are printed too.
  await mkdir(path.join(work.dir, "skills", `bad-${SEQUENCES[2][1]}`));
  await writeFile(path.join(work.dir, "skills/seq-csi-clear", `n-${SEQUENCES[0][1]}.txt`), "x");
  await chmod(path.join(work.dir, "package/entrypoint.sh"), 0o755);
  server = await startScriptedServer([{ text: ALL_RAW }]);
}, 30_000);
afterAll(async () => {
  await server?.close();
  await work?.cleanup();
});

describe.skipIf(!built || !hasScript)("hostile terminal sequences through the built CLI on a terminal", () => {
  it.each([
    ["list", ["list", "skills"]],
    ["show (metadata, files, body)", ["show", "seq-osc0-title", "-r", "skills"]],
    ["show --file", ["show", "seq-osc0-title", "-r", "skills", "--file", "notes.txt"]],
    ["search", ["search", "escapes", "skills", "-n", "20", "--min-confidence", "0", "--no-cache"]],
    ["prompt", ["prompt", "skills"]],
  ])("%s", async (_name, args) => {
    expectInert(await onTerminal(args, work.dir));
  });

  it("validate names hostile folder and file names inertly", async () => {
    const output = await onTerminal(["validate", "skills"], work.dir);
    expectInert(output, [SEQUENCES[0], SEQUENCES[2]]);
    expect(output).toContain("bad-\\x1b]0;pwned\\x07");
  });

  it("data never passes a colour sequence, not even one the CLI itself uses", async () => {
    const output = await onTerminal(["show", "styled", "-r", "skills"], work.dir);
    expect(output).toContain("\\x1b[31mRED\\x1b[39m \\x1b[1mBOLD\\x1b[22m");
    expect(output).not.toContain("\u001b[31mRED");
  });

  it("with NO_COLOR no escape at all reaches the terminal", async () => {
    const output = await onTerminal(["list", "skills"], work.dir, { NO_COLOR: "1" });
    expect(output).not.toContain("\u001b");
    expectInert(output);
  });

  it.skipIf(!hasBwrap)(
    "exec: sandboxed output",
    async () => {
      expectInert(await onTerminal(["exec", "-w", "ws", "--", "cat payload.txt"], work.dir));
    },
    60_000,
  );

  it.skipIf(!hasBwrap)(
    "deploy: a failing entrypoint's output",
    async () => {
      expectInert(await onTerminal(["deploy", "package", "-w", "deployed"], work.dir));
    },
    60_000,
  );

  it("chat -p: the model's answer", async () => {
    expectInert(
      await onTerminal(
        ["chat", "-m", "openai:test", "--base-url", `${server.url}/v1`, "-p", "hi", "skills"],
        work.dir,
        { OPENAI_API_KEY: "sk-test" },
      ),
    );
  }, 60_000);
});

describe.skipIf(!built)("the same text into a pipe", () => {
  const piped = (args: string[]) => runBuilt(args, work.dir);

  it("data stays byte-exact: a skill body, a file, the catalog", () => {
    expect(piped(["show", "seq-osc0-title", "-r", "skills"]).stdout.toString("utf8")).toContain(ALL_RAW);
    expect(piped(["show", "seq-osc0-title", "-r", "skills", "--file", "notes.txt"]).stdout.toString("utf8")).toBe(
      `${ALL_RAW}\n`,
    );
    expect(piped(["prompt", "skills"]).stdout.toString("utf8")).toContain(SEQUENCES[0][1]);
  });

  it("text for people (listings, messages) is neutralised everywhere", () => {
    const run = piped(["list", "skills"]);
    expectInert(run.stdout.toString("utf8") + run.stderr.toString("utf8"));
  });

  it("JSON carries every control and bidi character as a \\u escape: the same value, nothing raw", () => {
    const run = piped(["list", "skills", "--json"]);
    const text = run.stdout.toString("utf8");
    expect(text).not.toMatch(RAW_CONTROL);
    const parsed = JSON.parse(text) as { skills: { id: string; description: string }[] };
    expect(parsed.skills.find((s) => s.id === "seq-c1-csi")?.description).toContain("\u009b6n");
  });
});
