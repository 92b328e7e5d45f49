// Issue 20, item 8: a git address naming one skill folder (`#main:skills/pdf`) is a one-skill source, as a local skill
// folder path is: `list` shows it and `copy` copies it (before: 0 skills, silently). Against a real git daemon.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import {
  commitAndPush,
  makeRepo,
  startGitDaemon,
  type RunningServer,
} from "../../../remote/src/test-support/git-servers.js";
import { runInProcess, skillMd } from "../test-support.js";

let root: string;
let daemon: RunningServer & { port: number };

beforeAll(async () => {
  root = await makeTempDir("skillport-cli-git-folder-");
  const base = path.join(root, "srv");
  await mkdir(base);
  const { work } = await makeRepo(base, "team");
  await commitAndPush(work, {
    "skills/pdf/SKILL.md": skillMd("pdf", "Fill PDF forms. Use when the user has a PDF form."),
    "skills/pdf/scripts/fill.py": "print('fill')\n",
    "skills/notes/SKILL.md": skillMd("notes"),
  });
  daemon = await startGitDaemon(base);
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  if (root) await removeDir(root);
});

describe("a git address that names one skill folder", () => {
  it("list shows that skill, and only it", async () => {
    const address = `git://127.0.0.1:${daemon.port}/team.git#main:skills/pdf`;
    const list = await runInProcess(["list", address, "--json"], root);
    expect(list.code, list.stderr).toBe(0);
    const json = JSON.parse(list.stdout) as { skills: { name: string }[] };
    expect(json.skills.map((s) => s.name)).toEqual(["pdf"]);
  }, 60_000);

  it("copy copies that skill with its files", async () => {
    const address = `git://127.0.0.1:${daemon.port}/team.git#main:skills/pdf`;
    const copy = await runInProcess(["copy", address, "out", "--json"], root);
    expect(copy.code, copy.stderr).toBe(0);
    expect(JSON.parse(copy.stdout)).toMatchObject({ copied: ["pdf"], failed: [] });
    expect(existsSync(path.join(root, "out", "pdf", "scripts", "fill.py"))).toBe(true);
    expect(existsSync(path.join(root, "out", "notes"))).toBe(false);
  }, 60_000);
});
