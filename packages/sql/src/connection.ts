import { existsSync } from "node:fs";
import {
  Kysely,
  MysqlDialect,
  PostgresDialect,
  SqliteDialect,
  sql,
  type Dialect,
  type KyselyConfig,
  type SqliteDatabase,
  type SqliteStatement,
} from "kysely";
import { importOptional, redactUri } from "@skillport/core/internal";
import { rememberSecret, SqlRepositoryError, wrapDriverError } from "./errors.js";
import type { SqlTableNames } from "./tables.js";

export type SqlDialectName = "sqlite" | "postgres" | "mysql";

/** How to reach a database. Drivers are imported only for the dialect used (a PostgreSQL user never loads SQLite). */
export interface SqlConnectionOptions {
  dialect: SqlDialectName;
  /** SQLite: a file path or `:memory:`. */
  filename?: string;
  /** PostgreSQL and MySQL/MariaDB: a connection URL (`postgres://…`, `mysql://…`). */
  url?: string;
  /** SQLite: refuse to create the file when it is missing (reading should not create databases). Default false. */
  mustExist?: boolean;
  /** PostgreSQL: the schema to use (sets `search_path`). Default: the server's default (`public`). */
  schema?: string;
  /** Most pooled connections (PostgreSQL, MySQL). Default 4. */
  poolSize?: number;
  /** How long to wait for a connection, a lock or a busy SQLite file, in ms. Default 10000. */
  timeoutMs?: number;
  /** Called with the text of every statement run (never its parameters): for tracing and tests. */
  onQuery?: (statement: string) => void;
}

/** A parsed source address: the connection plus Skillport's own query parameters. */
export interface SqlAddress {
  connection: SqlConnectionOptions;
  namespace: string | undefined;
  tables: Partial<SqlTableNames>;
  /** The address for people: password and secret parameters replaced by `***`. */
  display: string;
}

const SCHEMES: Record<string, SqlDialectName> = {
  sqlite: "sqlite",
  postgres: "postgres",
  postgresql: "postgres",
  mysql: "mysql",
  mariadb: "mysql",
};

/** Query parameters Skillport reads itself (everything else goes to the driver). */
const OWN_PARAMS: Record<string, keyof SqlTableNames | "namespace" | "schema"> = {
  namespace: "namespace",
  skills_table: "skills",
  resources_table: "resources",
  schema: "schema",
};

/** The dialect a source address names, or undefined when it is not a SQL address. */
export function sqlDialectOf(address: string): SqlDialectName | undefined {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(address);
  return match ? SCHEMES[(match[1] ?? "").toLowerCase()] : undefined;
}

/**
 * Parses `sqlite:./x.db`, `sqlite:///abs/x.db`, `sqlite::memory:`, `postgres://…`/`postgresql://…` and
 * `mysql://…`/`mariadb://…`. Skillport's own parameters (`namespace`, `skills_table`, `resources_table`, and
 * `schema` for PostgreSQL) are taken out; the rest are passed to the driver.
 */
export function parseSqlAddress(address: string): SqlAddress {
  const dialect = sqlDialectOf(address);
  const display = redactUri(address);
  if (!dialect)
    throw new SqlRepositoryError(
      `not a SQL address: ${display} (expected sqlite:, postgres://, postgresql://, mysql:// or mariadb://)`,
      "SQL_CONFIG",
    );
  const own: Record<string, string> = {};
  let connection: SqlConnectionOptions;
  if (dialect === "sqlite") {
    let rest = address.slice(address.indexOf(":") + 1);
    const query = rest.indexOf("?");
    if (query >= 0) {
      for (const [key, value] of new URLSearchParams(rest.slice(query + 1))) {
        if (!(key in OWN_PARAMS) || key === "schema")
          throw new SqlRepositoryError(
            `${display}: unknown parameter ${JSON.stringify(key)} (sqlite takes namespace, skills_table, resources_table)`,
            "SQL_CONFIG",
          );
        own[key] = value;
      }
      rest = rest.slice(0, query);
    }
    if (rest.startsWith("//")) rest = rest.slice(2);
    if (rest === "")
      throw new SqlRepositoryError(
        `${display}: no database file (write sqlite:./skills.db or sqlite::memory:)`,
        "SQL_CONFIG",
      );
    connection = { dialect, filename: rest };
  } else {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new SqlRepositoryError(`not a valid address: ${display}`, "SQL_CONFIG");
    }
    for (const key of Object.keys(OWN_PARAMS)) {
      const value = url.searchParams.get(key);
      if (value === null) continue;
      if (key === "schema" && dialect !== "postgres")
        throw new SqlRepositoryError(`${display}: the schema parameter is for PostgreSQL only`, "SQL_CONFIG");
      own[key] = value;
      url.searchParams.delete(key);
    }
    if (dialect === "mysql") url = new URL(`mysql:${url.href.slice(url.protocol.length)}`);
    rememberSecret(url.password);
    rememberSecret(safeDecode(url.password));
    connection = { dialect, url: url.href, ...(own.schema !== undefined && { schema: own.schema }) };
  }
  const tables: Partial<SqlTableNames> = {};
  if (own.skills_table !== undefined) tables.skills = own.skills_table;
  if (own.resources_table !== undefined) tables.resources = own.resources_table;
  return { connection, namespace: own.namespace, tables, display };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Where a connection points, for people (never with a password). */
