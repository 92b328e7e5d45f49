// Issue 8, hole 5: the filesystem provider checked a path and then opened it by path; with a folder swapped for a link
// in a loop, ~2–4% of readFile/getReference calls returned the outside file (measured on the old code: 191 of
// 12,000). Reads are now confined by the opened file: none may escape. The swapper is a child process bounded by an
// iteration count; the reader runs until it has seen both states many times (or a hard cap) — no timing threshold.
import { afterEach, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { AgentSkillsError } from "@skillport/core";
import { skillMd, startFolderSwapper, tempTree, type TempTree } from "@skillport/testing";
import { LocalFileSystemSkillProvider } from "./provider.js";

let t: TempTree | undefined;
let swapper: ChildProcess | undefined;
afterEach(async () => {
  if (swapper && swapper.exitCode === null) {
    swapper.kill("SIGKILL");
    await once(swapper, "exit");
  }
  await t?.cleanup();
});

describe("LocalFileSystemSkillProvider under a concurrent folder swap", () => {
  it("never serves the outside file through readFile or getReference", async () => {
    t = await tempTree(
      {
        "root/s/SKILL.md": skillMd("s"),
        "root/s/references/notes.md": "inside",
        "outside/references/notes.md": "SECRET",
      },
      "skillport-provider-race-",
    );
    const refs = path.join(t.dir, "root", "s", "references");
    swapper = await startFolderSwapper(refs, path.join(t.dir, "outside", "references"));
    const provider = new LocalFileSystemSkillProvider(path.join(t.dir, "root"));
    const seen = { inside: 0, refused: 0, escaped: 0 };
    const calls = [() => provider.readFile("s", "references/notes.md"), () => provider.getReference("s", "notes.md")];
    for (
      let reads = 0;
      reads < 100_000 && (seen.inside < 1000 || seen.refused < 1000) && swapper.exitCode === null;
      reads++
    ) {
      try {
        const text = Buffer.from(await calls[reads % 2]!()).toString();
        if (text === "inside") seen.inside++;
        else seen.escaped++;
      } catch (error) {
        if (!(error instanceof AgentSkillsError)) throw error;
        seen.refused++;
      }
    }
    expect(seen.escaped).toBe(0);
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
