import { sql, type Kysely, type RawBuilder } from "kysely";
import type { SqlDatabase, SqlDialectName } from "./connection.js";
import { SqlRepositoryError, wrapDriverError } from "./errors.js";
import type { SqlTableNames } from "./tables.js";

/**
 * `skillport`: tables made by Skillport's migrations (AgentScope's columns plus namespace, digest, version and bytes).
 * `agentscope`: an AgentScope database read and written as it is — its DDL, text-only resources, no namespaces.
 */
export type SqlLayout = "skillport" | "agentscope";

export interface SchemaState {
  layout: SqlLayout;
  /** AgentScope tables made before metadata_json existed lack it; frontmatter is then name and description only. */
  hasMetadataJson: boolean;
  /** Schema version now (0 for AgentScope tables). */
  version: number;
  /** Versions this call applied (empty when another process, or an earlier run, already had). */
  applied: number[];
}

export interface PrepareSchemaOptions {
  /** Create missing tables and apply pending migrations. Default true. */
  migrate: boolean;
  /** `auto` (default): Skillport's tables when present or creatable, else AgentScope's as they are. */
  layout: "auto" | SqlLayout;
}

interface Migration {
  version: number;
  name: string;
  statements: (dialect: SqlDialectName, tables: SqlTableNames) => RawBuilder<unknown>[];
}

/** Every schema version, in order. A migration never changes once released: add a new one. */
const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "skills, resources and change counters", statements: createTablesV1 },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Finds or makes the tables, once per database handle and table set (concurrent callers share the work).
 * Migrations run under a lock that also covers creating the migrations table, so two processes starting together
 * apply each version exactly once: SQLite `BEGIN IMMEDIATE`, a PostgreSQL transaction-scoped advisory lock (DDL is
 * transactional there), a MySQL named lock (`GET_LOCK`; MySQL DDL commits implicitly).
 */
export function prepareSchema(
  database: SqlDatabase,
  tables: SqlTableNames,
  options: PrepareSchemaOptions,
): Promise<SchemaState> {
  const key = JSON.stringify([tables, options]);
  let pending = database.prepared.get(key) as Promise<SchemaState> | undefined;
  if (!pending) {
    pending = detectAndMigrate(database, tables, options);
    database.prepared.set(key, pending);
    pending.catch(() => database.prepared.delete(key));
  }
  return pending;
}

async function detectAndMigrate(
  database: SqlDatabase,
  tables: SqlTableNames,
  options: PrepareSchemaOptions,
): Promise<SchemaState> {
  const db = database.kysely;
  try {
    // The skills table is looked for first: a migration creates the migrations table before the skill tables (in one
    // transaction where DDL is transactional), so a skills table seen here with no migrations table after it is
    // AgentScope's own, never a Skillport migration another process committed between the two looks.
    const hasSkills = await tableExists(db, database.dialect, tables.skills);
    if (options.layout !== "agentscope" && (await tableExists(db, database.dialect, tables.migrations))) {
      return await migrateOrCheck(database, tables, options);
    }
    if (options.layout !== "skillport" && hasSkills) {
      return await checkAgentScopeTables(database, tables);
    }
    if (options.layout === "agentscope") {
      throw new SqlRepositoryError(
        `${database.display}: no table ${tables.skills} (layout agentscope reads existing AgentScope tables and never creates them)`,
        "SQL_SCHEMA",
      );
    }
    if (options.layout === "skillport" && hasSkills) {
      throw new SqlRepositoryError(
        `${database.display}: table ${tables.skills} exists but was not made by Skillport (use layout agentscope to read it as it is)`,
        "SQL_SCHEMA",
      );
    }
    if (!options.migrate) {
      throw new SqlRepositoryError(
        `${database.display}: no skill tables (${tables.skills}, ${tables.resources}); open it writable to create them`,
        "SQL_SCHEMA",
      );
    }
    return await migrateOrCheck(database, tables, options);
  } catch (error) {
    throw wrapDriverError(error, database.display, "preparing the schema");
  }
}