export function describeConnection(options: SqlConnectionOptions): string {
  if (options.dialect === "sqlite") return `sqlite:${options.filename ?? ""}`;
  return redactUri(options.url ?? `${options.dialect}://`);
}

const DEFAULT_POOL_SIZE = 4;
const DEFAULT_TIMEOUT_MS = 10_000;

/** A listener connection for PostgreSQL LISTEN/NOTIFY (the pool's connections are shared and cannot hold one). */
export interface NotificationClient {
  listen(channel: string, onNotify: (payload: string) => void, onError: (error: unknown) => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * One open database: a Kysely instance over the dialect's driver. Several repositories (namespaces, table sets) may
 * share one; whoever opened it closes it.
 */
export class SqlDatabase {
  readonly dialect: SqlDialectName;
  /** Where it is, for people and messages (redacted). */
  readonly display: string;
  readonly kysely: Kysely<unknown>;
  readonly timeoutMs: number;
  readonly #notifications: (() => Promise<NotificationClient>) | undefined;
  /** Schema work already done on this connection, by table set (see schema.ts). */
  readonly prepared = new Map<string, Promise<unknown>>();
  #closed = false;

  private constructor(
    dialect: SqlDialectName,
    display: string,
    kysely: Kysely<unknown>,
    timeoutMs: number,
    notifications?: () => Promise<NotificationClient>,
  ) {
    this.dialect = dialect;
    this.display = display;
    this.kysely = kysely;
    this.timeoutMs = timeoutMs;
    this.#notifications = notifications;
  }

  /** Opens a database from an address (`sqlite:./x.db`, `postgres://…`, `mysql://…`) or connection options. */
  static async open(target: string | SqlConnectionOptions): Promise<SqlDatabase> {
    const options = typeof target === "string" ? parseSqlAddress(target).connection : target;
    const display = describeConnection(options);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
    try {
      switch (options.dialect) {
        case "sqlite": {
          const dialect = await sqliteDialect(options, display, timeoutMs);
          return new SqlDatabase("sqlite", display, new Kysely<unknown>(kyselyConfig(dialect, options)), timeoutMs);
        }
        case "postgres": {
          const { dialect, notifications } = await postgresDialect(options, display, poolSize, timeoutMs);
          const db = new SqlDatabase(
            "postgres",
            display,
            new Kysely<unknown>(kyselyConfig(dialect, options)),
            timeoutMs,
            notifications,
          );
          await db.ping();
          return db;
        }
        case "mysql": {
          const dialect = await mysqlDialect(options, display, poolSize, timeoutMs);
          const db = new SqlDatabase("mysql", display, new Kysely<unknown>(kyselyConfig(dialect, options)), timeoutMs);
          await db.ping();
          return db;
        }
        default:
          throw new SqlRepositoryError(
            `unknown SQL dialect ${JSON.stringify((options as { dialect: unknown }).dialect)}`,
            "SQL_CONFIG",
          );
      }
    } catch (error) {
      throw wrapDriverError(error, display, "connect");
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A dedicated PostgreSQL connection for LISTEN; undefined for other dialects. */
  notificationClient(): Promise<NotificationClient> | undefined {
    return this.#notifications?.();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.kysely.destroy();
  }

  /** Fails early (and typed) when the server is unreachable or refuses us, instead of on the first query. */
  private async ping(): Promise<void> {
    try {
      await sql`select 1`.execute(this.kysely);
    } catch (error) {
      await this.kysely.destroy().catch(() => undefined);
      throw error;
    }
  }
}

async function sqliteDialect(options: SqlConnectionOptions, display: string, timeoutMs: number): Promise<Dialect> {
  const filename = options.filename ?? ":memory:";
  const memory = filename === ":memory:";
  if (!memory && options.mustExist && !existsSync(filename)) {
    throw new SqlRepositoryError(`${display}: no such database file`, "SQL_CONFIG");
  }
  const { default: Database } = await importOptional(
    "better-sqlite3",
    `the SQL source ${display}`,
    () => import("better-sqlite3"),
  );
  const database = new Database(filename, { timeout: timeoutMs, fileMustExist: Boolean(options.mustExist) && !memory });
  database.pragma("foreign_keys = ON");
  // WAL: readers never wait for a writer, and a writer in another process never sees a reader's half-read state.
  if (!memory) await switchToWal(database, timeoutMs);
  return new SqliteDialect({ database: keepingStatements(database) });
}

/** Prepared statements kept per connection, by SQL text; the oldest goes past this many. */
const MAX_SQLITE_STATEMENTS = 256;

/**
 * The database as Kysely's SQLite driver sees it, with each statement prepared once per SQL text: the driver prepares
 * every query it runs, and preparing costs more than running a small indexed read. Values travel as parameters, so a
 * program has few distinct texts. Safe because the driver runs one statement at a time per connection (its mutex is
 * held while a streamed select is read).
 */
function keepingStatements(database: { close(): unknown; prepare(sql: string): SqliteStatement }): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => void database.close(),
    prepare(text: string): SqliteStatement {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (statements.size >= MAX_SQLITE_STATEMENTS) statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * `journal_mode = WAL` can answer SQLITE_BUSY at once, without the busy timeout, while another process opens the same
 * new file and switches it too: tried again every 20 ms until `timeoutMs`, like any other lock.
 */
async function switchToWal(database: { pragma(source: string): unknown }, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      database.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function postgresDialect(
  options: SqlConnectionOptions,
  display: string,
  poolSize: number,
  timeoutMs: number,
): Promise<{ dialect: Dialect; notifications: () => Promise<NotificationClient> }> {
  const { default: pg } = await importOptional("pg", `the SQL source ${display}`, () => import("pg"));
  if (!options.url) throw new SqlRepositoryError(`${display}: no connection URL`, "SQL_CONFIG");
  // bigint (int8) as a JS number for this pool only: ids and counters stay far below 2^53.
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === 20
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
  };
  const config = {
    connectionString: options.url,
    connectionTimeoutMillis: timeoutMs,
    types,
    ...(options.schema !== undefined && { options: `-c search_path=${quotePgIdentifier(options.schema)}` }),
  };
  const pool = new pg.Pool({ ...config, max: poolSize });
  // An idle client that loses its server emits here; without a listener that would crash the process.
  pool.on("error", () => undefined);
  const notifications = async (): Promise<NotificationClient> => {
    const client = new pg.Client(config);
    client.on("error", () => undefined);
    await client.connect();
    return {
      async listen(channel, onNotify, onError) {
        client.on("notification", (message) => {
          if (message.channel === channel) onNotify(message.payload ?? "");
        });
        client.removeAllListeners("error");
        client.on("error", onError);
        client.on("end", () => onError(new Error("listener connection ended")));
        await client.query(`LISTEN ${quotePgIdentifier(channel)}`);
      },
      async close() {
        client.removeAllListeners("end");
        await client.end().catch(() => undefined);
      },
    };
  };
  return { dialect: new PostgresDialect({ pool }), notifications };
}

async function mysqlDialect(
  options: SqlConnectionOptions,
  display: string,
  poolSize: number,
  timeoutMs: number,
): Promise<Dialect> {
  const mysql = await importOptional("mysql2", `the SQL source ${display}`, () => import("mysql2"));
  if (!options.url) throw new SqlRepositoryError(`${display}: no connection URL`, "SQL_CONFIG");
  const pool = mysql.createPool({
    uri: options.url,
    connectionLimit: poolSize,
    connectTimeout: timeoutMs,
    charset: "utf8mb4",
    // Text columns as JS strings, blobs as Buffers, dates as text: nothing is reinterpreted on the way out.
    dateStrings: true,
    multipleStatements: false,
  });
  return new MysqlDialect({ pool });
}

function kyselyConfig(dialect: Dialect, options: SqlConnectionOptions): KyselyConfig {
  const onQuery = options.onQuery;
  if (!onQuery) return { dialect };
  return { dialect, log: (event) => onQuery(event.query.sql) };
}

function quotePgIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
