// Issue 19: run_skill_script must run the skill's own script, whatever the model wrote with the write tools or the
// shell. Skill files live outside every work dir, host-owned and mounted read-only (decision 0231).
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Skill } from "@skillport/core";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";
import { AgentError, resultText, SkillBox } from "../index.js";

const hasBwrap = findBubblewrap() !== undefined;
const hostIsRoot = process.getuid?.() === 0;
// The process backend isolates nothing: only file ownership keeps the skill files from its user, which needs a root host.
const kinds = [...(hasBwrap ? (["bubblewrap"] as const) : []), ...(hostIsRoot ? (["process"] as const) : [])];

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await removeDir(dir);
});

async function scriptBox(kind: "bubblewrap" | "process"): Promise<SkillBox> {
  const root = await makeTempDir("skillport-trojan-");
  cleanup.push(root);
  const box = new SkillBox();
  await box.registerSkill(
    Skill.builder()
      .name("tool")
      .description("A tool skill.")
      .skillContent("# Tool\n")
      .addResource("scripts/hi.sh", "echo genuine\n")
      .build(),
  );
  box
    .codeExecution()
    .workDir(path.join(root, "work"))
    .withShell({ allowedCommands: "any" })
    .withWrite()
    .withSkillScripts()
    .sandbox({ kind })
    .enable();
  return box;
}

const text = async (box: SkillBox, name: string, args: unknown) => resultText(await box.callTool(name, args));

describe.each(kinds)("skill scripts stay the skill's own (%s sandbox)", (kind) => {
  it("a trojan written with write_text_file, at the old or the real location, never runs", async () => {
    const box = await scriptBox(kind);
    try {
      await text(box, "load_skill_through_path", { skillId: "tool_custom", path: "SKILL.md" });
      const exec = box.codeExecutionConfig!;
      const real = path.join(exec.skillDir(box.getSkill("tool_custom")!), "scripts/hi.sh");
      const trojan = "echo trojan\n";
      // Upstream's layout put skill files at <workDir>/skills/<skill>/: writable by the model.
      await text(box, "write_text_file", { file_path: "skills/tool_custom/scripts/hi.sh", content: trojan });
      expect(await text(box, "write_text_file", { file_path: real, content: trojan })).toMatch(
        /is outside the work directory/,
      );
      expect(await text(box, "write_text_file", { file_path: "scripts/x.sh", content: trojan })).toMatch(
        /successfully/,
      );
      expect(await text(box, "run_skill_script", { skillId: "tool_custom", script: "hi.sh" })).toMatch(
        /^<returncode>0<\/returncode><stdout>genuine\n<\/stdout>/,
      );
      expect(await text(box, "run_skill_script", { skillId: "tool_custom", script: "x.sh" })).toMatch(
        /is not available to run/,
      );
    } finally {
      await box.close();
    }
  });

  it("a trojan written, moved or planted by a shell command never runs", async () => {
    const box = await scriptBox(kind);
    try {
      await text(box, "load_skill_through_path", { skillId: "tool_custom", path: "SKILL.md" });
      const dir = box.codeExecutionConfig!.skillDir(box.getSkill("tool_custom")!);
      // Plain commands, no redirection: the policy lets them through ("any"), so only the sandbox stands in the way.
      const attempts = [
        `echo 'echo trojan' | tee ${dir}/scripts/hi.sh`,
        `echo 'echo trojan' | tee ${dir}/scripts/new.sh`,
        `mv ${dir}/scripts ${dir}/old`,
        `rm -rf ${dir}/scripts`,
        `ln -s /tmp/t.sh ${dir}/scripts/link.sh`,
        `mkdir -p skills/tool_custom/scripts && echo 'echo trojan' | tee skills/tool_custom/scripts/hi.sh`,
      ];
      const outcomes = [];
      for (const command of attempts)
        outcomes.push((await text(box, "execute_shell_command", { command })).match(/^<returncode>(-?\d+)/)?.[1]);
      expect(await text(box, "run_skill_script", { skillId: "tool_custom", script: "hi.sh" })).toMatch(
        /^<returncode>0<\/returncode><stdout>genuine\n<\/stdout>/,
      );
      for (const name of ["new.sh", "link.sh"])
        expect(await text(box, "run_skill_script", { skillId: "tool_custom", script: name })).toMatch(
          /is not available to run/,
        );
      // Every attempt on the skill's own folder fails in the sandbox; the last one writes a harmless copy in the work dir.
      expect(outcomes.slice(0, -1).every((code) => code !== "0")).toBe(true);
      expect(outcomes.at(-1)).toBe("0");
    } finally {
      await box.close();
    }
  });
});

describe("the upload dir", () => {
  it.each([
    ["inside the work dir", (work: string) => path.join(work, "skills")],
    ["relative (taken from the work dir)", () => "skills"],
    ["the work dir itself", (work: string) => work],
    ["a parent of the work dir", (work: string) => path.dirname(work)],
  ])("%s is refused at enable()", async (_name, upload) => {
    const root = await makeTempDir("skillport-upload-");
    cleanup.push(root);
    const work = path.join(root, "work");
    const enable = () => new SkillBox().codeExecution().workDir(work).uploadDir(upload(work)).withWrite().enable();
    expect(enable).toThrow(AgentError);
    expect(enable).toThrow(/must lie outside the work dir/);
  });
});
