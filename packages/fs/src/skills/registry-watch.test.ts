import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillRegistry, type RegistryChange } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "./provider.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let root: string;
let registry: SkillRegistry | undefined;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  registry?.close();
  registry = undefined;
  await removeDir(root);
});

/** Collects registry change events; `until` waits for one that satisfies a predicate, returning every event seen. */
function changeLog(target: SkillRegistry) {
  const events: RegistryChange[] = [];
  let wake: (() => void) | undefined;
  target.on("change", (change) => {
    events.push(change);
    wake?.();
  });
  const until = async (done: (change: RegistryChange) => boolean): Promise<RegistryChange[]> => {
    const seen: RegistryChange[] = [];
    const deadline = Date.now() + 20_000; // generous: a slow machine must not fail this, only a missing event
    for (;;) {
      const next = events.shift();
      if (next !== undefined) {
        seen.push(next);
        if (done(next)) return seen;
        continue;
      }
      if (Date.now() > deadline) throw new Error(`no matching change event; saw ${JSON.stringify(seen)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 500);
      });
    }
  };
  return { until };
}

/** Every id any of the events names. */
const idsIn = (events: RegistryChange[]) =>
  [...new Set(events.flatMap((e) => [...e.added, ...e.removed, ...e.updated]))].sort();

describe("real files → provider watch → registry refresh → change event", () => {
  it("reports edits, body-only edits, new, removed and repaired skills, and serves the new content", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a", "First description.", "\nold body\n"),
      "b/SKILL.md": skillMd("b"),
      "broken/SKILL.md": "---\nname: broken\ndescription: [unclosed\n---\n",
    });
    let ready!: () => void;
    const watching = new Promise<void>((resolve) => (ready = resolve));
    const provider = new LocalFileSystemSkillProvider(root, { watch: { debounceMs: 50, onReady: () => ready() } });
    registry = new SkillRegistry();
    const log = changeLog(registry);
    const report = await registry.addProvider(provider);
    const source = provider.name;
    expect(report.registered).toEqual([`${source}:a`, `${source}:b`]);
    expect(report.failed.map((f) => [f.id, f.diagnostics[0]?.code])).toEqual([["broken", "registry-load-failed"]]);
    expect(await log.until(() => true)).toEqual([{ added: ["a", "b"], removed: [], updated: [] }]); // the registration itself
    await watching;

    // Metadata edit.
    await writeFile(path.join(root, "a", "SKILL.md"), skillMd("a", "Second description.", "\nold body\n"));
    let seen = await log.until((c) => c.updated.includes("a"));
    expect(idsIn(seen)).toEqual(["a"]);
    expect(registry.get("a").getMetadata().description).toBe("Second description.");

    // Body-only edit: the metadata is the same, the change is still reported and the new body served.
    await writeFile(path.join(root, "a", "SKILL.md"), skillMd("a", "Second description.", "\nnew body\n"));
    seen = await log.until((c) => c.updated.includes("a"));
    expect(idsIn(seen)).toEqual(["a"]);
    expect(await registry.get("a").getBody()).toBe("\nnew body\n");

    // A new skill.
    await mkdir(path.join(root, "c"));
    await writeFile(path.join(root, "c", "SKILL.md"), skillMd("c"));
    seen = await log.until((c) => c.added.includes("c"));
    expect(idsIn(seen)).toEqual(["c"]);

    // A removed skill.
    await rm(path.join(root, "b"), { recursive: true });
    seen = await log.until((c) => c.removed.includes("b"));
    expect(idsIn(seen)).toEqual(["b"]);

    // A broken skill repaired: it joins, and its failure is gone.
    await writeFile(path.join(root, "broken", "SKILL.md"), skillMd("broken"));
    seen = await log.until((c) => c.added.includes("broken"));
    expect(idsIn(seen)).toEqual(["broken"]);
    expect(registry.failures).toEqual([]);
    expect(registry.list().map((e) => e.id)).toEqual(["a", "broken", "c"]);
  });
});
