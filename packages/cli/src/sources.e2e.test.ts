// The README's SQL tour through the BUILT binary: `skillport copy examples/skills <db> && skillport list <db>`, on
// SQLite (no server needed) and on the local PostgreSQL.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { serverAvailable, createTestDatabase, type TestDatabase } from "../../sql/src/test-support/databases.js";
import { modulesOf } from "./__fixtures__/bundle-modules.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = path.join(repo, "packages/cli/dist/cli.js");
const examples = path.join(repo, "examples/skills");
const EXAMPLE_IDS = ["api-healthcheck", "csv-insights", "git-changelog", "weather-brief", "数据清洗"];

function skillport(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const postgres = await serverAvailable("postgres");
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe.runIf(existsSync(bin))("the built binary copies skills into databases and lists them", () => {
  it("skillport copy examples/skills sqlite:./skills.db && skillport list sqlite:./skills.db", () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), "skillport-e2e-sql-"));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    const copy = skillport(["copy", examples, "sqlite:./skills.db"], cwd);
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toContain("5 copied");
    const list = skillport(["list", "sqlite:./skills.db"], cwd);
    expect(list.code, list.stderr).toBe(0);
    for (const id of EXAMPLE_IDS) expect(list.stdout).toContain(id);
    expect(list.stdout).toContain("5 skills from 1 source");
  });

  it("loads a database driver only for an address that needs it", () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), "skillport-e2e-imports-"));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    const hook = path.join(repo, "packages/cli/src/__fixtures__/record-imports.mjs");
    const loaded = (args: string[]) => {
      const record = path.join(cwd, `imports-${args.join("_").replace(/\W/g, "_")}.txt`);
      const result = spawnSync(process.execPath, ["--import", hook, bin, ...args], {
        cwd,
        encoding: "utf8",
        env: { ...process.env, RECORD_IMPORTS: record },
      });
      expect(result.status, result.stderr).toBe(0);
      // The bundle holds kysely; its chunks are read back as the modules they contain (decision 0220).
      const files = readFileSync(record, "utf8")
        .split("\n")
        .filter((url) => url.startsWith("file:"))
        .map((url) => path.relative(repo, fileURLToPath(url)));
      return files
        .flatMap(modulesOf)
        .map((file) => `/${file}`)
        .join("\n");
    };
    const drivers = (files: string) =>
      ["kysely", "better-sqlite3", "pg", "mysql2"].filter((name) => files.includes(`/node_modules/${name}/`));
    expect(drivers(loaded(["list", examples]))).toEqual([]);
    expect(skillport(["copy", examples, "sqlite:./s.db"], cwd).code).toBe(0);
    expect(drivers(loaded(["list", "sqlite:./s.db"]))).toEqual(["kysely", "better-sqlite3"]);
  });

  it.runIf(postgres)("the same with postgres:// against the local PostgreSQL", async () => {
    const database: TestDatabase = await createTestDatabase("postgres");
    cleanups.push(() => database.drop());
    const copy = skillport(["copy", "examples/skills", database.url], repo);
    expect(copy.code, copy.stderr).toBe(0);
    const list = skillport(["list", database.url, "--json"], repo);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).skills.map((s: { id: string }) => s.id)).toEqual(EXAMPLE_IDS);
  });
});
