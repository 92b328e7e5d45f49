import { mkdir, readdir, rename, rm, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "./test-support.js";

const tree = useTempTrees();

/** Ages every folder and file under `dir` by a minute: outside the racy window, so a snapshot may be written. */
async function age(dir: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  const visit = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const child = path.join(at, entry.name);
      if (entry.isDirectory()) await visit(child);
      if (!entry.isSymbolicLink()) await utimes(child, old, old);
    }
  };
  await visit(dir);
  await utimes(dir, old, old);
}

interface SearchJson {
  results: Array<{ id: string; description: string; confidence: number; score: number }>;
  index: { skills: number; snapshot?: boolean };
}

async function search(dir: string, query: string, ...extra: string[]): Promise<SearchJson> {
  const run = await runInProcess(
    ["search", query, "s", "--json", "--cache-dir", "cache", "--min-confidence", "0", ...extra],
    dir,
  );
  return JSON.parse(run.stdout) as SearchJson;
}

const skills = {
  "s/alpha/SKILL.md": skillMd("alpha", "Rotate TLS certificates.", "# Alpha\n\n## Renewing certificates\n"),
  "s/beta/SKILL.md": skillMd("beta", "Summarise CSV spreadsheets."),
  "s/hidden/SKILL.md":
    "---\nname: hidden\ndescription: Deploy certificates to production.\ndisable-model-invocation: true\n---\nRun it.\n",
};

