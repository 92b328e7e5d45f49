import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Skill } from "@skillport/core";
import { findBubblewrap } from "@skillport/sandbox";
import { isInside } from "@skillport/fs";
import { makeTempDir, removeDir } from "@skillport/testing";
import { checkShellCommand, DEFAULT_ALLOWED_COMMANDS, resultText, SkillBox } from "../index.js";

const hasBwrap = findBubblewrap() !== undefined;
if (!hasBwrap && process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
  throw new Error("bwrap is required (SKILLPORT_REQUIRE_SYSTEM_DEPS is set)");

let root: string;
let outside: string;
let box: SkillBox;
const approvals: string[] = [];
const call = async (name: string, args: unknown) => {
  const r = await box.callTool(name, args);
  return { text: resultText(r), isError: r.isError, details: r.details };
};

beforeAll(async () => {
  root = await makeTempDir("skillport-code-exec-");
  outside = await makeTempDir("skillport-outside-");
  writeFileSync(path.join(outside, "secret.txt"), "TOP SECRET\n");
  box = new SkillBox();
  await box.registerSkill(
    Skill.builder()
      .name("tool")
      .description("A tool skill.")
      .skillContent("# Tool\n")
      .addResource("scripts/hi.py", "print('hi')\n")
      .addResource("references/doc.md", "doc\n")
      .addResource("lib/x.js", "1\n")
      .build(),
  );
  box
    .codeExecution()
    .workDir(path.join(root, "work"))
    .withShell({ approve: ({ command }) => (approvals.push(command), command === "echo approved"), timeoutSeconds: 1 })
    .withRead()
    .withWrite()
    .sandbox({ kind: hasBwrap ? "bubblewrap" : "process" })
    .enable();
  const work = box.codeExecutionConfig!.workDir;
  writeFileSync(path.join(work, "notes.txt"), "one\ntwo\nthree\n");
  symlinkSync(path.join(outside, "secret.txt"), path.join(work, "leak.txt"));
  symlinkSync(outside, path.join(work, "outdir"));
});
afterAll(async () => {
  await box.close();
  await removeDir(root);
  await removeDir(outside);
});

describe("the builder", () => {
  it("fileFilter and includeFolders/includeExtensions are mutually exclusive", () => {
    expect(() =>
      new SkillBox()
        .codeExecution()
        .fileFilter(() => true)
        .includeFolders(["x/"])
        .enable(),
    ).toThrow(/cannot be combined/);
  });

  it("uploads scripts/, assets/ and .py/.js/.sh on load, under <uploadDir>/<skill-id>/", async () => {
    const loaded = await call("load_skill_through_path", { skillId: "tool_custom", path: "SKILL.md" });
    const dir = path.join(box.codeExecutionConfig!.uploadDir, "tool_custom");
    // Outside the work dir (decision 0231): the model writes there and must not rewrite a skill's scripts.
    expect(isInside(box.codeExecutionConfig!.workDir, box.codeExecutionConfig!.uploadDir)).toBe(false);
    expect(loaded.text).toContain(`Its scripts and assets are in ${dir}/ (2 files).`);
    expect([
      existsSync(path.join(dir, "scripts/hi.py")),
      existsSync(path.join(dir, "lib/x.js")),
      existsSync(path.join(dir, "references/doc.md")),
    ]).toEqual([true, true, false]);
  });

  it("the default instructions only suggest commands the allow-list admits (upstream said 'use ls')", () => {
    const section = box.codeExecutionConfig!.promptSection();
    const examples = section
      .split("\n")
      .filter((l) => l.startsWith("Example: "))
      .map((l) => l.slice("Example: ".length));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples)
      expect(
        checkShellCommand(example.replace(/<[^>]+>/g, "x"), { allowedCommands: DEFAULT_ALLOWED_COMMANDS, workDir: "/" })
          .ok,
      ).toBe(true);
    expect(section).not.toMatch(/\bls\b/);
    const custom = new SkillBox();
    const exec = custom.codeExecution().codeExecutionInstruction("Scripts: %s and %s").enable();
    expect(exec.promptSection()).toBe(`Scripts: ${exec.uploadDir} and ${exec.uploadDir}`);
  });
});

