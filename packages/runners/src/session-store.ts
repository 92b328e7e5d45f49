// Workspace files a job keeps between calls (a chat's working folder): versioned snapshots in PostgreSQL, which every
// runner reaches, so any runner can take the next call (docs/decisions/0372). A redelivered job writes no second
// version: a version remembers the job that wrote it, and that job's retry starts again from the version before.
import { gunzipSync, gzipSync } from "node:zlib";
import { importOptional } from "@skillport/core/internal";

export interface SessionFile {
  /** POSIX path relative to the working folder. */
  path: string;
  mode: number;
  bytes: Uint8Array;
}

export interface SessionSnapshot {
  /** The version these files are (0: the session is new). */
  version: number;
  files: SessionFile[];
  /** Set when this job already wrote a version (a redelivery): the files are that version's parent. */
  writtenByThisJob?: number;
}

export interface SessionStore {
  load(session: string, jobId: string): Promise<SessionSnapshot>;
  /** Writes the files as the next version after `base`; returns the version written (or the one this job wrote before). */
  save(session: string, jobId: string, base: number, files: readonly SessionFile[]): Promise<number>;
  close(): Promise<void>;
}

function encodeSnapshot(files: readonly SessionFile[]): Buffer {
  return gzipSync(
    JSON.stringify(files.map((f) => ({ path: f.path, mode: f.mode, base64: Buffer.from(f.bytes).toString("base64") }))),
  );
}

function decodeSnapshot(data: Uint8Array, maxBytes: number): SessionFile[] {
  const text = gunzipSync(data, { maxOutputLength: Math.ceil(maxBytes * 1.4) + 1024 }).toString("utf8");
  const raw = JSON.parse(text) as { path: string; mode: number; base64: string }[];
  return raw.map((f) => ({ path: f.path, mode: f.mode, bytes: Buffer.from(f.base64, "base64") }));
}

interface PgClientLike {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}

const TABLE = "skillport_session_versions";

/** Session snapshots in PostgreSQL (`pg` is an optional peer: `npm install pg`). */
export class PostgresSessionStore implements SessionStore {
  private ready: Promise<PgClientLike> | undefined;

  constructor(
    private readonly url: string,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  private client(): Promise<PgClientLike> {
    this.ready ??= (async () => {
      const { default: pg } = await importOptional("pg", "runner sessions in PostgreSQL", () => import("pg"));
      const pool = new pg.Pool({ connectionString: this.url, max: 4 }) as unknown as PgClientLike;
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (session text NOT NULL, version integer NOT NULL, job_id text NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now(), snapshot bytea NOT NULL,
           PRIMARY KEY (session, version), UNIQUE (session, job_id))`,
      );
      return pool;
    })();
    return this.ready;
  }

  async load(session: string, jobId: string): Promise<SessionSnapshot> {
    const db = await this.client();
    const own = await db.query<{ version: number }>(`SELECT version FROM ${TABLE} WHERE session = $1 AND job_id = $2`, [
      session,
      jobId,
    ]);
    const mine = own.rows[0]?.version;
    const rows =
      mine === undefined
        ? await db.query<{ version: number; snapshot: Buffer }>(
            `SELECT version, snapshot FROM ${TABLE} WHERE session = $1 ORDER BY version DESC LIMIT 1`,
            [session],
          )
        : await db.query<{ version: number; snapshot: Buffer }>(
            `SELECT version, snapshot FROM ${TABLE} WHERE session = $1 AND version < $2 ORDER BY version DESC LIMIT 1`,
            [session, mine],
          );
    const row = rows.rows[0];
    const snapshot: SessionSnapshot =
      row === undefined
        ? { version: 0, files: [] }
        : { version: row.version, files: decodeSnapshot(row.snapshot, this.maxBytes) };
    if (mine !== undefined) snapshot.writtenByThisJob = mine;
    return snapshot;
  }

  async save(session: string, jobId: string, base: number, files: readonly SessionFile[]): Promise<number> {
    const db = await this.client();
    const data = encodeSnapshot(files);
    // The next version after `base`; if another job took it meanwhile, the next free one (history stays linear).
    for (let attempt = 0; attempt < 20; attempt++) {
      const inserted = await db.query<{ version: number }>(
        `INSERT INTO ${TABLE} (session, version, job_id, snapshot)
           SELECT $1, GREATEST($3::integer, COALESCE(MAX(version), 0)) + 1, $2, $4 FROM ${TABLE} WHERE session = $1
         ON CONFLICT DO NOTHING RETURNING version`,
        [session, jobId, base, data],
      );
      if (inserted.rows[0] !== undefined) return inserted.rows[0].version;
      const own = await db.query<{ version: number }>(
        `SELECT version FROM ${TABLE} WHERE session = $1 AND job_id = $2`,
        [session, jobId],
      );
      if (own.rows[0] !== undefined) return own.rows[0].version;
    }
    throw new Error(`session ${session}: could not write a new version (too many concurrent writers)`);
  }

  async close(): Promise<void> {
    if (this.ready === undefined) return;
    const db = await this.ready.catch(() => undefined);
    this.ready = undefined;
    await db?.end();
  }
}
