import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalFileSystemSkillProvider } from "./provider.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let root: string;
let cache: string;
let indexFile: string;
beforeEach(async () => {
  root = await makeTempDir();
  cache = await makeTempDir("skillport-fs-cache-");
  indexFile = path.join(cache, "nested", "index.json");
  await writeTree(root, { "a/SKILL.md": skillMd("a", "first"), "b/SKILL.md": skillMd("b", "second") });
  await age("a", "b");
});
afterEach(async () => {
  await removeDir(root);
  await removeDir(cache);
});

/** Backdates SKILL.md files: entries changed within the last seconds are deliberately never indexed. */
async function age(...ids: string[]) {
  const past = new Date(Date.now() - 3_600_000);
  for (const id of ids) await utimes(path.join(root, id, "SKILL.md"), past, past);
}

async function listAll(provider: LocalFileSystemSkillProvider) {
  const ids = await provider.discover();
  return Promise.all(ids.map(async (id) => [id, (await provider.getMetadata(id)).description] as const));
}

describe("persistent metadata index", () => {
  it("is written on request and then answers without parsing", async () => {
    const first = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    expect(await listAll(first)).toEqual([
      ["a", "first"],
      ["b", "second"],
    ]);
    expect(await first.saveMetadataIndex()).toBe(true);
    expect(await first.saveMetadataIndex()).toBe(false); // unchanged

    // Doctor the stored entry: a provider that answers with it has not read SKILL.md.
    const data = JSON.parse(await readFile(indexFile, "utf8")) as { entries: Record<string, { json: string }> };
    const entry = data.entries.a;
    if (entry === undefined) throw new Error("no entry for a");
    entry.json = JSON.stringify({ name: "a", description: "from the index" });
    await writeFile(indexFile, JSON.stringify(data));
    const second = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    expect(await listAll(second)).toEqual([
      ["a", "from the index"],
      ["b", "second"],
    ]);
    const fresh = await second.getMetadata("a");
    fresh.description = "mutated";
    expect((await second.getMetadata("a")).description).toBe("from the index");
  });

  it("misses when SKILL.md changed, when options differ, and when the file is corrupt", async () => {
    const first = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    await listAll(first);
    await first.saveMetadataIndex();

    await writeFile(path.join(root, "a", "SKILL.md"), skillMd("a", "edited"));
    await age("a");
    expect(await listAll(new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile }))).toEqual([
      ["a", "edited"],
      ["b", "second"],
    ]);

    const data = JSON.parse(await readFile(indexFile, "utf8")) as { entries: Record<string, { json: string }> };
    for (const entry of Object.values(data.entries)) entry.json = JSON.stringify({ description: "stale" });
    await writeFile(indexFile, JSON.stringify(data));
    const otherLimits = new LocalFileSystemSkillProvider(root, {
      metadataIndex: indexFile,
      parseLimits: { maxAliases: 5 },
    });
    expect(await listAll(otherLimits)).toEqual([
      ["a", "edited"],
      ["b", "second"],
    ]);

    await writeFile(indexFile, "{ not json");
    expect(await listAll(new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile }))).toEqual([
      ["a", "edited"],
      ["b", "second"],
    ]);
  });

  it("never stores files changed moments ago, and forgets skills that are gone", async () => {
    await writeTree(root, { "c/SKILL.md": skillMd("c", "new") }); // not aged: too recent to trust its timestamp
    const provider = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    await listAll(provider);
    await provider.saveMetadataIndex();
    const stored = () =>
      readFile(indexFile, "utf8").then((t) => Object.keys((JSON.parse(t) as { entries: object }).entries).sort());
    expect(await stored()).toEqual(["a", "b"]);
    await removeDir(path.join(root, "b"));
    const next = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    await listAll(next);
    expect(await next.saveMetadataIndex()).toBe(true);
    expect(await stored()).toEqual(["a"]);
  });

  it("still enforces maxFileBytes on a hit", async () => {
    const first = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    await listAll(first);
    await first.saveMetadataIndex();
    const small = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, maxFileBytes: 10 });
    await small.discover();
    await expect(small.getMetadata("a")).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
  });
});

describe("the index file is read through its schema (decision 0321)", () => {
  const warned = () => {
    const messages: string[] = [];
    return { messages, warn: (m: string) => messages.push(m) };
  };

  it.each([
    ["truncated", () => readFile(indexFile, "utf8").then((t) => t.slice(0, Math.floor(t.length / 2))), /is not JSON/],
    [
      "foreign (valid JSON, not an index)",
      async () => JSON.stringify({ hello: "world" }),
      /not the expected shape: at format, expected number/,
    ],
    [
      "an entry of the wrong type",
      async () => JSON.stringify({ format: 1, scope: "x", entries: { a: { key: 1, json: "{}" } } }),
      /at entries, expected index entries \(\{ key, json \} per skill\)/,
    ],
    ["an array", async () => "[]", /at the top, expected object/],
  ])(
    "%s: said once, every skill parsed again, and the file replaced at the next save",
    async (_kind, content, pattern) => {
      const first = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
      await listAll(first);
      await first.saveMetadataIndex();
      await writeFile(indexFile, await content());
      const { messages, warn } = warned();
      const second = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, warn });
      expect(await listAll(second)).toEqual([
        ["a", "first"],
        ["b", "second"],
      ]);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(pattern);
      expect(messages[0]).toContain("rebuilding it");
      expect(await second.saveMetadataIndex()).toBe(true);
      const { messages: after, warn: warnAfter } = warned();
      expect(
        await listAll(new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, warn: warnAfter })),
      ).toEqual([
        ["a", "first"],
        ["b", "second"],
      ]);
      expect(after).toEqual([]);
    },
  );

  it("a missing file, or one of another format, starts quietly", async () => {
    const { messages, warn } = warned();
    await listAll(new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, warn }));
    await mkdir(path.dirname(indexFile), { recursive: true });
    await writeFile(indexFile, JSON.stringify({ format: 999, scope: "other", entries: {} }));
    await listAll(new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, warn }));
    expect(messages).toEqual([]);
  });

  it("an entry whose frontmatter JSON is damaged is a miss, not a crash", async () => {
    const first = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile });
    await listAll(first);
    await first.saveMetadataIndex();
    const data = JSON.parse(await readFile(indexFile, "utf8")) as { entries: Record<string, { json: string }> };
    for (const entry of Object.values(data.entries)) entry.json = "{ broken";
    await writeFile(indexFile, JSON.stringify(data));
    const second = new LocalFileSystemSkillProvider(root, { metadataIndex: indexFile, warn: () => undefined });
    expect(await listAll(second)).toEqual([
      ["a", "first"],
      ["b", "second"],
    ]);
    expect(await second.saveMetadataIndex()).toBe(true);
  });
});
