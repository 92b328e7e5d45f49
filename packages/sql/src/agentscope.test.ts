// An existing AgentScope database, read (and written) as it is: their exact DDL made by hand, rows inserted the way
// their MysqlSkillRepository writes them (body in skill_content, text resources, extra frontmatter keys as JSON).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Skill, SkillValidationError } from "@skillport/core";
import { SqlSkillRepository } from "./repository.js";
import { createTestDatabase, rawQuery, serverAvailable, type TestDatabase } from "./test-support/databases.js";

const MYSQL_DDL = [
  `CREATE TABLE IF NOT EXISTS agentscope_skills (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL UNIQUE, description TEXT NOT NULL, skill_content LONGTEXT NOT NULL, source VARCHAR(255) NOT NULL, metadata_json LONGTEXT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  `CREATE TABLE IF NOT EXISTS agentscope_skill_resources (id BIGINT NOT NULL, resource_path VARCHAR(500) NOT NULL, resource_content LONGTEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (id, resource_path), FOREIGN KEY (id) REFERENCES agentscope_skills(id) ON DELETE CASCADE) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
];

// The PostgreSQL twin keeps its tables in the schema "agentscope".
const POSTGRES_DDL = [
  `CREATE SCHEMA IF NOT EXISTS agentscope`,
  `CREATE TABLE IF NOT EXISTS "agentscope"."agentscope_skills" (id BIGSERIAL PRIMARY KEY, name VARCHAR(255) NOT NULL UNIQUE, description TEXT NOT NULL, skill_content TEXT NOT NULL, source VARCHAR(255) NOT NULL, metadata_json TEXT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
  `CREATE TABLE IF NOT EXISTS "agentscope"."agentscope_skill_resources" (id BIGINT NOT NULL, resource_path VARCHAR(500) NOT NULL, resource_content TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (id, resource_path), FOREIGN KEY (id) REFERENCES "agentscope"."agentscope_skills"(id) ON DELETE CASCADE)`,
];

const BODY = "# Data analysis\n\nLoad the file, then follow references/guide.md.\n";

const up = { mysql: await serverAvailable("mysql"), postgres: await serverAvailable("postgres") };

for (const dialect of ["mysql", "postgres"] as const) {
  describe.runIf(up[dialect])(`an AgentScope ${dialect} database as it is`, () => {
    let database: TestDatabase;
    let address: string;
    const table = (name: string) => (dialect === "postgres" ? `agentscope.${name}` : name);
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      for (const statement of dialect === "mysql" ? MYSQL_DDL : POSTGRES_DDL) await rawQuery(database, statement);
      const p = dialect === "mysql" ? ["?", "?", "?", "?", "?"] : ["$1", "$2", "$3", "$4", "$5"];
      await rawQuery(
        database,
        `INSERT INTO ${table("agentscope_skills")} (name, description, skill_content, source, metadata_json) VALUES (${p.join(", ")})`,
        [
          "data_analysis",
          "Analyse tabular data. Use when the user shares a CSV.",
          BODY,
          "custom",
          JSON.stringify({ version: "1.2", tags: ["data", "csv"] }),
        ],
      );
      await rawQuery(
        database,
        `INSERT INTO ${table("agentscope_skills")} (name, description, skill_content, source, metadata_json) VALUES (${p.join(", ")})`,
        ["legacy_plain", "No extras. Use when testing.", "Plain body.\n", "custom", null],
      );
      const [row] = await rawQuery(
        database,
        `SELECT id FROM ${table("agentscope_skills")} WHERE name = 'data_analysis'`,
      );
      await rawQuery(
        database,
        `INSERT INTO ${table("agentscope_skill_resources")} (id, resource_path, resource_content) VALUES (${p.slice(0, 3).join(", ")})`,
        [row?.id, "references/guide.md", "# Guide\n\nStep one.\n"],
      );
      address = dialect === "postgres" ? `${database.url}?schema=agentscope` : database.url;
    });
    afterAll(async () => {
      await database?.drop();
    });

    it("reads skills, metadata, bodies and resources without changing the tables", async () => {
      const repo = await SqlSkillRepository.open({ connection: address });
      try {
        expect(await repo.ready()).toMatchObject({ layout: "agentscope", hasMetadataJson: true });
        expect(await repo.discover()).toEqual(["data_analysis", "legacy_plain"]);
        expect(await repo.getMetadata("data_analysis")).toEqual({
          name: "data_analysis",
          description: "Analyse tabular data. Use when the user shares a CSV.",
          version: "1.2",
          tags: ["data", "csv"],
        });
        expect(await repo.getMetadata("legacy_plain")).toEqual({
          name: "legacy_plain",
          description: "No extras. Use when testing.",
        });
        expect(await repo.getBody("data_analysis")).toBe(BODY);
        expect(new TextDecoder().decode(await repo.getReference("data_analysis", "guide.md"))).toBe(
          "# Guide\n\nStep one.\n",
        );
        expect((await repo.listFiles("data_analysis")).map((f) => f.path)).toEqual(["SKILL.md", "references/guide.md"]);
        const skill = await repo.getSkill("data_analysis");
        expect(skill.skillContent).toBe(BODY);
        // Case-insensitive collation upstream; Skillport still answers only the exact name.
        expect(await repo.skillExists("DATA_ANALYSIS")).toBe(false);
      } finally {
        await repo.close();
      }
      const tables = await rawQuery(
        database,
        dialect === "postgres"
          ? "SELECT table_name FROM information_schema.tables WHERE table_schema = 'agentscope' ORDER BY table_name"
          : "SELECT table_name AS table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name",
      );
      expect(tables.map((t) => String(t.table_name ?? t.TABLE_NAME)).sort()).toEqual([
        "agentscope_skill_resources",
        "agentscope_skills",
      ]);
    });

    it("a row with a blank body is no skill: getSkill says why, getAllSkills leaves it out (AgentScope's constructor rule)", async () => {
      const p = dialect === "mysql" ? ["?", "?", "?", "?", "?"] : ["$1", "$2", "$3", "$4", "$5"];
      await rawQuery(
        database,
        `INSERT INTO ${table("agentscope_skills")} (name, description, skill_content, source, metadata_json) VALUES (${p.join(", ")})`,
        ["blank_body", "Has no content. Use when testing.", "  \n", "custom", null],
      );
      const repo = await SqlSkillRepository.open({ connection: address });
      try {
        const error = await repo.getSkill("blank_body").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SkillValidationError);
        expect((error as SkillValidationError).diagnostics.map((d) => d.code)).toEqual(["body-empty"]);
        expect((await repo.getAllSkills()).map((s) => s.name)).toEqual(["data_analysis", "legacy_plain"]);
      } finally {
        await repo.close();
        await rawQuery(database, `DELETE FROM ${table("agentscope_skills")} WHERE name = 'blank_body'`);
      }
    });

    it("writes text skills the way AgentScope reads them, and refuses binary files it would corrupt", async () => {
      const repo = await SqlSkillRepository.open({ connection: address });
      try {
        await repo.save([
          new Skill({
            frontmatter: {
              name: "from_skillport",
              description: "Saved by Skillport. Use when testing.",
              license: "MIT",
            },
            body: "Body.\n",
            resources: new Map([["references/a.md", "A\n"]]),
          }),
        ]);
        const [row] = await rawQuery(
          database,
          `SELECT skill_content, description, metadata_json FROM ${table("agentscope_skills")} WHERE name = 'from_skillport'`,
        );
        expect(row).toMatchObject({ skill_content: "Body.\n", description: "Saved by Skillport. Use when testing." });
        expect(JSON.parse(String(row?.metadata_json))).toMatchObject({ license: "MIT" });
        const binary = new Skill({
          frontmatter: { name: "binary_one", description: "Has an image. Use when testing." },
          body: "x",
          resources: new Map([["assets/a.png", new Uint8Array([0x89, 0xff, 0x00])]]),
        });
        await expect(repo.save([binary])).rejects.toBeInstanceOf(SkillValidationError);
        expect(await repo.skillExists("binary_one")).toBe(false);
      } finally {
        await repo.close();
      }
    });

    it("a namespace cannot be kept apart in AgentScope's tables: a clear configuration error", async () => {
      await expect(SqlSkillRepository.open({ connection: address, namespace: "alice" })).rejects.toMatchObject({
        code: "SQL_CONFIG",
      });
    });
  });
}
