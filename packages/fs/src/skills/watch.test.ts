import { spawn, spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalFileSystemSkillProvider } from "./provider.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let root: string;
const stops: (() => void)[] = [];
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await removeDir(root);
});

/** Starts watching and resolves once the watcher is ready; `next()` resolves with the next reported batch. */
async function startWatching(provider: LocalFileSystemSkillProvider) {
  const batches: string[][] = [];
  let wake: (() => void) | undefined;
  const errors: unknown[] = [];
  await new Promise<void>((ready) => {
    stops.push(
      provider.watch(
        (ids) => {
          batches.push(ids);
          wake?.();
        },
        { debounceMs: 50, onReady: ready, onError: (e) => errors.push(e) },
      ),
    );
  });
  const next = async (): Promise<string[]> => {
    const deadline = Date.now() + 20_000; // generous: a slow machine must not fail this, only a missing event
    while (batches.length === 0) {
      if (Date.now() > deadline) throw new Error("no change event arrived");
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 500);
      });
    }
    return batches.shift() ?? [];
  };
  return { next, errors };
}

describe("watch", () => {
  it("reports changed skills by id and drops their cached text first", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a", "one", "\nold\n"), "b/SKILL.md": skillMd("b") });
    const provider = new LocalFileSystemSkillProvider(root);
    expect(await provider.getBody("a")).toBe("\nold\n");
    const { next, errors } = await startWatching(provider);

    await writeFile(path.join(root, "a", "SKILL.md"), skillMd("a", "two", "\nnew\n"));
    expect(await next()).toEqual(["a"]);
    expect(await provider.getBody("a")).toBe("\nnew\n");

    await mkdir(path.join(root, "c"));
    await writeFile(path.join(root, "c", "SKILL.md"), skillMd("c"));
    const added = new Set(await next());
    expect(added.has("c")).toBe(true);

    await rm(path.join(root, "b"), { recursive: true });
    const removed: string[] = [];
    while (!removed.includes("b")) removed.push(...(await next()));
    expect(removed.filter((id) => id !== "b" && id !== "c")).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("ignores dot-directories and loose files at the top, and stops when unsubscribed", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    const provider = new LocalFileSystemSkillProvider(root);
    const { next } = await startWatching(provider);
    await mkdir(path.join(root, ".tmp-x"));
    await writeFile(path.join(root, ".tmp-x", "SKILL.md"), "x");
    await writeFile(path.join(root, "loose.txt"), "x");
    await writeFile(path.join(root, "a", "notes.md"), "x"); // a marker: everything before it was seen first
    expect(await next()).toEqual(["a"]);
    const stop = stops.pop();
    stop?.();
    stop?.(); // idempotent
  });
});

describe("a watcher never keeps the process alive unless asked (issue 9)", () => {
  const dist = (pkg: string) => path.resolve(import.meta.dirname, `../../../${pkg}/dist/index.js`);
  const script = (persistent: boolean) => `
    import { SkillRegistry } from ${JSON.stringify(dist("core"))};
    import { LocalFileSystemSkillProvider } from ${JSON.stringify(dist("fs"))};
    const registry = new SkillRegistry();
    const provider = new LocalFileSystemSkillProvider(${JSON.stringify(root)}, { watch: { persistent: ${persistent}, onReady: () => console.log("ready") } });
    await registry.registerAll(provider); // the seed's example: watches by default, never closed
    console.log(registry.list().length);
  `;
  const run = (persistent: boolean) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script(persistent)], {
      encoding: "utf8",
      timeout: 20_000,
      killSignal: "SIGKILL",
    });

  it("registerAll without close(): the script ends by itself", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    const result = run(false);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
    expect(result.stdout.split("\n")).toContain("1");
  });

  it("persistent: true keeps it running after the script's last line", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a") });
    const child = spawn(process.execPath, ["--input-type=module", "-e", script(true)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    let exited = false;
    child.on("exit", () => (exited = true));
    await new Promise<void>((resolve) =>
      child.stdout.on(
        "data",
        (chunk: Buffer) => ((out += chunk.toString()), /^1$/m.test(out) && out.includes("ready") && resolve()),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a non-persistent script would be gone by now
    expect(exited).toBe(false);
    child.kill("SIGKILL");
  });
});
