import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LimitExceededError,
  ProviderUnavailableError,
  RepositoryReadOnlyError,
  Skill,
  SkillExistsError,
  SkillNotFoundError,
  SkillRegistry,
  SkillValidationError,
  type RegistryChange,
} from "@skillport/core";
import { SqlDatabase } from "./connection.js";
import { SqlSkillRepository } from "./repository.js";
import { SCHEMA_VERSION } from "./schema.js";
import { availableDialects, createTestDatabase, rawQuery, type TestDatabase } from "./test-support/databases.js";

const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0xc3, 0x28, 0x80]); // not UTF-8, has NUL

function skill(
  name: string,
  options: {
    description?: string;
    body?: string;
    resources?: Record<string, string | Uint8Array>;
    extra?: Record<string, unknown>;
  } = {},
): Skill {
  return new Skill({
    frontmatter: {
      name,
      description: options.description ?? `Does ${name}. Use when testing.`,
      ...(options.extra as object),
    },
    body: options.body ?? `# ${name}\n\nSteps.\n`,
    resources: new Map(Object.entries(options.resources ?? {})),
    source: "test",
  });
}

let namespaceCounter = 0;

for (const dialect of await availableDialects()) {
  describe(`SqlSkillRepository on ${dialect}`, () => {
    let database: TestDatabase;
    let shared: SqlDatabase;
    const statements: string[] = [];
    /** A repository in a namespace of its own, so tests in one database never see each other. */
    const repo = (options: Partial<ConstructorParameters<typeof SqlSkillRepository>[0]> = {}) =>
      new SqlSkillRepository({ connection: shared, namespace: `t${++namespaceCounter}`, ...options });

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      shared = await SqlDatabase.open({
        ...(await import("./connection.js")).parseSqlAddress(database.url).connection,
        onQuery: (s) => statements.push(s),
      });
    });
    afterAll(async () => {
      await shared?.close();
      await database?.drop();
    });

    it("getSkill returns what was saved: frontmatter in order, body, text and binary files byte for byte", async () => {
      const r = repo();
      const original = skill("round-trip", {
        extra: { license: "MIT", metadata: { author: "me", tags: ["a", "b"] } },
        body: "\n# Title\r\n\r\nCRLF body with ünïcödé and a tab\t.\n",
        resources: {
          "references/notes.md": "# Notes\n",
          "assets/logo.png": BINARY,
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
          "assets/empty.txt": "",
        },
      });
      await r.save([original]);
      const loaded = await r.getSkill("round-trip");
      expect(loaded.frontmatter).toEqual(original.frontmatter);
      expect(Object.keys(loaded.frontmatter)).toEqual(["name", "description", "license", "metadata"]);
      expect(loaded.body).toBe(original.body);
      expect(loaded.resources.get("assets/logo.png")).toEqual(BINARY);
      expect(new TextDecoder().decode(loaded.resources.get("references/notes.md") as Uint8Array)).toBe("# Notes\n");
      expect(await loaded.digest()).toBe(await original.digest());
      expect(await r.readFile("round-trip", "assets/logo.png")).toEqual(BINARY);
      expect(new TextDecoder().decode(await r.readFile("round-trip", "SKILL.md"))).toBe(original.toSkillMd());
      const files = await r.listFiles("round-trip");
      expect(files.map((f) => [f.path, f.size])).toEqual([
        ["SKILL.md", new TextEncoder().encode(original.toSkillMd()).byteLength],
        ["assets/empty.txt", 0],
        ["assets/logo.png", BINARY.byteLength],
        ["references/notes.md", 8],
        ["scripts/run.sh", 18],
      ]);
      // Stored as Skillport says: digest and version per skill, binary in the byte column, text in the text column.
      const [row] = await rawQuery(database, "select digest, version from agentscope_skills where name = 'round-trip'");
      expect(row).toMatchObject({ digest: await original.digest() });
      expect(Number(row?.version)).toBe(1);
    });

    it("getAllSkillNames and getAllSkills list every skill sorted, each whole", async () => {
      const r = repo();
      await r.save([skill("b-skill", { resources: { "assets/x.bin": BINARY } }), skill("a-skill"), skill("Z-upper")]);
      expect(await r.getAllSkillNames()).toEqual(["Z-upper", "a-skill", "b-skill"]);
      const all = await r.getAllSkills();
      expect(all.map((s) => s.name)).toEqual(["Z-upper", "a-skill", "b-skill"]);
      expect(all[2]?.resources.get("assets/x.bin")).toEqual(BINARY);
      expect(all[0]?.source).toBe(r.name);
    });

    it("names are case-sensitive and exact", async () => {
      const r = repo();
      await r.save([skill("Case"), skill("case")]);
      expect((await r.getSkill("Case")).name).toBe("Case");
      expect(await r.skillExists("CASE")).toBe(false);
    });

    it("save without force: an existing name throws SkillExistsError and NOTHING of the batch is written", async () => {
      const r = repo();
      await r.save([skill("exists", { description: "Original. Use when testing." })]);
      await expect(
        r.save([skill("new-one"), skill("exists", { description: "Changed. Use when testing." })]),
      ).rejects.toBeInstanceOf(SkillExistsError);
      expect(await r.skillExists("new-one")).toBe(false);
      expect((await r.getMetadata("exists")).description).toBe("Original. Use when testing.");
    });

    it("save with force replaces whole skills: old files gone, version + 1, replaced reported", async () => {
      const r = repo();
      await r.save([skill("replace-me", { resources: { "references/old.md": "old", "assets/keep.bin": BINARY } })]);
      const result = await r.save(
        [
          skill("replace-me", { description: "New. Use when testing.", resources: { "references/new.md": "new" } }),
          skill("brand-new"),
        ],
        { force: true },
      );
      expect(result).toEqual({ saved: ["replace-me", "brand-new"], replaced: ["replace-me"] });
      expect((await r.listFiles("replace-me")).map((f) => f.path)).toEqual(["SKILL.md", "references/new.md"]);
      expect((await r.getMetadata("replace-me")).description).toBe("New. Use when testing.");
      const [row] = await rawQuery(
        database,
        `select version from agentscope_skills where name = 'replace-me' and namespace = '${r.namespace}'`,
      );
      expect(Number(row?.version)).toBe(2);
    });

    it("validates the whole batch before writing: unsafe names and paths, long paths, limits", async () => {
      const r = repo({ maxFilesPerSkill: 3, maxSkillBytes: 5000, maxFileBytes: 2000 });
      const cases: Array<[string, Skill]> = [
        ["unsafe name", skill("../escape")],
        ["unsafe path", skill("p1", { resources: { "../x.md": "x" } })],
        ["path over 500 characters", skill("p2", { resources: { [`references/${"a".repeat(500)}.md`]: "x" } })],
        ["too many files", skill("p3", { resources: { "a/1": "1", "a/2": "2", "a/3": "3" } })],
        ["file too large", skill("p4", { resources: { "a/big": "x".repeat(2001) } })],
        [
          "skill too large",
          skill("p5", { resources: { "a/1": "x".repeat(1900), "a/2": "x".repeat(1900) }, body: "y".repeat(1900) }),
        ],
        ["shadows SKILL.md", skill("p6", { resources: { "skill.md": "x" } })],
      ];
      for (const [label, bad] of cases) {
        await expect(r.save([skill("fine"), bad]), label).rejects.toBeInstanceOf(SkillValidationError);
      }
      expect(await r.discover()).toEqual([]);
    });

    it("delete removes the skill and its files; unknown or unsafe ids give false", async () => {
      const r = repo();
      await r.save([skill("doomed", { resources: { "references/a.md": "a", "assets/b.bin": BINARY } })]);
      expect(await r.delete("doomed")).toBe(true);
      expect(await r.skillExists("doomed")).toBe(false);
      await expect(r.getSkill("doomed")).rejects.toBeInstanceOf(SkillNotFoundError);
      expect(await r.delete("doomed")).toBe(false);
      expect(await r.delete("../etc")).toBe(false);
      const orphans = await rawQuery(
        database,
        "select count(*) as n from agentscope_skill_resources r where not exists (select 1 from agentscope_skills s where s.id = r.id)",
      );
      expect(Number(orphans[0]?.n)).toBe(0);
    });

    it("skillExists: true for stored skills, false for others and for unsafe ids", async () => {
      const r = repo();
      await r.save([skill("here")]);
      expect(await r.skillExists("here")).toBe(true);
      expect(await r.skillExists("not-here")).toBe(false);
      expect(await r.skillExists("../here")).toBe(false);
    });

    it("getRepositoryInfo and getSource describe the store without secrets", async () => {
      const r = repo();
      const info = r.getRepositoryInfo();
      expect(info).toMatchObject({
        type: "sql",
        dialect,
        writeable: true,
        namespace: r.namespace,
        tables: { skills: "agentscope_skills", resources: "agentscope_skill_resources" },
      });
      expect(r.getSource()).toBe(r.name);
      expect(r.name).toContain(`#${r.namespace}`);
    });

    it("setWriteable(false): save and delete refuse with RepositoryReadOnlyError; reads still work", async () => {
      const r = repo();
      await r.save([skill("ro")]);
      expect(r.isWriteable()).toBe(true);
      r.setWriteable(false);
      expect(r.isWriteable()).toBe(false);
      await expect(r.save([skill("ro2")])).rejects.toBeInstanceOf(RepositoryReadOnlyError);
      await expect(r.delete("ro")).rejects.toMatchObject({ code: "REPOSITORY_READ_ONLY" });
      expect(await r.skillExists("ro")).toBe(true);
      expect(getInfoWriteable(r)).toBe(false);
      r.setWriteable(true);
      await r.save([skill("ro2")]);
    });

    it("close: later calls fail as unavailable; a shared database stays open for others", async () => {
      const r = repo();
      await r.save([skill("c")]);
      await r.close();
      await expect(r.discover()).rejects.toBeInstanceOf(ProviderUnavailableError);
      await expect(r.save([skill("d")])).rejects.toBeInstanceOf(ProviderUnavailableError);
      expect(shared.closed).toBe(false);
      expect(await repo().discover()).toEqual([]);
    });

    it("two namespaces never see each other (same names allowed, no conflicts, separate deletes)", async () => {
      const alice = repo();
      const bob = repo();
      await alice.save([skill("shared-name", { description: "Alice's. Use when testing." }), skill("alice-only")]);
      await bob.save([skill("shared-name", { description: "Bob's. Use when testing." })]);
      expect(await alice.discover()).toEqual(["alice-only", "shared-name"]);
      expect(await bob.discover()).toEqual(["shared-name"]);
      expect((await bob.getSkill("shared-name")).description).toBe("Bob's. Use when testing.");
      await expect(bob.getBody("alice-only")).rejects.toBeInstanceOf(SkillNotFoundError);
      await expect(bob.readFile("alice-only", "SKILL.md")).rejects.toBeInstanceOf(SkillNotFoundError);
      expect(await bob.delete("alice-only")).toBe(false);
      expect(await bob.delete("shared-name")).toBe(true);
      expect(await alice.skillExists("shared-name")).toBe(true);
      expect((await bob.getAllSkills()).length).toBe(0);
      expect((await alice.getAllSkills()).map((s) => s.name)).toEqual(["alice-only", "shared-name"]);
    });

    it("progressive disclosure: listing never reads skill_content; getBody reads one row", async () => {
      const r = repo();
      await r.save([skill("pd-one", { body: "BODY-ONE" }), skill("pd-two", { body: "BODY-TWO" })]);
      statements.length = 0;
      const ids = await r.discover();
      for (const id of ids) await r.getMetadata(id);
      expect(statements.length).toBe(1);
      expect(statements.join("\n")).not.toMatch(/skill_content/);
      statements.length = 0;
      expect(await r.getBody("pd-two")).toBe("BODY-TWO");
      expect(statements.length).toBe(1);
      expect(statements[0]).toMatch(/skill_content/);
    });

    it("enforces the read limit: an oversized file is refused with LimitExceededError", async () => {
      const writer = repo();
      await writer.save([skill("big", { resources: { "assets/big.bin": new Uint8Array(5000) } })]);
      const reader = new SqlSkillRepository({ connection: shared, namespace: writer.namespace, maxFileBytes: 4000 });
      await expect(reader.readFile("big", "assets/big.bin")).rejects.toBeInstanceOf(LimitExceededError);
      expect((await reader.readFile("big", "SKILL.md")).byteLength).toBeLessThan(4000);
    });

    it("migrations ran once: the migrations table holds one row per version, and opening again applies nothing", async () => {
      const rows = await rawQuery(database, "select version from agentscope_skills_migrations");
      expect(rows.map((row) => Number(row.version))).toEqual([1]);
      const again = await SqlSkillRepository.open({ connection: database.url });
      try {
        expect(await again.ready()).toMatchObject({ layout: "skillport", version: SCHEMA_VERSION, applied: [] });
      } finally {
        await again.close();
      }
    });

    it("custom table names keep separate tables", async () => {
      const r = repo({ tables: { skills: "team_skills", resources: "team_resources" } });
      await r.save([skill("custom-tables", { resources: { "assets/a.bin": BINARY } })]);
      const rows = await rawQuery(database, "select name from team_skills");
      expect(rows.map((row) => row.name)).toEqual(["custom-tables"]);
      expect((await rawQuery(database, "select version from team_skills_migrations")).length).toBe(1);
      expect((await r.getSkill("custom-tables")).resources.get("assets/a.bin")).toEqual(BINARY);
    });

    it("watch reports changed ids and a SkillRegistry refreshes from them (added, updated, removed)", async () => {
      const r = repo({ pollIntervalMs: 50 });
      await r.save([skill("watched", { description: "First. Use when testing." })]);
      const registry = new SkillRegistry();
      await registry.addProvider(r);
      const changes: RegistryChange[] = [];
      registry.on("change", (change) => changes.push(change));
      // A second, separate connection writes, as another process would.
      const other = await SqlSkillRepository.open({ connection: database.url, namespace: r.namespace });
      try {
        const next = () =>
          new Promise<RegistryChange>((resolve) => {
            const off = registry.on("change", (change) => {
              off();
              resolve(change);
            });
          });
        let pending = next();
        await other.save([skill("arrived")]);
        expect(await pending).toMatchObject({ added: ["arrived"] });
        pending = next();
        await other.save([skill("watched", { description: "Second. Use when testing." })], { force: true });
        expect(await pending).toMatchObject({ updated: ["watched"] });
        expect(registry.get("watched").getMetadata().description).toBe("Second. Use when testing.");
        pending = next();
        await other.delete("arrived");
        expect(await pending).toMatchObject({ removed: ["arrived"] });
      } finally {
        registry.close();
        await other.close();
        await r.close();
      }
    });

    it("a namespace's watcher never reports another namespace's writes", async () => {
      const mine = repo({ pollIntervalMs: 30 });
      const theirs = repo();
      await mine.discover();
      const seen: string[][] = [];
      const stop = mine.watch((ids) => seen.push(ids));
      await new Promise((resolve) => setTimeout(resolve, 150)); // the watcher takes its first look
      await theirs.save([skill("not-yours")]);
      await mine.save([skill("yours")]);
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      stop();
      expect(seen.flat()).toEqual(["yours"]);
    });
  });
}

