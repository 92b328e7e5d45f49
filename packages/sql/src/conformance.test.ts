import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceFixtureSkill, describeConformance, runConformance } from "@skillport/testing";
import { SqlDatabase } from "./connection.js";
import { SqlSkillRepository } from "./repository.js";
import { availableDialects, createTestDatabase, type TestDatabase } from "./test-support/databases.js";

// The provider conformance kit against real SQLite, PostgreSQL and MariaDB databases (one fresh database each).
for (const dialect of await availableDialects()) {
  describe(`SqlSkillRepository on ${dialect}`, () => {
    let database: TestDatabase;
    let shared: SqlDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      shared = await SqlDatabase.open(database.url);
      await new SqlSkillRepository({ connection: shared }).save([conformanceFixtureSkill()]);
    });
    afterAll(async () => {
      await shared?.close();
      await database?.drop();
    });

    describeConformance(
      `SqlSkillRepository (${dialect})`,
      () => new SqlSkillRepository({ connection: shared }),
      { describe, it },
      {
        contentLimit: { makeProvider: () => new SqlSkillRepository({ connection: shared, maxFileBytes: 4 }) },
      },
    );

    it("passes the whole kit in one report", async () => {
      const report = await runConformance(() => new SqlSkillRepository({ connection: shared }), {
        contentLimit: { makeProvider: () => new SqlSkillRepository({ connection: shared, maxFileBytes: 4 }) },
      });
      expect(report.failed).toEqual([]);
      expect(report.passed.length).toBeGreaterThanOrEqual(52);
    });
  });
}