async function migrateOrCheck(
  database: SqlDatabase,
  tables: SqlTableNames,
  options: PrepareSchemaOptions,
): Promise<SchemaState> {
  if (!options.migrate) {
    const applied = await appliedVersions(database.kysely, tables);
    checkKnown(database, applied);
    const current = Math.max(0, ...applied);
    if (current < SCHEMA_VERSION) {
      throw new SqlRepositoryError(
        `${database.display}: schema version ${current} needs migrating to ${SCHEMA_VERSION}; open it writable once to upgrade`,
        "SQL_SCHEMA",
      );
    }
    return { layout: "skillport", hasMetadataJson: true, version: current, applied: [] };
  }
  const applied = await withMigrationLock(database, `skillport-migrate:${tables.skills}`, async (db) => {
    await sql`create table if not exists ${sql.table(tables.migrations)} (
      version integer not null primary key,
      name varchar(255) not null,
      applied_at ${timestampType(database.dialect)} default current_timestamp
    )`.execute(db);
    const done = await appliedVersions(db, tables);
    checkKnown(database, done);
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.includes(migration.version)) continue;
      for (const statement of migration.statements(database.dialect, tables)) await statement.execute(db);
      await sql`insert into ${sql.table(tables.migrations)} (version, name) values (${migration.version}, ${migration.name})`.execute(
        db,
      );
      ran.push(migration.version);
    }
    return ran;
  });
  return { layout: "skillport", hasMetadataJson: true, version: SCHEMA_VERSION, applied };
}

function checkKnown(database: SqlDatabase, applied: readonly number[]): void {
  const newest = Math.max(0, ...applied);
  if (newest > SCHEMA_VERSION) {
    throw new SqlRepositoryError(
      `${database.display}: schema version ${newest} is newer than this Skillport knows (${SCHEMA_VERSION}); upgrade Skillport`,
      "SQL_SCHEMA",
    );
  }
}

async function appliedVersions(db: Kysely<unknown>, tables: SqlTableNames): Promise<number[]> {
  const { rows } = await sql<{ version: number | string }>`select version from ${sql.table(tables.migrations)}`.execute(
    db,
  );
  return rows.map((r) => Number(r.version));
}

/**
 * Runs `run` under the one schema lock of the dialect (named `lockName`), for any package keeping its own tables and
 * migrations in a database (the registry does): SQLite `BEGIN IMMEDIATE`, a PostgreSQL transaction-scoped advisory
 * lock, a MySQL named lock. On SQLite and PostgreSQL `run` is inside the transaction, so its DDL commits with it.
 */
export async function withMigrationLock<T>(
  database: SqlDatabase,
  lockName: string,
  run: (db: Kysely<unknown>) => Promise<T>,
): Promise<T> {
  switch (database.dialect) {
    case "sqlite":
      return database.kysely.connection().execute(async (db) => {
        await sql`begin immediate`.execute(db);
        try {
          const result = await run(db);
          await sql`commit`.execute(db);
          return result;
        } catch (error) {
          await sql`rollback`.execute(db).catch(() => undefined);
          throw error;
        }
      });
    case "postgres":
      return database.kysely.transaction().execute(async (trx) => {
        await sql`select set_config('lock_timeout', ${`${database.timeoutMs}ms`}, true)`.execute(trx);
        await sql`select pg_advisory_xact_lock(hashtext(${lockName}))`.execute(trx);
        return run(trx);
      });
    case "mysql":
      return database.kysely.connection().execute(async (db) => {
        // Named locks are server-wide: the database name goes into the (hashed, length-limited) lock name.
        const { rows } = await sql<{
          got: number | null;
        }>`select get_lock(concat('skillport:', sha1(concat(database(), '.', ${lockName}))), ${Math.ceil(database.timeoutMs / 1000)}) as got`.execute(
          db,
        );
        if (Number(rows[0]?.got) !== 1)
          throw new SqlRepositoryError(
            `${database.display}: timed out waiting for another process's migration`,
            "SQL_SCHEMA",
          );
        try {
          return await run(db);
        } finally {
          await sql`select release_lock(concat('skillport:', sha1(concat(database(), '.', ${lockName}))))`.execute(db);
        }
      });
  }
}

async function checkAgentScopeTables(database: SqlDatabase, tables: SqlTableNames): Promise<SchemaState> {
  const db = database.kysely;
  const skills = await tableColumns(db, database.dialect, tables.skills);
  const missing = ["id", "name", "description", "skill_content", "source"].filter((c) => !skills.has(c));
  if (!(await tableExists(db, database.dialect, tables.resources))) missing.push(`table ${tables.resources}`);
  else {
    const resources = await tableColumns(db, database.dialect, tables.resources);
    for (const c of ["id", "resource_path", "resource_content"])
      if (!resources.has(c)) missing.push(`${tables.resources}.${c}`);
  }
  if (missing.length > 0) {
    throw new SqlRepositoryError(
      `${database.display}: ${tables.skills} is not an AgentScope skills table (missing ${missing.join(", ")})`,
      "SQL_SCHEMA",
    );
  }
  return { layout: "agentscope", hasMetadataJson: skills.has("metadata_json"), version: 0, applied: [] };
}

