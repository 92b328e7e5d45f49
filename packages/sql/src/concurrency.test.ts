// Two (or more) real processes against one database: migrations and writers. The workers run the BUILT package
// (packages/sql/dist), like separate applications; `npm test` builds before testing.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SqlSkillRepository } from "./repository.js";
import { availableDialects, createTestDatabase, rawQuery, type TestDatabase } from "./test-support/databases.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const worker = path.join(here, "test-support", "worker.mjs");
const built = path.join(here, "..", "dist", "index.js");

interface WorkerResult {
  code: number | null;
  output: Record<string, unknown>;
  stderr: string;
}

/** Starts every worker, waits until all have loaded, then lets them go at once. */
async function runTogether(argsList: string[][]): Promise<WorkerResult[]> {
  const gates: Array<() => void> = [];
  const loaded: Array<Promise<void>> = [];
  const results = argsList.map((args) => {
    let signal: () => void = () => undefined;
    loaded.push(new Promise<void>((resolve) => (signal = resolve)));
    return runWorker(args, signal, (go) => gates.push(go));
  });
  await Promise.all(loaded);
  for (const go of gates) go();
  return Promise.all(results);
}

function runWorker(args: string[], onLoaded: () => void, gate: (go: () => void) => void): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    gate(() => child.stdin.end("go\n"));
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (stdout.startsWith("ready\n")) onLoaded();
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      let output: Record<string, unknown> = {};
      try {
        output = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
      } catch {
        // reported through code and stderr
      }
      resolve({ code, output, stderr });
    });
  });
}

if (!existsSync(built)) {
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS) throw new Error(`${built} is missing: run npm run build first`);
  console.warn("skipping SQL concurrency tests: packages/sql/dist is not built (npm run build)");
}

const dialects = await availableDialects();

describe.runIf(existsSync(built))("SQL concurrency across processes", () => {
  let databases: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(databases.map((d) => d.drop()));
    databases = [];
  });
  const fresh = async (dialect: Parameters<typeof createTestDatabase>[0]) => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    return database;
  };

  for (const dialect of dialects) {
    it(`${dialect}: four processes migrating a new database at once apply each version exactly once`, async () => {
      const database = await fresh(dialect);
      const results = await runTogether(Array.from({ length: 4 }, () => ["migrate", database.url]));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const applied = results.map((r) => r.output.applied as number[]);
      expect(applied.filter((a) => a.length > 0)).toEqual([[1]]);
      expect(
        (await rawQuery(database, "select version from agentscope_skills_migrations")).map((row) =>
          Number(row.version),
        ),
      ).toEqual([1]);
    });

    it(`${dialect}: two writer processes replacing one skill never leave it half-saved, and no save is lost`, async () => {
      const database = await fresh(dialect);
      const reader = await SqlSkillRepository.open({ connection: database.url });
      try {
        const rounds = 15;
        const writers = runTogether([
          ["writer", database.url, "contested", "A", String(rounds), "12"],
          ["writer", database.url, "contested", "B", String(rounds), "12"],
        ]);
        let done = false;
        void writers.finally(() => (done = true));
        let reads = 0;
        while (!done) {
          if (await reader.skillExists("contested")) {
            const skill = await reader.getSkill("contested");
            const marker = skill.body.trim();
            const parts = [...skill.resources]
              .filter(([p]) => p.startsWith("references/"))
              .map(([, c]) => new TextDecoder().decode(c as Uint8Array).trim());
            expect(parts.length).toBe(12);
            expect(new Set(parts), `read ${reads} mixed two saves`).toEqual(new Set([marker]));
            expect(skill.description).toBe(`marker ${marker}. Use when testing.`);
            reads++;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        for (const r of await writers) expect(r.code, r.stderr).toBe(0);
        const [row] = await rawQuery(database, "select version from agentscope_skills where name = 'contested'");
        expect(Number(row?.version)).toBe(2 * rounds); // created once, replaced 2 × rounds − 1 times
        expect(reads).toBeGreaterThan(0);
      } finally {
        await reader.close();
      }
    });

    it(`${dialect}: two processes creating the same new skills without force: one wins whole, the other gets SKILL_EXISTS`, async () => {
      const database = await fresh(dialect);
      const names = ["race-a", "race-b", "race-c", "race-d"];
      const results = await runTogether([
        ["create", database.url, "P", ...names],
        ["create", database.url, "Q", ...names],
      ]);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const outcomes = results.map((r) => r.output);
      expect(outcomes.filter((o) => o.ok === true).length).toBe(1);
      const loser = outcomes.find((o) => o.ok === false);
      expect(loser?.code, String(loser?.message)).toBe("SKILL_EXISTS");
      const winner = results[outcomes.findIndex((o) => o.ok === true)] === results[0] ? "P" : "Q";
      const reader = await SqlSkillRepository.open({ connection: database.url });
      try {
        for (const skill of await reader.getAllSkills()) expect(skill.body.trim()).toBe(winner);
        expect(await reader.discover()).toEqual(names);
      } finally {
        await reader.close();
      }
    });
  }
});
