// `show`: a file's bytes as they are (issue 20 item 3), and the real reason a skill cannot be shown (item 7).
// The pipe and terminal cases run the BUILT CLI (`npm run build`).
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hasScript, isBuilt, runBuilt, runInProcess, runOnTerminal, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

/** A folder of skills whose `blob` skill holds 4 KiB of random bytes (not UTF-8), and a SQLite copy of it. */
async function binaryFixture(): Promise<{ dir: string; bytes: Buffer }> {
  const dir = await tree({ "skills/blob/SKILL.md": skillMd("blob") });
  let bytes = randomBytes(4096);
  // Make sure it is not valid UTF-8 (random bytes almost never are; this makes it certain).
  bytes = Buffer.concat([Buffer.from([0xff, 0x00]), bytes.subarray(2)]);
  await writeFile(path.join(dir, "skills/blob/data.bin"), bytes);
  const copied = runBuilt(["copy", "skills", "sqlite:./skills.db"], dir);
  expect(copied.code, copied.stderr.toString()).toBe(0);
  return { dir, bytes };
}

describe.skipIf(!isBuilt)("show --file prints the file's bytes", () => {
  it.each([
    ["a folder of skills", ["show", "blob", "-r", "skills"]],
    ["a skill path", ["show", "skills/blob"]],
    ["a SQLite source", ["show", "blob", "-r", "sqlite:./skills.db"]],
  ])("4 KiB of random bytes come through a pipe byte-identical (%s)", async (_source, args) => {
    const { dir, bytes } = await binaryFixture();
    const run = runBuilt([...args, "--file", "data.bin"], dir);
    expect(run.stderr.toString()).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.equals(bytes)).toBe(true);
  });

  it("--json gives a binary file as base64 (and says so), a text file as text", async () => {
    const { dir, bytes } = await binaryFixture();
    const binary = JSON.parse(
      runBuilt(["show", "blob", "-r", "skills", "--file", "data.bin", "--json"], dir).stdout.toString(),
    ) as { encoding: string; content: string; size: number };
    expect(binary).toMatchObject({ encoding: "base64", size: 4096 });
    expect(Buffer.from(binary.content, "base64").equals(bytes)).toBe(true);
    const text = JSON.parse(
      runBuilt(["show", "blob", "-r", "skills", "--file", "SKILL.md", "--json"], dir).stdout.toString(),
    ) as { encoding: string; content: string };
    expect(text).toEqual(expect.objectContaining({ encoding: "utf8", content: skillMd("blob") }));
  });

  it.skipIf(!hasScript)("on a terminal a binary file is one line that says what it is and how to save it", async () => {
    const { dir } = await binaryFixture();
    const { code, output } = await runOnTerminal(
      ["show", "blob", "-r", "sqlite:./skills.db", "--file", "data.bin"],
      dir,
    );
    expect(code).toBe(0);
    expect(output).toBe(
      "data.bin: binary file, 4096 bytes, not printed on a terminal; redirect it: skillport show blob --file data.bin > data.bin\n",
    );
  });
});

describe("show says why a skill cannot be shown, as list does", () => {
  it.each([
    ["broken YAML", "---\nname: x\ndescription: [unclosed\n---\nbody\n", /invalid YAML/],
    [
      "latin-1 bytes",
      Buffer.from("---\nname: x\ndescription: caf\xe9 things\n---\nbody\n", "latin1"),
      /not valid UTF-8/,
    ],
    [
      "a SKILL.md over the size limit",
      `---\nname: x\ndescription: big\n---\n${"a".repeat(11 * 1024 * 1024)}`,
      /larger than the \d+-byte limit/,
    ],
  ])("%s", async (_case, content, reason) => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good"), "skills/x/SKILL.md": "placeholder" });
    await writeFile(path.join(dir, "skills/x/SKILL.md"), content);
    const listed = await runInProcess(["list", "skills"], dir);
    expect(listed.stderr).toMatch(reason);
    for (const id of ["x", "fs:skills:x"]) {
      const shown = await runInProcess(["show", id, "-r", "skills"], dir);
      expect(shown.code).toBe(2);
      expect(shown.stderr).toMatch(/^skillport: cannot load skill "[^"]+" \(fs:skills:x\): /);
      expect(shown.stderr).toMatch(reason);
      expect(shown.stderr).not.toContain("no skill");
      expect(shown.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("a folder that is not a skill is named as such", async () => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good"), "skills/Not_A_Skill/readme.md": "x" });
    const shown = await runInProcess(["show", "Not_A_Skill", "-r", "skills"], dir);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/^skillport: fs:skills:Not_A_Skill is not a skill: /);
  });

  it("an id that is nowhere still says so", async () => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good") });
    const shown = await runInProcess(["show", "nothing", "-r", "skills"], dir);
    expect([shown.code, shown.stderr]).toEqual([2, 'skillport: no skill "nothing" (known: good)\n']);
  });
});
