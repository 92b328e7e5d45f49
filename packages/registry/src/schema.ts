import { sql, type Kysely, type RawBuilder } from "kysely";
import { withMigrationLock, SqlRepositoryError, type SqlDatabase, type SqlDialectName } from "@skillport/sql";

/** The newest schema this code knows. */
export const REGISTRY_SCHEMA_VERSION = 4;

interface Migration {
  version: number;
  name: string;
  statements(dialect: SqlDialectName): RawBuilder<unknown>[];
}

// Ids are random text and times ISO text, so SQLite and PostgreSQL store the same values the same way.
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "registry tables",
    statements: () => {
      return [
        sql`create table registry_state (key varchar(64) primary key, value bigint not null)`,
        sql`insert into registry_state (key, value) values ('changes', 0)`,
        sql`create table registry_tokens (id varchar(32) primary key, user_name varchar(64) not null, scopes varchar(64) not null, hash varchar(64) not null unique, label varchar(200) not null, created_at varchar(32) not null, revoked_at varchar(32))`,
        sql`create table registry_namespaces (name varchar(64) primary key, created_by varchar(64) not null, created_at varchar(32) not null)`,
        sql`create table registry_members (namespace varchar(64) not null, user_name varchar(64) not null, role varchar(16) not null, primary key (namespace, user_name))`,
        sql`create table registry_skills (id varchar(32) primary key, namespace varchar(64) not null, name varchar(64) not null, owner varchar(64) not null, created_at varchar(32) not null, updated_at varchar(32) not null, unique (namespace, name))`,
        sql`create table registry_versions (skill_id varchar(32) not null, version varchar(64) not null, content_digest varchar(80) not null, blob varchar(64) not null, size bigint not null, description text not null, frontmatter text not null, body_head text not null, files text not null, changelog text not null, verdict varchar(16) not null, findings text not null, hold varchar(16), yanked integer not null default 0, published_by varchar(64) not null, created_at varchar(32) not null, primary key (skill_id, version))`,
        sql`create index registry_versions_content on registry_versions (skill_id, content_digest)`,
        sql`create index registry_versions_blob on registry_versions (blob)`,
        sql`create table registry_tags (skill_id varchar(32) not null, tag varchar(64) not null, version varchar(64) not null, primary key (skill_id, tag))`,
        sql`create table registry_blobs (digest varchar(64) primary key, touched_at varchar(32) not null)`,
        sql`create table registry_uploads (id varchar(32) primary key, blob varchar(64) not null, started_at varchar(32) not null)`,
        sql`create table registry_log (id varchar(32) primary key, at varchar(32) not null, actor varchar(64) not null, action varchar(32) not null, target varchar(200) not null, detail text not null)`,
      ];
    },
  },
  {
    version: 2,
    name: "package archives for runners",
    statements: () => [
      sql`create table registry_packages (version_id varchar(32) primary key, blob varchar(64) not null, size bigint not null, skills text not null, verdict varchar(16) not null, findings text not null, uploaded_by varchar(64) not null, created_at varchar(32) not null)`,
      sql`create index registry_packages_blob on registry_packages (blob)`,
    ],
  },
  {
    version: 3,
    name: "flat archive digest",
    // The sha256 of a version's files zipped with SKILL.md at the top (the index's archive); null for older versions.
    statements: () => [sql`alter table registry_versions add column flat_digest varchar(64)`],
  },
  {
    version: 4,
    name: "shared rate limits",
    // Hits per key (hashed) per fixed window (`slot`: when it ends, in ms), summed over the processes (decision 0419).
    statements: () => [
      sql`create table registry_rate (key varchar(64) not null, slot bigint not null, hits bigint not null, primary key (key, slot))`,
    ],
  },
];

/**
 * Creates or upgrades the registry's tables, once, under the sql package's migration lock (several servers starting
 * together on one PostgreSQL apply each version exactly once). A database newer than this code is refused.
 */
export async function migrateRegistry(database: SqlDatabase): Promise<number[]> {
  if (database.dialect === "mysql")
    throw new SqlRepositoryError(`${database.display}: the registry runs on SQLite or PostgreSQL`, "SQL_CONFIG");
  return withMigrationLock(database, "skillport-registry-migrate", async (db) => {
    await sql`create table if not exists registry_migrations (version integer primary key, name varchar(200) not null, applied_at varchar(32) not null)`.execute(
      db,
    );
    const done = await applied(db);
    const newest = Math.max(0, ...done);
    if (newest > REGISTRY_SCHEMA_VERSION) {
      throw new SqlRepositoryError(
        `${database.display}: registry schema ${newest} is newer than this Skillport knows (${REGISTRY_SCHEMA_VERSION}); upgrade Skillport`,
        "SQL_SCHEMA",
      );
    }
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.includes(migration.version)) continue;
      for (const statement of migration.statements(database.dialect)) await statement.execute(db);
      await sql`insert into registry_migrations (version, name, applied_at) values (${migration.version}, ${migration.name}, ${new Date().toISOString()})`.execute(
        db,
      );
      ran.push(migration.version);
    }
    return ran;
  });
}

async function applied(db: Kysely<unknown>): Promise<number[]> {
  const { rows } = await sql<{ version: number | string }>`select version from registry_migrations`.execute(db);
  return rows.map((r) => Number(r.version));
}
