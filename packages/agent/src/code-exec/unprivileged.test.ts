// Issue 19's agent attacks again from an unprivileged host (uid 65534, the same uid as its bubblewrap sandboxes):
// file ownership protects nothing there, so only the descriptors, the read-only skill folder and the per-session
// sandboxes stand in the way. Runs the built package (dist) in a child dropped to 65534 with setpriv.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";

const hostIsRoot = process.getuid?.() === 0;
const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const core = fileURLToPath(new URL("../../../core/dist/index.js", import.meta.url));
const python = "/usr/bin/python3";
const runnable = hostIsRoot && findBubblewrap() !== undefined && existsSync(dist) && existsSync(python);

const SCENARIO = `import { spawn } from "node:child_process";
import { readdirSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Skill } from ${JSON.stringify(core)};
import { SkillBox, resultText } from ${JSON.stringify(dist)};
const [root, outside] = process.argv.slice(2);
const out = {};
const text = async (session, name, args) => resultText(await session.callTool(name, args));

// Hole 1: a same-uid process swaps a folder for a link to a folder this uid may write, while the tool writes.
{
  const box = new SkillBox();
  box.codeExecution().workDir(path.join(root, "race")).withWrite().enable();
  const work = box.codeExecutionConfig.workDir;
  mkdirSync(path.join(work, "d"));
  symlinkSync(outside, path.join(work, "l"));
  const code = "import ctypes, os, sys\\nlibc = ctypes.CDLL(None)\\nwhile not os.path.exists(sys.argv[3]): libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)";
  const swapper = spawn(${JSON.stringify(python)}, ["-c", code, path.join(work, "d"), path.join(work, "l"), path.join(root, "stop")], { stdio: "ignore" });
  for (let i = 0; i < 1500; i++) await box.callTool("write_text_file", { file_path: "d/f-" + i + ".txt", content: "model text" });
  writeFileSync(path.join(root, "stop"), "");
  await new Promise((resolve) => swapper.on("exit", resolve));
  out.outside = readdirSync(outside);
  await box.close();
}

// A trojan written by a command (same uid: only the read-only mount protects the skill's folder).
{
  const box = new SkillBox();
  await box.registerSkill(Skill.builder().name("tool").description("A tool skill.").skillContent("# Tool").addResource("scripts/hi.sh", "echo genuine").build());
  box.codeExecution().workDir(path.join(root, "trojan")).withShell({ allowedCommands: "any" }).withWrite().withSkillScripts().sandbox({ kind: "bubblewrap" }).enable();
  await box.callTool("load_skill_through_path", { skillId: "tool_custom", path: "SKILL.md" });
  const dir = box.codeExecutionConfig.skillDir(box.getSkill("tool_custom"));
  await box.callTool("write_text_file", { file_path: "skills/tool_custom/scripts/hi.sh", content: "echo trojan" });
  await box.callTool("execute_shell_command", { command: "echo 'echo trojan' | tee " + dir + "/scripts/hi.sh" });
  out.script = await text(box, "run_skill_script", { skillId: "tool_custom", script: "hi.sh" });
  await box.close();
}

// Sessions: bob's command reads alice's file by its path.
{
  const box = new SkillBox();
  box.codeExecution().workDir(path.join(root, "sessions")).withShell({ allowedCommands: "any" }).withWrite().sandbox({ kind: "bubblewrap" }).enable();
  await text(box.session("alice"), "write_text_file", { file_path: "secret.txt", content: "alice's secret" });
  const alice = box.codeExecutionConfig.space?.("alice").workDir ?? box.codeExecutionConfig.workDir; // (before sessions had their own)
  out.bob = await text(box.session("bob"), "execute_shell_command", { command: "cat secret.txt " + alice + "/secret.txt" });
  await box.close();
}
console.log(JSON.stringify(out));
`;

let root: string;
beforeAll(async () => {
  root = await makeTempDir("skillport-unprivileged-");
  chmodSync(root, 0o755);
});
afterAll(async () => {
  await removeDir(root);
});

describe.runIf(runnable)("as an unprivileged host user (65534, the sandbox's own uid)", () => {
  it("writes stay inside under a swap, skill scripts stay the skill's, sessions stay apart", () => {
    const [work, outside, tmp] = ["work", "outside", "tmp"].map((name) => path.join(root, name)) as [
      string,
      string,
      string,
    ];
    for (const dir of [work, outside, tmp]) {
      mkdirSync(dir);
      chownSync(dir, 65534, 65534);
    }
    const script = path.join(root, "scenario.mjs");
    writeFileSync(script, SCENARIO);
    const r = spawnSync(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, script, work, outside],
      {
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin", TMPDIR: tmp },
        timeout: 240_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as { outside: string[]; script: string; bob: string };
    // One comparison, so a failure shows all three.
    expect({
      outside: out.outside,
      script: /<stdout>genuine\n<\/stdout>/.test(out.script),
      bob: out.bob.includes("alice's secret"),
    }).toEqual({ outside: [], script: true, bob: false });
  }, 300_000);
});