async function tableExists(db: Kysely<unknown>, dialect: SqlDialectName, table: string): Promise<boolean> {
  const query =
    dialect === "sqlite"
      ? sql`select name from sqlite_master where type = 'table' and name = ${table}`
      : dialect === "postgres"
        ? sql`select table_name from information_schema.tables where table_schema = current_schema() and table_name = ${table}`
        : sql`select table_name from information_schema.tables where table_schema = database() and table_name = ${table}`;
  return (await query.execute(db)).rows.length > 0;
}

async function tableColumns(db: Kysely<unknown>, dialect: SqlDialectName, table: string): Promise<Set<string>> {
  const query =
    dialect === "sqlite"
      ? sql<{ name: string }>`select name from pragma_table_info(${table})`
      : dialect === "postgres"
        ? sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
        : sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_schema = database() and table_name = ${table}`;
  return new Set((await query.execute(db)).rows.map((r) => String(r.name).toLowerCase()));
}

function timestampType(dialect: SqlDialectName): RawBuilder<unknown> {
  return dialect === "sqlite" ? sql`text` : sql`timestamp`;
}

/** Version 1: AgentScope's two tables with Skillport's columns, and the per-namespace change counters. */
function createTablesV1(dialect: SqlDialectName, tables: SqlTableNames): RawBuilder<unknown>[] {
  const skills = sql.table(tables.skills);
  const resources = sql.table(tables.resources);
  const changes = sql.table(tables.changes);
  if (dialect === "sqlite") {
    return [
      sql`create table ${skills} (
        id integer primary key autoincrement,
        namespace text not null default '',
        name text not null,
        description text not null,
        skill_content text not null,
        source text not null,
        metadata_json text null,
        digest text not null,
        version integer not null default 1,
        skill_md_bytes integer not null default 0,
        created_at text not null default current_timestamp,
        updated_at text not null default current_timestamp,
        unique (namespace, name)
      )`,
      sql`create table ${resources} (
        id integer not null references ${skills} (id) on delete cascade,
        resource_path text not null,
        resource_content text not null,
        resource_bytes blob null,
        created_at text not null default current_timestamp,
        updated_at text not null default current_timestamp,
        primary key (id, resource_path)
      )`,
      sql`create table ${changes} (namespace text not null primary key, version integer not null)`,
    ];
  }
  if (dialect === "postgres") {
    return [
      sql`create table ${skills} (
        id bigint generated by default as identity primary key,
        namespace varchar(255) not null default '',
        name varchar(255) not null,
        description text not null,
        skill_content text not null,
        source varchar(255) not null,
        metadata_json text null,
        digest varchar(80) not null,
        version bigint not null default 1,
        skill_md_bytes bigint not null default 0,
        created_at timestamp default current_timestamp,
        updated_at timestamp default current_timestamp,
        unique (namespace, name)
      )`,
      sql`create table ${resources} (
        id bigint not null references ${skills} (id) on delete cascade,
        resource_path varchar(500) not null,
        resource_content text not null,
        resource_bytes bytea null,
        created_at timestamp default current_timestamp,
        updated_at timestamp default current_timestamp,
        primary key (id, resource_path)
      )`,
      sql`create table ${changes} (namespace varchar(255) not null primary key, version bigint not null)`,
    ];
  }
  // MySQL/MariaDB: utf8mb4 with a binary collation, so names and paths compare exactly (case and accents count).
  const options = sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`;
  return [
    sql`create table ${skills} (
      id bigint not null auto_increment primary key,
      namespace varchar(255) not null default '',
      name varchar(255) not null,
      description mediumtext not null,
      skill_content longtext not null,
      source varchar(255) not null,
      metadata_json longtext null,
      digest varchar(80) not null,
      version bigint not null default 1,
      skill_md_bytes bigint not null default 0,
      created_at timestamp default current_timestamp,
      updated_at timestamp default current_timestamp on update current_timestamp,
      unique key (namespace, name)
    ) ${options}`,
    sql`create table ${resources} (
      id bigint not null,
      resource_path varchar(500) not null,
      resource_content longtext not null,
      resource_bytes longblob null,
      created_at timestamp default current_timestamp,
      updated_at timestamp default current_timestamp on update current_timestamp,
      primary key (id, resource_path),
      foreign key (id) references ${skills} (id) on delete cascade
    ) ${options}`,
    sql`create table ${changes} (namespace varchar(255) not null primary key, version bigint not null) ${options}`,
  ];
}