describe("skillport search's warm snapshot", () => {
  it("answers a second search from the snapshot, exactly as the full load did", async () => {
    const dir = await tree(skills);
    await age(path.join(dir, "s"));
    const cold = await search(dir, "tls certificates");
    expect(cold.index.snapshot).toBeUndefined();
    expect((await readdir(path.join(dir, "cache"))).some((f) => f.startsWith("search-snapshot-"))).toBe(true);
    const warm = await search(dir, "tls certificates");
    expect(warm.index.snapshot).toBe(true);
    expect(warm.results).toEqual(cold.results);
    expect(warm.results[0]?.description).toBe("Rotate TLS certificates.");
    // Hidden skills stay hidden, and --all still finds them.
    expect(warm.results.map((r) => r.id)).not.toContain("hidden");
    expect((await search(dir, "deploy certificates production", "--all")).results[0]?.id).toBe("hidden");
    // Text output is the same on both paths.
    const text = (await runInProcess(["search", "tls certificates", "s", "--cache-dir", "cache"], dir)).stdout;
    expect(text).toBe((await runInProcess(["search", "tls certificates", "s", "--no-cache"], dir)).stdout);
  });

  // Each change must send the search back to the sources; every one of these fails on a snapshot that is trusted blindly.
  it.each([
    [
      "a SKILL.md edited",
      async (s: string) =>
        writeFile(
          path.join(s, "alpha/SKILL.md"),
          skillMd("alpha", "Rotate DNS zone records.", "# Alpha\n\n## Renewing zonefiles..\n"),
        ),
      "dns zone",
      "alpha",
    ],
    [
      "a skill folder added",
      async (s: string) => {
        await mkdir(path.join(s, "gamma"));
        await writeFile(path.join(s, "gamma/SKILL.md"), skillMd("gamma", "Tune PostgreSQL vacuum."));
      },
      "postgresql vacuum",
      "gamma",
    ],
    [
      "a skill folder removed",
      async (s: string) => rm(path.join(s, "beta"), { recursive: true }),
      "csv spreadsheets",
      undefined,
    ],
    [
      "a skill folder renamed",
      async (s: string) => rename(path.join(s, "beta"), path.join(s, "beta2")),
      "csv spreadsheets",
      undefined,
    ],
    [
      "SKILL.md renamed to skill.md",
      async (s: string) => rename(path.join(s, "beta/SKILL.md"), path.join(s, "beta/skill.md")),
      "csv spreadsheets",
      "beta",
    ],
  ] as const)("%s: the change is seen", async (_label, change, query, want) => {
    const dir = await tree(skills);
    const s = path.join(dir, "s");
    await age(s);
    await search(dir, "warm up");
    expect((await search(dir, "tls")).index.snapshot).toBe(true);
    await change(s);
    await age(s); // even with old times again, the stamps (inode, ctime, size) differ
    const after = await search(dir, query);
    expect(after.index.snapshot).toBeUndefined();
    expect(after.results.find((r) => r.id === (want ?? "beta"))?.id).toBe(want);
  });

  it("writes no snapshot when it cannot vouch for the load: recent changes, links, problems, database or single-skill roots", async () => {
    const recent = await tree(skills); // just created: inside the racy window
    await search(recent, "tls");
    expect((await search(recent, "tls")).index.snapshot).toBeUndefined();

    const linked = await tree({ ...skills, "elsewhere/delta/SKILL.md": skillMd("delta", "Delta things.") });
    await symlink(path.join(linked, "elsewhere/delta"), path.join(linked, "s/delta"));
    await age(path.join(linked, "s"));
    await search(linked, "tls");
    expect((await search(linked, "delta")).index.snapshot).toBeUndefined();

    const broken = await tree({ ...skills, "s/bad/SKILL.md": '---\nname: bad\ndescription: ""\n---\n' });
    await age(path.join(broken, "s"));
    await runInProcess(["search", "tls", "s", "--cache-dir", "cache"], broken);
    const again = await runInProcess(["search", "tls", "s", "--cache-dir", "cache"], broken);
    expect(again.code).toBe(1); // the failure is reported on every run, never hidden by a snapshot
    expect(again.stderr).toMatch(/skipped fs:s:bad/);

    const corrupt = await tree(skills);
    await age(path.join(corrupt, "s"));
    await search(corrupt, "tls");
    for (const file of await readdir(path.join(corrupt, "cache")))
      await writeFile(path.join(corrupt, "cache", file), "SPSI\u0000garbage");
    const recovered = await search(corrupt, "tls certificates");
    expect(recovered.index.snapshot).toBeUndefined();
    expect(recovered.results[0]?.id).toBe("alpha");
  });

  // Decision 0321: every cache file is read through its schema; a bad one is said once, and rebuilt.
  it.each([
    [
      "metadata index",
      "metadata-",
      (t: string) => t.slice(0, Math.floor(t.length / 2)),
      /metadata index .* is not JSON/,
    ],
    [
      "search cache",
      "search-",
      () => JSON.stringify({ format: 1, scope: "x", entries: { a: { key: "k", meta: "m", doc: { id: 7 } } } }),
      /search cache .* is not the expected shape: at entries\.a\.doc\.id, expected string/,
    ],
    [
      "search snapshot (foreign)",
      "search-snapshot-",
      () => "not a snapshot at all",
      /search snapshot .* is not a search snapshot/,
    ],
    [
      "search snapshot (bad header)",
      "search-snapshot-",
      () => `SPSI${String.fromCharCode(2, 0, 0, 0)}{}`,
      /search snapshot .* has a header that is not the expected shape: at format, expected number/,
    ],
  ])("a damaged %s: one warning, the right answer, and a quiet run after", async (_what, prefix, damage, warning) => {
    const dir = await tree(skills);
    await age(path.join(dir, "s"));
    const cold = await search(dir, "tls certificates");
    const cache = path.join(dir, "cache");
    const files = await readdir(cache);
    const target = files.find(
      (f) => f.startsWith(prefix) && (prefix === "search-snapshot-" || !f.startsWith("search-snapshot-")),
    );
    if (target === undefined) throw new Error(`no ${prefix} file in ${files.join(", ")}`);
    const { readFile } = await import("node:fs/promises");
    await writeFile(path.join(cache, target), damage(await readFile(path.join(cache, target), "utf8")));
    // The warm snapshot answers before the other caches are read: take it away to reach them.
    if (prefix !== "search-snapshot-")
      for (const f of files) if (f.startsWith("search-snapshot-")) await rm(path.join(cache, f));
    const run = await runInProcess(
      ["search", "tls certificates", "s", "--json", "--cache-dir", "cache", "--min-confidence", "0"],
      dir,
    );
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(warning);
    expect(run.stderr).toContain("rebuilding it");
    expect((JSON.parse(run.stdout) as SearchJson).results).toEqual(cold.results);
    const after = await runInProcess(
      ["search", "tls certificates", "s", "--json", "--cache-dir", "cache", "--min-confidence", "0"],
      dir,
    );
    expect(after.stderr).toBe("");
  });
});
