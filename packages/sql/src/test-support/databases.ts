// Real servers for the SQL tests: each test file makes its own database with a unique name and drops it afterwards,
// so parallel runs never meet. PostgreSQL and MariaDB are reached on 127.0.0.1 (see .ci/run); when one is down the
// tests that need it skip with a printed reason — except in CI (SKILLPORT_REQUIRE_SYSTEM_DEPS=1), where that fails.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import mysql from "mysql2/promise";

export type ServerDialect = "postgres" | "mysql";
export type TestDialect = "sqlite" | ServerDialect;

const ADMIN_URL: Record<ServerDialect, string> = {
  postgres: process.env.SKILLPORT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  mysql: process.env.SKILLPORT_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/",
};

export interface TestDatabase {
  dialect: TestDialect;
  /** The address a repository opens. */
  url: string;
  drop(): Promise<void>;
}

/** Why a server cannot be used here, or undefined when it answers. */
async function probe(dialect: ServerDialect): Promise<string | undefined> {
  try {
    if (dialect === "postgres") {
      const client = new pg.Client({ connectionString: ADMIN_URL.postgres, connectionTimeoutMillis: 3000 });
      await client.connect();
      await client.end();
    } else {
      const connection = await mysql.createConnection({ uri: ADMIN_URL.mysql, connectTimeout: 3000 });
      await connection.end();
    }
    return undefined;
  } catch (error) {
    return `${dialect} is not reachable at ${ADMIN_URL[dialect].replace(/:[^:@/]*@/, ":***@")}: ${(error as Error).message || String(error)}`;
  }
}

const probes = new Map<ServerDialect, Promise<string | undefined>>();

/**
 * Whether tests may use the server. Missing in CI is an error (thrown); elsewhere the reason is printed once and the
 * caller skips.
 */
export async function serverAvailable(dialect: ServerDialect): Promise<boolean> {
  let pending = probes.get(dialect);
  if (!pending) probes.set(dialect, (pending = probe(dialect)));
  const reason = await pending;
  if (reason === undefined) return true;
  if (process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS)
    throw new Error(`${reason} (SKILLPORT_REQUIRE_SYSTEM_DEPS is set, so the SQL tests may not skip)`);
  // eslint-disable-next-line no-console -- tests that skip say why (the house rule for missing system tools)
  console.warn(`skipping ${dialect} tests: ${reason}`);
  return false;
}

/** The dialects this machine can test: SQLite always, the servers when they answer. */
export async function availableDialects(): Promise<TestDialect[]> {
  const out: TestDialect[] = ["sqlite"];
  for (const dialect of ["postgres", "mysql"] as const) if (await serverAvailable(dialect)) out.push(dialect);
  return out;
}

function uniqueName(): string {
  return `skillport_t_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/** A fresh, empty database (SQLite: a file in a temp dir). */
export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(path.join(os.tmpdir(), "skillport-sql-"));
    return {
      dialect,
      url: `sqlite:${path.join(dir, "skills.db")}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = uniqueName();
  if (dialect === "postgres") {
    const admin = new pg.Client({ connectionString: ADMIN_URL.postgres });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(ADMIN_URL.postgres);
    url.pathname = `/${name}`;
    return {
      dialect,
      url: url.href,
      drop: async () => {
        const client = new pg.Client({ connectionString: ADMIN_URL.postgres });
        await client.connect();
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
      },
    };
  }
  const admin = await mysql.createConnection({ uri: ADMIN_URL.mysql });
  try {
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL.mysql);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.href,
    drop: async () => {
      const client = await mysql.createConnection({ uri: ADMIN_URL.mysql });
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Runs SQL against a test database directly (to build foreign tables by hand, or to look behind the repository). */
export async function rawQuery(
  database: TestDatabase,
  text: string,
  params: unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  if (database.dialect === "postgres") {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  if (database.dialect === "mysql") {
    const client = await mysql.createConnection({ uri: database.url, charset: "utf8mb4" });
    try {
      const [rows] = await client.query(text, params);
      return (Array.isArray(rows) ? rows : []) as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(database.url.slice("sqlite:".length));
  try {
    const statement = db.prepare(text);
    return statement.reader
      ? (statement.all(...params) as Array<Record<string, unknown>>)
      : (statement.run(...params), []);
  } finally {
    db.close();
  }
}
