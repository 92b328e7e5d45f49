// Issue 19, hole 1: the write tools must never write outside the work dir, even while sandboxed code swaps a folder of
// the path for a link to an outside folder (renameat2 RENAME_EXCHANGE in a loop) during the write.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findBubblewrap } from "@skillport/sandbox";
import { makeTempDir, removeDir } from "@skillport/testing";
import { resultText, SkillBox } from "../index.js";

const hasBwrap = findBubblewrap() !== undefined;
const WRITES = 1_500;

/** Exchanges two names atomically until the stop file appears or `seconds` pass; prints how many swaps it made. */
const SWAPPER = `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop, seconds = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3], float(sys.argv[4])
end = time.time() + seconds
n = 0
while not os.path.exists(stop) and time.time() < end:
    if libc.renameat2(-100, a, -100, b, 2) == 0:
        n += 1
print(n, flush=True)
`;

const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await removeDir(dir);
});
const temp = async (prefix: string) => {
  const dir = await makeTempDir(prefix);
  cleanup.push(dir);
  return dir;
};

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Every file below `dir` (the outside folder must stay empty). */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
    (p) => !statSync(path.join(dir, p)).isDirectory(),
  );
}

describe("write tools under a folder-for-link swap (issue 19, hole 1)", () => {
  it("a swapping process beside the tool: every write lands inside or is refused, none outside", async () => {
    const root = await temp("skillport-race-");
    const outside = await temp("skillport-race-outside-");
    const box = new SkillBox();
    box.codeExecution().workDir(path.join(root, "work")).withWrite().enable();
    const work = box.codeExecutionConfig!.workDir;
    mkdirSync(path.join(work, "race/d"), { recursive: true });
    symlinkSync(outside, path.join(work, "race/l"));
    writeFileSync(path.join(root, "swap.py"), SWAPPER);
    const stop = path.join(root, "stop");
    const swapper = spawn(
      "python3",
      [path.join(root, "swap.py"), path.join(work, "race/d"), path.join(work, "race/l"), stop, "120"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let swaps = "";
    swapper.stdout.on("data", (chunk: Buffer) => (swaps += chunk.toString()));
    const outcomes = { written: 0, refused: 0 };
    const messages = new Set<string>();
    try {
      for (let i = 0; i < WRITES; i++) {
        const args =
          i % 3 === 2
            ? { file_path: `race/d/new-${i}/f.txt`, content: `model text ${i}\n` }
            : { file_path: `race/d/f-${i}.txt`, content: `model text ${i}\n` };
        const result = await box.callTool("write_text_file", args);
        if (result.isError) {
          messages.add(resultText(result).replace(/\d+/g, "N"));
          outcomes.refused++;
        } else outcomes.written++;
      }
    } finally {
      writeFileSync(stop, "");
      await once(swapper, "exit");
      await box.close();
    }
    expect(Number(swaps)).toBeGreaterThan(0);
    expect(filesBelow(outside)).toEqual([]);
    expect(outcomes.written + outcomes.refused).toBe(WRITES);
    // A refusal names the path and why, never a raw errno.
    for (const message of messages)
      expect(message).toMatch(/^Error: race\/d\/\S+ (cannot be used: .*(symbolic link|outside)|.*outside)/);
  });

  it.skipIf(!hasBwrap || process.getuid?.() !== 0)(
    "what the write tools create belongs to the sandbox's user: its commands can change it",
    async () => {
      const root = await temp("skillport-owner-");
      const box = new SkillBox();
      box
        .codeExecution()
        .workDir(path.join(root, "work"))
        .withShell({ allowedCommands: "any" })
        .withWrite()
        .sandbox({ kind: "bubblewrap" })
        .enable();
      try {
        await box.callTool("write_text_file", { file_path: "top.txt", content: "a\n" });
        await box.callTool("write_text_file", { file_path: "made/by/tool.txt", content: "b\n" });
        const work = box.codeExecutionConfig!.workDir;
        const { uid, gid } = box.codeExecutionConfig!.sandbox().identity;
        for (const rel of ["top.txt", "made", "made/by", "made/by/tool.txt"])
          expect(statSync(path.join(work, rel)), rel).toMatchObject({ uid, gid });
        const out = resultText(
          await box.callTool("execute_shell_command", {
            command: "echo more | tee -a top.txt made/by/tool.txt && touch made/by/new && rm top.txt",
          }),
        );
        expect(out).toMatch(/^<returncode>0<\/returncode>/);
      } finally {
        await box.close();
      }
    },
  );

  it.skipIf(!hasBwrap)(
    "parallel tool calls: a sandboxed command swapping while write_text_file runs writes nothing outside",
    async () => {
      const root = await temp("skillport-race-");
      const outside = await temp("skillport-race-outside-");
      const box = new SkillBox();
      box
        .codeExecution()
        .workDir(path.join(root, "work"))
        .withShell({ timeoutSeconds: 30 })
        .withWrite()
        .sandbox({ kind: "bubblewrap" })
        .enable();
      const work = box.codeExecutionConfig!.workDir;
      writeFileSync(path.join(work, "swap.py"), SWAPPER);
      // The command makes its own folders (they are the sandbox user's), then swaps race/d and the link for 3 seconds.
      const command = `python3 -c "import os; os.makedirs('race/d', exist_ok=True); os.symlink('${outside}', 'race/l')" && python3 swap.py race/d race/l stop 3`;
      // One model step with parallel calls: the shell command and writes into the folder it swaps.
      let shellDone = false;
      const shell = box.callTool("execute_shell_command", { command }).finally(() => (shellDone = true));
      let writes = 0;
      while (!shellDone && writes < 20_000) {
        // Writes start once the command has made its folders (a host-made race/ would be root's, not the sandbox's).
        if (!lexists(path.join(work, "race/l"))) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          continue;
        }
        await box.callTool("write_text_file", { file_path: `race/d/f-${writes}.txt`, content: "model text\n" });
        writes++;
      }
      const shellResult = resultText(await shell);
      await box.close();
      expect(shellResult).toMatch(/^<returncode>0<\/returncode><stdout>\d+\n/);
      expect(filesBelow(outside)).toEqual([]);
    },
  );
});
