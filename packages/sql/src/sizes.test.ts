// Issue 19 weakness "Huge bodies and descriptions": a SQL source measures every size in SQL (octet_length on the
// column, which SQLite answers from the record header) and selects content only within the limits, so a huge body,
// description or resource is refused without being read (decision 0256). Each attack runs in a fresh process whose
// peak memory is measured; the rows are forged behind the repository's back, as a hostile writer of the database would.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LimitExceededError, Skill, SkillValidationError } from "@skillport/core";
import { SqlSkillRepository } from "./repository.js";
import {
  availableDialects,
  createTestDatabase,
  rawQuery,
  type TestDatabase,
  type TestDialect,
} from "./test-support/databases.js";

const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), "test-support", "size-probe.mjs");
const MiB = 1024 * 1024;
const MAX_FILE = 1 * MiB;
const MAX_FRONTMATTER = 64 * 1024;
// MariaDB's default max_allowed_packet (16 MiB) caps what REPEAT can build there; elsewhere the payload is larger.
const PAYLOAD: Record<TestDialect, number> = { sqlite: 48 * MiB, postgres: 48 * MiB, mysql: 15 * MiB };
// Peak memory may grow by what a within-limit read costs (2x the limit) plus allocator noise, never by the payload.
const BOUND = 2 * MAX_FILE + 8 * MiB;

const dialects = await availableDialects();

/** SQL for a string of `n` letters, built by the server itself. */
function bigString(dialect: TestDialect, n: number): string {
  return dialect === "sqlite" ? `replace(hex(zeroblob(${n / 2})), '0', 'a')` : `repeat('a', ${n})`;
}

const skill = (name: string, resource: string) =>
  new Skill({
    frontmatter: { name, description: `The ${name} skill. Use in tests.` },
    body: `# ${name}\n`,
    resources: new Map([[resource, "x\n"]]),
  });

interface ProbeResult {
  error: { name: string; code: string | null; message: string } | null;
  skills: string[] | null;
  growth: number;
}

function runProbe(url: string, attack: string): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [probe, url, attack, String(MAX_FILE), String(MAX_FRONTMATTER)],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`probe ${attack} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ProbeResult);
      },
    );
  });
}

describe.each(dialects)("one size policy, measured in SQL (%s)", (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const repository = await SqlSkillRepository.open({ connection: database.url });
    await repository.save([
      skill("small", "assets/small.txt"),
      skill("big-body", "assets/a.txt"),
      skill("big-desc", "assets/a.txt"),
      skill("big-file", "assets/big.txt"),
    ]);
    await repository.close();
    const n = PAYLOAD[dialect];
    // skill_md_bytes keeps its honest small value: the stored size column is not trusted for the body.
    await rawQuery(
      database,
      `update agentscope_skills set skill_content = ${bigString(dialect, n)} where name = 'big-body'`,
    );
    await rawQuery(
      database,
      `update agentscope_skills set description = ${bigString(dialect, n)} where name = 'big-desc'`,
    );
    await rawQuery(
      database,
      `update agentscope_skill_resources set resource_content = ${bigString(dialect, n)} where resource_path = 'assets/big.txt'`,
    );
  }, 180_000);

  afterAll(async () => database?.drop());

  it.each([
    ["body", "LimitExceededError", /SKILL\.md of skill "big-body" is larger than 1048576 bytes/],
    ["description", "SkillValidationError", /frontmatter is larger than the limit of 65536 bytes/],
    ["resource", "LimitExceededError", /assets\/big\.txt of skill "big-file" is larger than 1048576 bytes/],
  ])("a huge %s is refused with a clear error, in bounded memory", async (attack, name, message) => {
    const result = await runProbe(database.url, attack);
    expect(result.error?.name).toBe(name);
    expect(result.error?.message).toMatch(message);
    expect(result.growth).toBeLessThan(BOUND);
  });

  it("getAllSkills leaves the oversized skills out, in bounded memory", async () => {
    const result = await runProbe(database.url, "whole");
    expect(result.error).toBeNull();
    expect(result.skills).toEqual(["small"]);
    expect(result.growth).toBeLessThan(BOUND);
  });

  it("the same refusals in process, with the error classes callers branch on", async () => {
    const repository = new SqlSkillRepository({
      connection: database.url,
      maxFileBytes: MAX_FILE,
      maxFrontmatterBytes: MAX_FRONTMATTER,
    });
    try {
      expect(await repository.discover()).toEqual(["big-body", "big-desc", "big-file", "small"]);
      await expect(repository.getBody("big-body")).rejects.toBeInstanceOf(LimitExceededError);
      await expect(repository.readFile("big-body", "SKILL.md")).rejects.toBeInstanceOf(LimitExceededError);
      await expect(repository.getSkill("big-body")).rejects.toBeInstanceOf(LimitExceededError);
      const desc = await repository.getMetadata("big-desc").catch((error: unknown) => error);
      expect(desc).toBeInstanceOf(SkillValidationError);
      expect((desc as SkillValidationError).diagnostics.map((d) => d.code)).toEqual(["frontmatter-too-large"]);
      await expect(repository.readFile("big-file", "assets/big.txt")).rejects.toBeInstanceOf(LimitExceededError);
      // Listing the files reports the real sizes without reading them.
      expect((await repository.listFiles("big-file")).find((f) => f.path === "assets/big.txt")?.size).toBe(
        PAYLOAD[dialect],
      );
      expect((await repository.getMetadata("small")).name).toBe("small");
    } finally {
      await repository.close();
    }
  });
});
