// Issue 20 item 13: an agent works in a package version deployed the FastGPT way. The seed's own command
// (`python3 skills/extract-emails/scripts/extract.py …`, from examples/package) runs from SkillBox's shell tool in the
// version's folder, through the workspace's sandbox, with the version's environment (decision 0272).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { effectivePolicy, readDeclaration } from "@skillport/core";
import { Workspace } from "@skillport/runtime";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";
import { AgentError, resultText, SkillBox } from "../index.js";

const examplePackage = fileURLToPath(new URL("../../../../examples/package", import.meta.url));
const hasBwrap = findBubblewrap() !== undefined;

describe.runIf(hasBwrap)("code execution in a deployed version", () => {
  let root: string;
  let ws: Workspace;
  let versionId: string;
  beforeAll(async () => {
    root = await makeTempDir("skillport-deployed-agent-");
    ws = new Workspace(path.join(root, "ws"), { sandbox: "bubblewrap" });
    const deployed = await ws.deploy([examplePackage]);
    versionId = deployed.versions[0]!.versionId;
    expect((await deployed.initialization).failed).toBe(false);
  }, 120_000);
  afterAll(async () => {
    await ws?.close();
    await removeDir(root);
  });

  it("runs the seed's command as written, from the version's folder, and reads the version's files", async () => {
    const { provider } = await ws.scanSkills();
    const box = await SkillBox.create({ sources: [provider] });
    try {
      box
        .codeExecution()
        .withShell({ allowedCommands: "any" })
        .withRead()
        .deployedVersion(await ws.codeTarget(versionId))
        .enable();
      const load = await box.callTool("load_skill_through_path", {
        skillId: box.listSkills().find((s) => s.name === "extract-emails")!.id,
        path: "SKILL.md",
      });
      expect(load.isError).toBe(false);
      const run = await box.callTool("execute_shell_command", {
        command:
          'python3 skills/extract-emails/scripts/extract.py "Contact ana@example.com or bo@example.org; cc ana@example.com"',
      });
      expect(resultText(run)).toContain("<returncode>0</returncode>");
      expect(resultText(run)).toContain("ana@example.com\nbo@example.org");
      // The work dir is the version's folder: what its entrypoint left there is readable by relative path.
      const ready = await box.callTool("view_text_file", { file_path: ".runtime/ready" });
      expect(resultText(ready)).toContain("initialized");
      // The version's Python environment is first on PATH, as for `skillport exec --cwd projects/<versionId>`.
      const which = await box.callTool("execute_shell_command", { command: "echo $PATH" });
      expect(resultText(which)).toContain(`/projects/${versionId}/.venv/bin:`);
    } finally {
      await box.close();
    }
    // The workspace's sandbox is the workspace's: closing the box leaves it working.
    expect((await ws.exec("echo still here")).observation.trim()).toBe("still here");
  });

  it("refuses what a deployed version cannot give: another session, skill-script uploads, a work dir of its own, a missing version", async () => {
    const box = new SkillBox();
    try {
      const target = await ws.codeTarget(versionId);
      box.codeExecution().withShell({ allowedCommands: "any" }).deployedVersion(target).enable();
      const other = await box.session("bob").callTool("execute_shell_command", { command: "true" });
      expect(other.isError).toBe(true);
      expect(resultText(other)).toContain("one sandbox for one session");
      expect(() => box.codeExecution().withSkillScripts().deployedVersion(target).enable()).toThrow(AgentError);
      expect(() => box.codeExecution().workDir(path.join(root, "w")).deployedVersion(target).enable()).toThrow(
        /cannot be combined/,
      );
      expect(() =>
        box
          .codeExecution()
          .deployedVersion({ ...target, workDir: path.join(path.dirname(target.workDir), "0".repeat(24)) })
          .enable(),
      ).toThrow(/does not exist/);
      await expect(ws.codeTarget("../etc")).rejects.toThrow(/not a versionId/);
    } finally {
      await box.close();
    }
  });

  it.runIf(existsSync("/usr/bin/curl"))(
    "runs every command under the version's policy when the target carries one (issue 26)",
    async () => {
      const policy = effectivePolicy({}, readDeclaration({ "skillport.network": "wanted.example" }).declaration);
      const box = new SkillBox();
      try {
        box
          .codeExecution()
          .withShell({ allowedCommands: "any" })
          .deployedVersion({ ...(await ws.codeTarget(versionId)), policy })
          .enable();
        const run = await box.callTool("execute_shell_command", { command: "curl -sS http://wanted.example/" });
        expect(resultText(run)).toContain("skillport egress proxy: destination not declared: wanted.example:80");
        expect((run.details as { egress: unknown[]; warnings: string[] }).egress).toMatchObject([
          { host: "wanted.example", allowed: false },
        ]);
        expect((run.details as { warnings: string[] }).warnings).toContainEqual(
          expect.stringContaining("declaration narrowed: network wanted.example"),
        );
      } finally {
        await box.close();
      }
    },
  );
});