describe("file tools are confined to the work dir by real path", () => {
  it.each([
    [
      "view_text_file",
      { file_path: "notes.txt", ranges: "2,3" },
      false,
      "The content of notes.txt in lines [2, 3]:\n```\n2: two\n3: three\n```",
    ],
    ["view_text_file", { file_path: "notes.txt", ranges: [-1, -1] }, false, "3: three"],
    ["view_text_file", { file_path: "leak.txt" }, true, "outside its directory"],
    ["view_text_file", { file_path: "outdir/secret.txt" }, true, "outside its directory"],
    ["view_text_file", { file_path: "../../etc/passwd" }, true, "is outside the work directory"],
    ["view_text_file", { file_path: "/etc/passwd" }, true, "is outside the work directory"],
    ["list_directory", { dir_path: "outdir" }, true, "resolves outside its directory"],
    ["write_text_file", { file_path: "outdir/planted.txt", content: "x" }, true, "resolves outside its directory"],
    ["write_text_file", { file_path: "leak.txt", content: "overwritten" }, true, "resolves outside its directory"],
    [
      "insert_text_file",
      { file_path: "notes.txt", content: "zero", line_number: 9 },
      true,
      "not in the valid range [1, 4]",
    ],
  ])("%s %j", async (tool, args, isError, expected) => {
    const result = await call(tool, args);
    expect(result.isError).toBe(isError);
    expect(result.text).toContain(expected);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
  });

  it("writes, replaces ranges and inserts lines", async () => {
    expect((await call("write_text_file", { file_path: "sub/new.txt", content: "a\nb\nc\n" })).text).toBe(
      "Created and wrote sub/new.txt successfully.",
    );
    await call("write_text_file", { file_path: "sub/new.txt", content: "B", ranges: "2,2" });
    await call("insert_text_file", { file_path: "sub/new.txt", content: "start", line_number: 1 });
    expect(readFileSync(path.join(box.codeExecutionConfig!.workDir, "sub/new.txt"), "utf8")).toBe("start\na\nB\nc\n");
    expect((await call("list_directory", {})).text).toContain(
      `  ${path.join(box.codeExecutionConfig!.workDir, "outdir")} (link)\n`,
    );
  });
});

describe("execute_shell_command", () => {
  it.each([
    ["python3 -c \"print('ok')\"", "<returncode>0</returncode><stdout>ok\n</stdout><stderr></stderr>", false],
    [
      "python3 -c 'print(1)'; rm -rf /",
      '<returncode>-1</returncode><stdout></stdout><stderr>Error: command refused: command "rm" is not allowed',
      true,
    ],
    ["python3 $(cat /etc/passwd)", '<stderr>Error: command refused: command "cat" is not allowed', true],
    ["python3 `id`", 'command "id" is not allowed', true],
    ["python3 -c 'print(1)' > /tmp/x", "redirection '> /tmp/x' leaves the work directory", true],
    [
      "python3 ${a[i]}",
      "<stderr>Error: command refused: cannot check this command: subscript in '${a[i]}' must be a written-out number, @ or * (subscripts are arithmetic) (at character 9) (and not approved)</stderr>",
      true,
    ],
    ['python3 "${x@P}"', "prompt expansion '${x@P}' is not supported (it runs commands held in the variable)", true],
    ["echo approved", "<returncode>0</returncode><stdout>approved\n</stdout>", false],
    [
      "python3 -c 'import time; time.sleep(5)'",
      "TimeoutError: the command ran longer than 1 seconds and was stopped.",
      true,
    ],
  ])("%j", async (command, expected, isError) => {
    const result = await call("execute_shell_command", { command });
    expect(result.text).toContain(expected);
    expect(result.isError).toBe(isError);
  });

  it("asks the approval callback only about commands the policy refuses", () => {
    expect(approvals).toContain("echo approved");
    expect(approvals).toContain("python3 ${a[i]}"); // issue 19: evaluating expansions reach approve(), never run unasked
    expect(approvals).not.toContain("python3 -c \"print('ok')\"");
  });

  it.skipIf(!hasBwrap)("runs in bubblewrap: only the work dir is writable and host secrets are not there", async () => {
    const result = await call("execute_shell_command", {
      command: `python3 -c "import os; print(os.path.exists('/etc/shadow'), os.path.exists('${outside}')); open('/usr/x','w')"`,
    });
    expect(result.text).toMatch(
      /^<returncode>1<\/returncode><stdout>False False\n<\/stdout><stderr>[\s\S]*(Read-only|Permission)/,
    );
    expect(result.details).toMatchObject({ sandbox: "bubblewrap", isolates: true });
  });

  it("the process sandbox runs only when asked for, and says it isolates nothing", async () => {
    const plain = new SkillBox();
    plain.codeExecution().withShell().sandbox({ kind: "process" }).enable();
    const result = await plain.callTool("execute_shell_command", { command: "python3 -c 'print(2)'" });
    expect(result.details).toMatchObject({
      sandbox: "process",
      isolates: false,
      warnings: [expect.stringContaining("does not isolate")],
    });
    await plain.close();
  });
});
