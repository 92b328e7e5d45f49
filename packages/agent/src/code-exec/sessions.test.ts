// Issue 19: sessions of one box (two users) must not share files: each has its own work dir and sandbox
// (decision 0232).
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";
import { resultText, SkillBox } from "../index.js";

const hasBwrap = findBubblewrap() !== undefined;
const hostIsRoot = process.getuid?.() === 0;

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await removeDir(dir);
});

async function twoSessions(options: { shell: boolean; sessionsDir?: boolean }) {
  const root = await makeTempDir("skillport-sessions-");
  cleanup.push(root);
  const box = new SkillBox();
  const builder = box.codeExecution().workDir(path.join(root, "work")).withRead().withWrite();
  if (options.sessionsDir) builder.sessionsDir(path.join(root, "sessions"));
  if (options.shell) builder.withShell({ allowedCommands: "any" }).sandbox({ kind: "bubblewrap" });
  builder.enable();
  const call = async (session: string, name: string, args: unknown) => {
    const result = await box.session(session).callTool(name, args);
    return { text: resultText(result), isError: result.isError };
  };
  return { box, root, call };
}

describe("sessions of one box do not share files", () => {
  it.each(["alice", "default"])("a file %s writes is not there for bob: view, list, write over it", async (alice) => {
    const { box, call } = await twoSessions({ shell: false });
    try {
      expect(
        (await call(alice, "write_text_file", { file_path: "secret.txt", content: "alice's secret\n" })).isError,
      ).toBe(false);
      expect(await call("bob", "view_text_file", { file_path: "secret.txt" })).toEqual({
        text: "Error: secret.txt does not exist.",
        isError: true,
      });
      const aliceDir = box.codeExecutionConfig!.space(alice).workDir;
      expect(aliceDir).not.toBe(box.codeExecutionConfig!.space("bob").workDir);
      expect(await call("bob", "view_text_file", { file_path: path.join(aliceDir, "secret.txt") })).toMatchObject({
        text: expect.stringMatching(/is outside the work directory/),
        isError: true,
      });
      expect((await call("bob", "list_directory", {})).text).not.toContain("secret");
      expect(
        await call("bob", "write_text_file", { file_path: path.join(aliceDir, "secret.txt"), content: "bob" }),
      ).toMatchObject({ isError: true });
      expect((await call(alice, "view_text_file", { file_path: "secret.txt" })).text).toContain("1: alice's secret");
    } finally {
      await box.close();
    }
  });

  it.skipIf(!hasBwrap)("bob's commands cannot read, list or write alice's work dir (bubblewrap)", async () => {
    const { box, call } = await twoSessions({ shell: true });
    try {
      await call("alice", "write_text_file", { file_path: "secret.txt", content: "alice's secret\n" });
      const tries = ["cat secret.txt", "ls", "cat ../*/secret.txt"];
      for (const command of tries)
        expect((await call("bob", "execute_shell_command", { command })).text, command).not.toMatch(
          /alice's secret|secret\.txt\n/,
        );
      const aliceDir = box.codeExecutionConfig!.space("alice").workDir;
      tries.push(`cat ${aliceDir}/secret.txt`, `ls ${aliceDir}`, `touch ${aliceDir}/planted`);
      for (const command of tries) {
        const out = await call("bob", "execute_shell_command", { command });
        if (command === "ls") continue; // bob's own (empty) folder
        expect(out.text, command).not.toContain("alice's secret");
        expect(out.text, command).not.toMatch(/^<returncode>0</);
      }
      expect(existsSync(path.join(aliceDir, "planted"))).toBe(false);
      // Alice's own command sees her file: the difference is the session, not the file.
      expect((await call("alice", "execute_shell_command", { command: "cat secret.txt" })).text).toContain(
        "alice's secret",
      );
    } finally {
      await box.close();
    }
  });

  it("other sessions' work dirs lie in the sessions folder, named by a digest, private; closing a session removes its dir", async () => {
    const { box, root, call } = await twoSessions({ shell: false, sessionsDir: true });
    try {
      await call("bob", "write_text_file", { file_path: "x.txt", content: "x" });
      const bobDir = box.codeExecutionConfig!.space("bob").workDir;
      expect(path.dirname(bobDir)).toBe(path.join(root, "sessions"));
      expect(path.basename(bobDir)).toMatch(/^s-[0-9a-f]{32}$/);
      if (hostIsRoot) expect(statSync(bobDir).mode & 0o077).toBe(0);
      box.closeSession("bob");
      await box.close();
      expect(existsSync(bobDir)).toBe(false);
    } finally {
      await box.close();
    }
  });
});
