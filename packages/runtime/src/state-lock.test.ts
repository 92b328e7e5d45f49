import { describe, expect, it } from "vitest";
import { lstat, mkdir, readdir, readFile, symlink, writeFile, stat } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { readState, writeState } from "./state.js";
import { acquireLock } from "./lock.js";
import { useTempDirs } from "./__fixtures__/helpers.js";

const { tmp } = useTempDirs();

describe("state.json", () => {
  it.each([
    ["missing file", undefined, {}, undefined],
    ["empty file", "", {}, undefined],
    ["whitespace", "  \n", {}, undefined],
    ["not JSON", "{", {}, expect.stringMatching(/^state file is not JSON \(.+\)$/)],
    ["truncated", '{"values":{"skillEntrypoints":["a"', {}, expect.stringMatching(/^state file is not JSON/)],
    ["an array", "[1]", {}, "state file is not the expected shape: at the top, expected object"],
    ["a foreign shape", '{"values":[1,2]}', {}, "state file is not the expected shape: at values, expected record"],
    [
      "current shape",
      '{"values":{"skillEntrypoints":["a"],"sandboxEntrypoint":"sha256:x"}}',
      { skillEntrypoints: ["a"], sandboxEntrypoint: "sha256:x" },
      undefined,
    ],
    [
      "legacy keys merged",
      '{"hashes":{"sandboxEntrypoint":"sha256:y"},"lists":{"skillEntrypoints":["b"]}}',
      { sandboxEntrypoint: "sha256:y", skillEntrypoints: ["b"] },
      undefined,
    ],
    [
      "non-string entries: malformed, never dropped quietly",
      '{"values":{"skillEntrypoints":["a",1,null],"n":5}}',
      {},
      expect.stringMatching(/^state file is not the expected shape: at values\.skillEntrypoints/),
    ],
    ["unknown keys kept", '{"values":{"builtinSkill:pdf":"sha256:z"}}', { "builtinSkill:pdf": "sha256:z" }, undefined],
  ])("reads %s", async (_name, content, values, problem) => {
    const file = path.join(await tmp(), "state.json");
    if (content !== undefined) await writeFile(file, content);
    expect(await readState(file)).toEqual({ state: { values }, problem });
  });

  it("writes pretty JSON atomically, dropping empty arrays and empty values", async () => {
    const file = path.join(await tmp(), "deep/dir/state.json");
    await writeState(file, { values: { skillEntrypoints: [], sandboxEntrypoint: "sha256:a" } });
    expect(await readFile(file, "utf8")).toBe('{\n  "values": {\n    "sandboxEntrypoint": "sha256:a"\n  }\n}\n');
    await writeState(file, { values: { skillEntrypoints: [] } });
    expect(await readFile(file, "utf8")).toBe("{}\n");
  });
});

describe("writeState confined to a sandbox-writable folder", () => {
  it.each([
    ["a link to a folder outside", (root: string, outside: string) => symlink(outside, path.join(root, ".fastgpt"))],
    [
      "a link planted at the file itself",
      async (root: string, outside: string) => {
        await mkdir(path.join(root, ".fastgpt/runtime"), { recursive: true });
        await symlink(path.join(outside, "stolen.json"), path.join(root, ".fastgpt/runtime/state.json"));
      },
    ],
  ])("with %s: never writes outside", async (_name, plant) => {
    const root = await tmp();
    const outside = await tmp();
    await plant(root, outside);
    const file = path.join(root, ".fastgpt/runtime/state.json");
    const write = () => writeState(file, { values: { skillEntrypoints: ["a"] } }, root);
    if ((await lstat(path.join(root, ".fastgpt"))).isSymbolicLink())
      await expect(write()).rejects.toThrow(/symbolic link or not a folder/);
    else {
      await write(); // the link itself is replaced by the new file (rename over it), its target untouched
      expect((await lstat(file)).isFile()).toBe(true);
    }
    expect(await readdir(outside)).toEqual([]);
  });
});

describe("acquireLock", () => {
  it("excludes a second holder until released, then admits it", async () => {
    const lock = path.join(await tmp(), "lock");
    const release = await acquireLock(lock);
    await expect(acquireLock(lock, { waitMs: 100, pollMs: 10 })).rejects.toThrow(
      "workspace is busy: another deploy holds the lock (waited 0 s)",
    );
    await release();
    const again = await acquireLock(lock, { waitMs: 100 });
    await again();
    await expect(stat(lock)).rejects.toThrow();
  });

  it("breaks a lock whose owner process is dead", async () => {
    const lock = path.join(await tmp(), "lock");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    }).stdout;
    await mkdir(lock);
    await writeFile(path.join(lock, "owner.json"), JSON.stringify({ pid: Number(dead), since: Date.now() }));
    const release = await acquireLock(lock, { waitMs: 2_000 });
    expect(JSON.parse(await readFile(path.join(lock, "owner.json"), "utf8")).pid).toBe(process.pid);
    await release();
  });

  it("keeps a lock whose owner is alive and not yet stale", async () => {
    const lock = path.join(await tmp(), "lock");
    await mkdir(lock);
    await writeFile(path.join(lock, "owner.json"), JSON.stringify({ pid: process.ppid, since: Date.now() }));
    await expect(acquireLock(lock, { waitMs: 100, pollMs: 10 })).rejects.toThrow(/workspace is busy/);
  });
});