function getInfoWriteable(r: SqlSkillRepository): boolean {
  return r.getRepositoryInfo().writeable;
}

describe("schema detection while another process migrates", () => {
  // Another process's migration commits between this process's two looks at the schema. Looking for the migrations
  // table first and the skills table second read that moment as an AgentScope database (text-only tables), and a save
  // with a binary file then failed with `resource-binary` problems (seen in CI as SKILL_VALIDATION). The migration is
  // replayed here from a second connection at exactly that moment, deterministically.
  it("never takes a Skillport schema committed between the looks for AgentScope's tables", async () => {
    const reference = await createTestDatabase("sqlite");
    const target = await createTestDatabase("sqlite");
    const { default: Sqlite } = await import("better-sqlite3");
    try {
      const made = new SqlSkillRepository({ connection: reference.url });
      await made.ready();
      await made.close();
      const ref = new Sqlite(reference.url.slice("sqlite:".length));
      const ddl = ref
        .prepare("select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by rowid")
        .all() as Array<{ sql: string }>;
      const versions = ref.prepare("select version, name from agentscope_skills_migrations").all() as Array<{
        version: number;
        name: string;
      }>;
      ref.close();
      const other = new Sqlite(target.url.slice("sqlite:".length));
      let migrated = false;
      const migrateFromElsewhere = () => {
        migrated = true;
        other.exec("begin");
        for (const { sql: statement } of ddl) other.exec(statement);
        for (const { version, name } of versions)
          other.prepare("insert into agentscope_skills_migrations (version, name) values (?, ?)").run(version, name);
        other.exec("commit");
      };
      const repository = new SqlSkillRepository({
        connection: {
          dialect: "sqlite",
          filename: target.url.slice("sqlite:".length),
          onQuery: (statement) => !migrated && statement.includes("sqlite_master") && migrateFromElsewhere(),
        },
      });
      try {
        await repository.save([skill("race-a", { resources: { "assets/blob.bin": BINARY } })]);
        expect(migrated).toBe(true);
        expect([...((await repository.getSkill("race-a")).resources.get("assets/blob.bin") as Uint8Array)]).toEqual([
          ...BINARY,
        ]);
      } finally {
        await repository.close();
        other.close();
      }
    } finally {
      await reference.drop();
      await target.drop();
    }
  });
});
