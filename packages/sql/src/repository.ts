import { sql, type Kysely, type RawBuilder } from "kysely";
import {
  AgentSkillsError,
  LimitExceededError,
  ProviderUnavailableError,
  RepositoryReadOnlyError,
  ResourceNotFoundError,
  Skill,
  SkillExistsError,
  SkillNotFoundError,
  SkillSourceProvider,
  SkillValidationError,
  isSafeResourcePath,
  isSafeSkillId,
  requireSafeResourcePath,
  requireSafeSkillId,
  type Diagnostic,
  type Frontmatter,
  type ResourceContent,
  type SaveOptions,
  type SaveResult,
  type SkillFile,
  type SkillRepository,
  type SkillRepositoryInfo,
} from "@skillport/core";
import {
  compareCodeUnits,
  DEFAULT_MEMORY_MAX_FILE_BYTES,
  DEFAULT_PARSE_LIMITS,
  prepareSaveBatch,
  type PreparedSkill,
} from "@skillport/core/internal";
import {
  bodyOf,
  decodeResource,
  encodeResource,
  frontmatterJson,
  frontmatterOf,
  skillMdOf,
  type MetadataColumns,
} from "./codec.js";
import { parseSqlAddress, SqlDatabase, type SqlConnectionOptions, type SqlDialectName } from "./connection.js";
import { isUniqueViolation, SqlRepositoryError, wrapDriverError } from "./errors.js";
import { prepareSchema, type SchemaState, type SqlLayout } from "./schema.js";
import { resolveTableNames, TableNamesPlugin, type SkillDatabase, type SqlTableNames } from "./tables.js";
import { ChangeWatcher, notifyChannel } from "./watch.js";

export interface SqlSkillRepositoryOptions {
  /**
   * Where the skills are: an address (`sqlite:./skills.db`, `sqlite::memory:`, `postgres://…`, `mysql://…`; its
   * `namespace`, `skills_table` and `resources_table` parameters are read too), connection options, or an open
   * SqlDatabase to share (the repository never closes a database it was given).
   */
  connection: string | SqlConnectionOptions | SqlDatabase;
  /** Source name in qualified ids and messages. Default: the address with any password hidden. */
  name?: string;
  /** Keeps this repository's skills apart from every other namespace's (per user, per agent). Default `""`. */
  namespace?: string;
  /** Table names (defaults: AgentScope's `agentscope_skills` / `agentscope_skill_resources`). */
  tables?: Partial<SqlTableNames>;
  /** `auto` (default) finds Skillport's tables, else AgentScope's as they are, else creates Skillport's. */
  layout?: "auto" | SqlLayout;
  /** Create missing tables and apply pending migrations (AgentScope's `createIfNotExist`). Default true. */
  migrate?: boolean;
  /** Whether save and delete are allowed (AgentScope's `writeable`). Default true. */
  writeable?: boolean;
  /** Largest file served or saved (SKILL.md included), in bytes. Default 10 MiB, fs's one skill-file limit. */
  maxFileBytes?: number;
  /**
   * Largest frontmatter a listing reads (description and metadata columns together), in bytes. Default core's
   * `maxFrontmatterBytes` (256 KiB), as the filesystem source: a 50 MB description is refused by its length, in SQL,
   * without being transferred (`frontmatter-too-large`).
   */
  maxFrontmatterBytes?: number;
  /** Most files in one skill (SKILL.md included). Default 1000. */
  maxFilesPerSkill?: number;
  /** Most bytes in one skill, all files together. Default 50 MiB. */
  maxSkillBytes?: number;
  /** How often `watch` checks for changes where there is no LISTEN/NOTIFY, in ms. Default 2000. */
  pollIntervalMs?: number;
}

export const SQL_DEFAULT_LIMITS = Object.freeze({
  maxFileBytes: DEFAULT_MEMORY_MAX_FILE_BYTES, // core's and fs's one skill-file limit (10 MiB)
  maxFrontmatterBytes: DEFAULT_PARSE_LIMITS.maxFrontmatterBytes,
  maxFilesPerSkill: 1000,
  maxSkillBytes: 50 * 1024 * 1024,
  pollIntervalMs: 2000,
});

/** AgentScope's column width for resource paths. */
export const MAX_RESOURCE_PATH_LENGTH = 500;

/** One stored skill row as this module reads it. */
interface SkillRow {
  id: number;
  name: string;
  /** Null when the frontmatter's columns are over maxFrontmatterBytes (not selected). */
  description: string | null;
  metadata_json?: string | null;
  skill_content?: string | null;
  version?: number;
  digest?: string;
  size?: number | string | null;
  /** Bytes of the description and metadata columns, measured in SQL. */
  meta_size?: number | string | null;
}

interface Ready {
  database: SqlDatabase;
  db: Kysely<SkillDatabase>;
  schema: SchemaState;
  native: boolean;
}

/** Rows per multi-row statement: far below every dialect's parameter limit. */
const CHUNK = 200;
const SKILL_MD = "SKILL.md";

/**
 * Skills in a SQL database (SQLite, PostgreSQL, MySQL/MariaDB) through Kysely, in tables shaped like AgentScope's
 * (docs/sql.md). Listing reads the name, description and metadata columns only; `getBody` reads one row; files are
 * read one at a time. `save` is one transaction: all of a batch or nothing (docs/decisions/0002). Change
 * notification: PostgreSQL LISTEN/NOTIFY, elsewhere a per-namespace counter polled by `watch`.
 */
export class SqlSkillRepository extends SkillSourceProvider implements SkillRepository {
  readonly name: string;
  readonly namespace: string;
  readonly tables: SqlTableNames;
  readonly #options: SqlSkillRepositoryOptions;
  readonly #connection: string | SqlConnectionOptions | SqlDatabase;
  readonly #dialect: SqlDialectName | undefined;
  readonly #display: string;
  readonly #limits: {
    maxFileBytes: number;
    maxFrontmatterBytes: number;
    maxFilesPerSkill: number;
    maxSkillBytes: number;
    pollIntervalMs: number;
  };
  #ready: Promise<Ready> | undefined;
  #ownsDatabase: boolean;
  #writeable: boolean;
  #closed = false;
  /** Metadata rows the last `discover` read, handed out once each by `getMetadata` (see docs/sql.md). */
  #primed = new Map<string, SkillRow>();
  #watcher: ChangeWatcher | undefined;
  readonly #listeners = new Set<(ids: string[]) => void>();

  constructor(options: SqlSkillRepositoryOptions) {
    super();
    this.#options = options;
    let namespace = options.namespace;
    let tables = options.tables ?? {};
    const connection = options.connection;
    if (typeof connection === "string") {
      const address = parseSqlAddress(connection);
      namespace ??= address.namespace;
      tables = { ...address.tables, ...tables };
      this.#connection = address.connection;
      this.#display = address.display;
      this.#dialect = address.connection.dialect;
    } else if (connection instanceof SqlDatabase) {
      this.#connection = connection;
      this.#display = connection.display;
      this.#dialect = connection.dialect;
    } else {
      this.#connection = connection;
      this.#display = parseDisplay(connection);
      this.#dialect = connection.dialect;
    }
    this.#ownsDatabase = !(connection instanceof SqlDatabase);
    this.namespace = namespace ?? "";
    if (this.namespace.length > 255)
      throw new SqlRepositoryError("namespace is longer than 255 characters", "SQL_CONFIG");
    this.tables = resolveTableNames(tables);
    this.name =
      options.name ??
      (this.namespace === "" ? this.#display : `${this.#display}#${this.namespace}`).replace(/\s/g, "_");
    this.#writeable = options.writeable ?? true;
    this.#limits = {
      maxFileBytes: limit("maxFileBytes", options.maxFileBytes, SQL_DEFAULT_LIMITS.maxFileBytes),
      maxFrontmatterBytes: limit(
        "maxFrontmatterBytes",
        options.maxFrontmatterBytes,
        SQL_DEFAULT_LIMITS.maxFrontmatterBytes,
      ),
      maxFilesPerSkill: limit("maxFilesPerSkill", options.maxFilesPerSkill, SQL_DEFAULT_LIMITS.maxFilesPerSkill),
      maxSkillBytes: limit("maxSkillBytes", options.maxSkillBytes, SQL_DEFAULT_LIMITS.maxSkillBytes),
      pollIntervalMs: limit("pollIntervalMs", options.pollIntervalMs, SQL_DEFAULT_LIMITS.pollIntervalMs),
    };
  }

  /** A repository that is connected and has its tables (created or migrated as the options allow). */
  static async open(options: SqlSkillRepositoryOptions): Promise<SqlSkillRepository> {
    const repository = new SqlSkillRepository(options);
    try {
      await repository.ready();
    } catch (error) {
      await repository.close();
      throw error;
    }
    return repository;
  }

  /** Connects and prepares the schema; every other method does this first. Returns the schema state. */
  async ready(): Promise<SchemaState> {
    return (await this.#ensureReady()).schema;
  }

  // --- the seed repository's own methods -------------------------------------------------------------------

  /** AgentScope's `getAllSkillNames()`: every skill name, sorted. */
  getAllSkillNames(): Promise<string[]> {
    return this.discover();
  }

  /** AgentScope's `getRepositoryInfo()`: no secrets, no database round trip. */
  getRepositoryInfo(): SkillRepositoryInfo & {
    dialect: SqlDialectName | undefined;
    namespace: string;
    tables: SqlTableNames;
  } {
    return {
      type: "sql",
      location: this.#display,
      writeable: this.#writeable,
      dialect: this.#dialect,
      namespace: this.namespace,
      tables: { ...this.tables },
    };
  }

  /** AgentScope's `getSource()`: the name skills from here carry. */
  getSource(): string {
    return this.name;
  }

  isWriteable(): boolean {
    return this.#writeable;
  }

  setWriteable(writeable: boolean): void {
    this.#writeable = writeable;
  }

  /** Stops watching and closes the connection when this repository opened it. Later calls fail as unavailable. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#primed.clear();
    this.#listeners.clear();
    const watcher = this.#watcher;
    this.#watcher = undefined;
    await watcher?.stop();
    if (this.#ownsDatabase && this.#ready) {
      const ready = await this.#ready.catch(() => undefined);
      await ready?.database.close();
    }
  }

  // --- the narrow source contract --------------------------------------------------------------------------

  async discover(): Promise<string[]> {
    const ready = await this.#ensureReady();
    const rows = await this.#run("list skills", () => this.#metadataQuery(ready).execute());
    const primed = new Map<string, SkillRow>();
    for (const row of rows) primed.set(row.name, row);
    this.#primed = primed;
    return [...primed.keys()].sort(compareCodeUnits);
  }

  async getMetadata(id: string): Promise<Frontmatter> {
    requireSafeSkillId(id);
    const ready = await this.#ensureReady();
    let row = this.#primed.get(id);
    if (row) this.#primed.delete(id);
    else
      row = exact(
        id,
        await this.#run("read metadata", () => this.#metadataQuery(ready).where("name", "=", id).execute()),
      );
    if (!row) throw new SkillNotFoundError(id);
    this.#checkSize(id, SKILL_MD, row);
    return frontmatterOf(row as MetadataColumns);
  }

  async getBody(id: string): Promise<string> {
    requireSafeSkillId(id);
    const ready = await this.#ensureReady();
    const row = await this.#readSkillRow(ready, id, "read the body");
    return this.#bodyOf(ready, row);
  }

  async listFiles(id: string): Promise<SkillFile[]> {
    requireSafeSkillId(id);
    const ready = await this.#ensureReady();
    const { db, native } = ready;
    const row = await this.#readSkillRow(ready, id, "list files", { withinLimit: false });
    // The size readFile would serve; a SKILL.md over the limits is listed with its stored size and never read.
    const skillMdSize =
      native || row.skill_content === null || row.skill_content === undefined
        ? Number(row.size)
        : skillMdOf(frontmatterOf(row as MetadataColumns), this.#bodyOf(ready, row)).byteLength;
    const files: SkillFile[] = [{ path: SKILL_MD, size: skillMdSize }];
    const resources = await this.#run("list files", () =>
      db
        .selectFrom("resources")
        .select(["resource_path"])
        .select(resourceSize(native).as("size"))
        .where("id", "=", row.id)
        .execute(),
    );
    for (const r of resources)
      if (servable(r.resource_path)) files.push({ path: r.resource_path, size: Number(r.size) });
    return files.sort((a, b) => compareCodeUnits(a.path, b.path));
  }

  async readFile(id: string, path: string): Promise<Uint8Array> {
    requireSafeSkillId(id);
    const rel = requireSafeResourcePath(id, path);
    const ready = await this.#ensureReady();
    if (rel === SKILL_MD) {
      const row = await this.#readSkillRow(ready, id, "read SKILL.md");
      return skillMdOf(frontmatterOf(row as MetadataColumns), this.#bodyOf(ready, row));
    }
    if (!servable(rel)) throw new ResourceNotFoundError(id, rel);
    const { db, native } = ready;
    const size = resourceSize(native);
    const max = this.#limits.maxFileBytes;
    const rows = await this.#run("read a file", () => {
      let query = db
        .selectFrom("resources as r")
        .innerJoin("skills as s", "s.id", "r.id")
        .select(["s.name as name", "r.resource_path as resource_path"])
        .select(size.as("size"))
        // Content only when within the limit: an oversized file is refused without being transferred.
        .select(sql<string | null>`case when ${size} <= ${max} then r.resource_content end`.as("text"))
        .where("s.name", "=", id)
        .where("r.resource_path", "=", rel);
      if (native) {
        query = query
          .where("s.namespace", "=", this.namespace)
          .select(sql<Uint8Array | null>`case when ${size} <= ${max} then r.resource_bytes end`.as("bytes"));
      }
      return query.execute();
    });
    const row = rows.find((r) => r.name === id && r.resource_path === rel) as (typeof rows)[number] & {
      bytes?: Uint8Array | null;
    };
    if (!row) {
      if (!(await this.skillExists(id))) throw new SkillNotFoundError(id);
      throw new ResourceNotFoundError(id, rel);
    }
    this.#checkSize(id, rel, row);
    return decodeResource(row.text, row.bytes);
  }

  invalidate(id?: string): void {
    if (id === undefined) this.#primed.clear();
    else this.#primed.delete(id);
  }

  /**
   * Reports the ids of skills added, replaced or deleted — by this process or any other — in this namespace.
   * PostgreSQL is told at once (LISTEN/NOTIFY); SQLite and MySQL are polled every `pollIntervalMs` through one small
   * counter row. Returns the unsubscribe function.
   */
  watch(onChange: (ids: string[]) => void): () => void {
    this.#listeners.add(onChange);
    if (!this.#watcher && !this.#closed) {
      this.#watcher = new ChangeWatcher({
        intervalMs: this.#limits.pollIntervalMs,
        ready: () => this.#ensureReady(),
        namespace: this.namespace,
        channel: notifyChannel(this.tables),
        onChange: (ids) => this.#emit(ids),
      });
      this.#watcher.start();
    }
    return () => {
      this.#listeners.delete(onChange);
      if (this.#listeners.size === 0 && this.#watcher) {
        const watcher = this.#watcher;
        this.#watcher = undefined;
        void watcher.stop();
      }
    };
  }

  // --- whole skills ----------------------------------------------------------------------------------------

  override async getSkill(id: string): Promise<Skill> {
    requireSafeSkillId(id);
    const ready = await this.#ensureReady();
    const skills = await this.#readWhole(ready, id);
    const skill = skills[0];
    if (!skill) throw new SkillNotFoundError(id);
    return skill;
  }

  /** Every skill, sorted by name, in two queries (one consistent snapshot); rows that cannot be served are left out. */
  override async getAllSkills(): Promise<Skill[]> {
    return this.#readWhole(await this.#ensureReady(), undefined);
  }

  async skillExists(id: string): Promise<boolean> {
    if (!isSafeSkillId(id)) return false;
    const { db, native } = await this.#ensureReady();
    let query = db.selectFrom("skills").select(["name"]).where("name", "=", id);
    if (native) query = query.where("namespace", "=", this.namespace);
    const rows = await this.#run("check a skill", () => query.execute());
    return rows.some((r) => r.name === id);
  }

  /**
   * Saves all skills or none, in one transaction. Everything is checked first (ids, paths, sizes, counts); then,
   * without `force`, any existing name throws SkillExistsError and nothing is written. A replaced skill keeps its row
   * id, gets version + 1 and loses the files it no longer has.
   */
  async save(skills: readonly Skill[], options: SaveOptions = {}): Promise<SaveResult> {
    this.#assertWriteable("save");
    const ready = await this.#ensureReady();
    const batch = this.#prepare(ready, skills);
    if (batch.length === 0) return { saved: [], replaced: [] };
    const digests = await Promise.all(
      batch.map(({ prepared }) =>
        new Skill({ frontmatter: prepared.frontmatter, body: prepared.body, resources: prepared.resources }).digest(),
      ),
    );
    const ids = batch.map(({ prepared }) => prepared.id);
    let replaced: string[] = [];
    try {
      await this.#write(ready, async (trx) => {
        await this.#bumpCounter(ready, trx);
        const existing = await this.#existingRows(ready, trx, ids);
        if (existing.size > 0 && !options.force) throw new SkillExistsError(ids.filter((id) => existing.has(id)));
        replaced = ids.filter((id) => existing.has(id));
        const fresh = batch.filter(({ prepared }) => !existing.has(prepared.id));
        for (let i = 0; i < fresh.length; i += CHUNK) {
          const rows = fresh.slice(i, i + CHUNK).map(({ prepared, json, source }) => ({
            ...this.#skillColumns(
              ready,
              prepared,
              json,
              source,
              digests[batch.findIndex((b) => b.prepared === prepared)] ?? "",
            ),
            ...(ready.native && { namespace: this.namespace, version: 1 }),
          }));
          await trx.insertInto("skills").values(rows).execute();
        }
        const rowIds =
          fresh.length > 0
            ? await this.#existingRows(
                ready,
                trx,
                fresh.map((f) => f.prepared.id),
              )
            : new Map<string, SkillRow>();
        for (const [index, { prepared, json, source }] of batch.entries()) {
          const old = existing.get(prepared.id);
          if (!old) continue;
          const columns = this.#skillColumns(ready, prepared, json, source, digests[index] ?? "");
          await trx
            .updateTable("skills")
            .set({
              ...columns,
              ...(ready.native && { version: Number(old.version ?? 0) + 1 }),
              updated_at: sql`current_timestamp`,
            })
            .where("id", "=", old.id)
            .execute();
          await trx.deleteFrom("resources").where("id", "=", old.id).execute();
        }
        const resources: Array<{
          id: number;
          resource_path: string;
          resource_content: string;
          resource_bytes?: Uint8Array | null;
        }> = [];
        for (const { prepared } of batch) {
          const rowId = (existing.get(prepared.id) ?? rowIds.get(prepared.id))?.id;
          if (rowId === undefined)
            throw new SqlRepositoryError(
              `${this.#display}: skill ${JSON.stringify(prepared.id)} vanished while saving`,
              "SQL_QUERY",
            );
          for (const [path, bytes] of prepared.resources) {
            const stored = encodeResource(bytes);
            resources.push({
              id: rowId,
              resource_path: path,
              resource_content: stored.text,
              ...(ready.native && { resource_bytes: stored.bytes && toBuffer(stored.bytes) }),
            });
          }
        }
        for (let i = 0; i < resources.length; i += CHUNK)
          await trx
            .insertInto("resources")
            .values(resources.slice(i, i + CHUNK))
            .execute();
        await this.#notify(ready, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error) && !options.force) throw new SkillExistsError(ids);
      throw this.#wrap(error, "save");
    } finally {
      for (const id of ids) this.#primed.delete(id);
    }
    return { saved: ids, replaced };
  }

  async delete(id: string): Promise<boolean> {
    this.#assertWriteable("delete");
    if (!isSafeSkillId(id)) return false;
    const ready = await this.#ensureReady();
    this.#primed.delete(id);
    try {
      return await this.#write(ready, async (trx) => {
        const row = (await this.#existingRows(ready, trx, [id])).get(id);
        if (!row) return false;
        await this.#bumpCounter(ready, trx);
        await trx.deleteFrom("resources").where("id", "=", row.id).execute();
        const result = await trx.deleteFrom("skills").where("id", "=", row.id).executeTakeFirst();
        await this.#notify(ready, trx);
        return Number(result.numDeletedRows) > 0;
      });
    } catch (error) {
      throw this.#wrap(error, "delete");
    }
  }

  // --- internals -------------------------------------------------------------------------------------------

  #ensureReady(): Promise<Ready> {
    if (this.#closed) return Promise.reject(new ProviderUnavailableError(`${this.name}: repository is closed`));
    this.#ready ??= this.#connect();
    return this.#ready;
  }

  async #connect(): Promise<Ready> {
    const connection = this.#connection;
    const database = connection instanceof SqlDatabase ? connection : await SqlDatabase.open(connection);
    try {
      const schema = await prepareSchema(database, this.tables, {
        migrate: this.#options.migrate ?? true,
        layout: this.#options.layout ?? "auto",
      });
      if (schema.layout === "agentscope" && this.namespace !== "") {
        throw new SqlRepositoryError(
          `${this.#display}: AgentScope's tables have no namespace column, so namespace ${JSON.stringify(this.namespace)} cannot be kept apart`,
          "SQL_CONFIG",
        );
      }
      const db = (database.kysely as unknown as Kysely<SkillDatabase>).withPlugin(new TableNamesPlugin(this.tables));
      return { database, db, schema, native: schema.layout === "skillport" };
    } catch (error) {
      if (this.#ownsDatabase) await database.close().catch(() => undefined);
      this.#ready = undefined; // a later call may retry (the server may be back)
      throw error;
    }
  }

  /**
   * The listing query: name, description, metadata and the sizes; never skill_content itself. Description and metadata
   * come back only when within maxFrontmatterBytes (measured in SQL first), so an oversized row costs its sizes only.
   */
  #metadataQuery(ready: Ready, db: Kysely<SkillDatabase> = ready.db, size = storedSkillMdBytes(ready)) {
    const { native, schema } = ready;
    const meta = metadataBytes(schema.hasMetadataJson);
    const within = (column: string) =>
      sql<string | null>`case when ${meta} <= ${this.#limits.maxFrontmatterBytes} then ${sql.ref(column)} end`;
    let query = db
      .selectFrom("skills")
      .select(["id", "name"])
      .select(within("description").as("description"))
      .select(meta.as("meta_size"))
      .select(size.as("size"));
    if (schema.hasMetadataJson) query = query.select(within("metadata_json").as("metadata_json"));
    if (native) return query.select(["version"]).where("namespace", "=", this.namespace);
    return query;
  }

  /** One skill row with its body (only when SKILL.md is within the limits, unless told otherwise). */
  async #readSkillRow(
    ready: Ready,
    id: string,
    operation: string,
    options: { withinLimit?: boolean } = {},
  ): Promise<SkillRow> {
    let query = this.#skillQuery(ready).where("name", "=", id);
    if (ready.native) query = query.select(["digest"]);
    const row = exact(id, (await this.#run(operation, () => query.execute())) as SkillRow[]);
    if (!row) throw new SkillNotFoundError(id);
    if (options.withinLimit ?? true) this.#checkSize(id, SKILL_MD, row);
    return row;
  }

  /** The listing query plus skill_content, which comes back only when the row is within both limits. */
  #skillQuery(ready: Ready, db: Kysely<SkillDatabase> = ready.db) {
    const size = skillMdBytes(ready);
    const fits = sql<boolean>`${size} <= ${this.#limits.maxFileBytes} and ${metadataBytes(ready.schema.hasMetadataJson)} <= ${this.#limits.maxFrontmatterBytes}`;
    return this.#metadataQuery(ready, db, size).select(
      sql<string | null>`case when ${fits} then skill_content end`.as("skill_content"),
    );
  }

  #bodyOf(ready: Ready, row: SkillRow): string {
    const content = row.skill_content ?? "";
    return ready.native ? content : bodyOf(row.name, content);
  }

  /**
   * Whole skills (one, or all in the namespace) from one consistent snapshot. Sizes are measured in SQL and content
   * selected only within the limits; a skill with anything over them is left out (one asked for by id: an error).
   */
  async #readWhole(ready: Ready, id: string | undefined): Promise<Skill[]> {
    const { db, native, database } = ready;
    const max = this.#limits.maxFileBytes;
    const read = async (trx: Kysely<SkillDatabase>) => {
      let skills = this.#skillQuery(ready, trx);
      if (id !== undefined) skills = skills.where("name", "=", id);
      const rows = (await skills.execute()) as SkillRow[];
      const size = resourceSize(native, "r.");
      let resources = trx
        .selectFrom("resources as r")
        .innerJoin("skills as s", "s.id", "r.id")
        .select(["r.id as id", "r.resource_path as resource_path"])
        .select(size.as("size"))
        .select(sql<string | null>`case when ${size} <= ${max} then r.resource_content end`.as("resource_content"));
      if (native)
        resources = resources
          .select(sql<Uint8Array | null>`case when ${size} <= ${max} then r.resource_bytes end`.as("resource_bytes"))
          .where("s.namespace", "=", this.namespace);
      if (id !== undefined) resources = resources.where("s.name", "=", id);
      const files = (await resources.execute()) as Array<{
        id: number;
        resource_path: string;
        size: number | string;
        resource_content: string | null;
        resource_bytes?: Uint8Array | null;
      }>;
      return { rows, files };
    };
    const { rows, files } = await this.#run("read skills", () => this.#readTransaction(database.dialect, db, read));
    const byRow = new Map<number, Map<string, ResourceContent>>();
    const oversized = new Map<number, string>();
    for (const file of files) {
      if (!servable(file.resource_path)) continue;
      if (Number(file.size) > max) oversized.set(Number(file.id), file.resource_path);
      let map = byRow.get(Number(file.id));
      if (!map) byRow.set(Number(file.id), (map = new Map()));
      map.set(file.resource_path, decodeResource(file.resource_content, file.resource_bytes));
    }
    const out: Skill[] = [];
    for (const row of rows.sort((a, b) => compareCodeUnits(a.name, b.name))) {
      if ((id !== undefined && row.name !== id) || !isSafeSkillId(row.name)) continue;
      try {
        this.#checkSize(row.name, SKILL_MD, row);
        const big = oversized.get(Number(row.id));
        if (big !== undefined) this.#checkSize(row.name, big, { size: max + 1 });
      } catch (error) {
        if (id !== undefined) throw error;
        continue;
      }
      const resources = byRow.get(Number(row.id)) ?? new Map<string, ResourceContent>();
      let skill: Skill;
      try {
        skill = new Skill({
          frontmatter: frontmatterOf(row as MetadataColumns),
          body: this.#bodyOf(ready, row),
          resources,
          source: this.name,
        });
      } catch (error) {
        // A row with a blank name, description or body (written by another tool) is no usable skill: one read says
        // why; a read of all leaves it out, as with every other source.
        if (id !== undefined || !(error instanceof SkillValidationError)) throw error;
        continue;
      }
      if (!this.#withinLimits(skill, resources)) {
        if (id !== undefined)
          throw new LimitExceededError(
            "maxFileBytes",
            `skill ${JSON.stringify(row.name)} has a file larger than ${this.#limits.maxFileBytes} bytes`,
          );
        continue;
      }
      out.push(skill);
    }
    return out;
  }

  #withinLimits(skill: Skill, resources: ReadonlyMap<string, ResourceContent>): boolean {
    const max = this.#limits.maxFileBytes;
    if (new TextEncoder().encode(skill.toSkillMd()).byteLength > max) return false;
    for (const content of resources.values()) if (typeof content !== "string" && content.byteLength > max) return false;
    return true;
  }

  async #readTransaction<T>(
    dialect: SqlDialectName,
    db: Kysely<SkillDatabase>,
    run: (trx: Kysely<SkillDatabase>) => Promise<T>,
  ): Promise<T> {
    if (dialect === "sqlite") return db.transaction().execute(run); // WAL: the first read fixes the snapshot
    return db.transaction().setIsolationLevel("repeatable read").execute(run);
  }

  /** Validates and encodes a batch before any write; SkillValidationError lists every problem. */
  #prepare(
    ready: Ready,
    skills: readonly Skill[],
  ): Array<{ prepared: PreparedSkill; json: string | null; source: string }> {
    const prepared = prepareSaveBatch(skills, {
      target: this.name,
      maxFileBytes: this.#limits.maxFileBytes,
      maxFilesPerSkill: this.#limits.maxFilesPerSkill,
      maxSkillBytes: this.#limits.maxSkillBytes,
      pathLimits: { maxLength: MAX_RESOURCE_PATH_LENGTH },
    });
    const problems: Diagnostic[] = [];
    const problem = (code: string, message: string) =>
      problems.push({ code, severity: "error", message, line: 0, column: 0 });
    const out = prepared.map((p, index) => {
      const json = frontmatterJson(p.frontmatter);
      if (json === undefined)
        problem(
          "frontmatter-not-json",
          `skill ${JSON.stringify(p.id)}: its frontmatter holds a value JSON cannot keep exactly (such as .inf or .nan)`,
        );
      if (typeof p.frontmatter.description !== "string")
        problem("description-missing", `skill ${JSON.stringify(p.id)}: a description is required to store it`);
      if (!ready.native) {
        for (const [path, bytes] of p.resources) {
          if (encodeResource(bytes).bytes !== null)
            problem(
              "resource-binary",
              `skill ${JSON.stringify(p.id)}: ${JSON.stringify(path)} is not UTF-8 text, and AgentScope's tables store text only`,
            );
        }
      }
      if (ready.database.dialect === "mysql") {
        // MySQL's collations ignore trailing spaces, so `a` and `a ` would be one key.
        const seen = new Set<string>();
        for (const path of p.resources.keys()) {
          const key = path.replace(/ +$/, "");
          if (seen.has(key))
            problem(
              "resource-path-invalid",
              `skill ${JSON.stringify(p.id)}: paths that differ only in trailing spaces are one path in MySQL (${JSON.stringify(path)})`,
            );
          seen.add(key);
        }
      }
      return {
        prepared: p,
        json: json ?? null,
        source: truncate((skills[index]?.source ?? "skillport") || "skillport", 255),
      };
    });
    if (problems.length > 0)
      throw new SkillValidationError(`cannot save to ${this.name}: ${problems.length} problem(s)`, problems);
    return out;
  }

  #skillColumns(ready: Ready, prepared: PreparedSkill, json: string | null, source: string, digest: string) {
    return {
      name: prepared.id,
      description: String(prepared.frontmatter.description ?? ""),
      skill_content: prepared.body,
      source,
      ...(ready.schema.hasMetadataJson && { metadata_json: json }),
      ...(ready.native && { digest, skill_md_bytes: prepared.skillMd.byteLength }),
    };
  }

  async #existingRows(
    ready: Ready,
    trx: Kysely<SkillDatabase>,
    names: readonly string[],
  ): Promise<Map<string, SkillRow>> {
    const found = new Map<string, SkillRow>();
    const wanted = new Set(names);
    for (let i = 0; i < names.length; i += CHUNK) {
      let query = trx
        .selectFrom("skills")
        .select(["id", "name", "description"])
        .where("name", "in", names.slice(i, i + CHUNK));
      if (ready.native) query = query.select(["version"]).where("namespace", "=", this.namespace);
      for (const row of (await query.execute()) as SkillRow[]) if (wanted.has(row.name)) found.set(row.name, row);
    }
    return found;
  }

  /** Takes this namespace's counter row first: writers in one namespace queue here, and watchers see the change. */
  async #bumpCounter(ready: Ready, trx: Kysely<SkillDatabase>): Promise<void> {
    if (!ready.native) return;
    const insert = trx.insertInto("changes").values({ namespace: this.namespace, version: 1 });
    if (ready.database.dialect === "mysql") await insert.onDuplicateKeyUpdate({ version: sql`version + 1` }).execute();
    else
      await insert
        .onConflict((oc) =>
          oc.column("namespace").doUpdateSet({ version: (eb) => eb(eb.ref("changes.version"), "+", 1) }),
        )
        .execute();
  }

  async #notify(ready: Ready, trx: Kysely<SkillDatabase>): Promise<void> {
    if (ready.database.dialect !== "postgres") return;
    await sql`select pg_notify(${notifyChannel(this.tables)}, ${this.namespace})`.execute(trx);
  }

  /** One write transaction. SQLite takes the write lock up front (BEGIN IMMEDIATE) so writers queue instead of failing. */
  async #write<T>(ready: Ready, run: (trx: Kysely<SkillDatabase>) => Promise<T>): Promise<T> {
    const { db, database } = ready;
    if (database.dialect !== "sqlite") return db.transaction().setIsolationLevel("read committed").execute(run);
    return db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await run(conn);
        await sql`commit`.execute(conn);
        return result;
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw error;
      }
    });
  }

  async #run<T>(operation: string, query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw this.#wrap(error, operation);
    }
  }

  #wrap(error: unknown, operation: string): Error {
    if (error instanceof AgentSkillsError) return error;
    return wrapDriverError(error, this.#display, operation);
  }

  /** The one size policy, on sizes measured in SQL before any content was selected (docs/sql.md, decision 0256). */
  #checkSize(
    id: string,
    path: string,
    row: { size?: number | string | null; meta_size?: number | string | null },
  ): void {
    if (
      row.meta_size !== null &&
      row.meta_size !== undefined &&
      Number(row.meta_size) > this.#limits.maxFrontmatterBytes
    ) {
      const message = `the frontmatter is larger than the limit of ${this.#limits.maxFrontmatterBytes} bytes (description and metadata columns)`;
      throw new SkillValidationError(`skill ${JSON.stringify(id)}: ${message}`, [
        { code: "frontmatter-too-large", severity: "error", message, file: `${id}/${SKILL_MD}`, line: 2, column: 1 },
      ]);
    }
    if (row.size !== null && row.size !== undefined && Number(row.size) > this.#limits.maxFileBytes) {
      throw new LimitExceededError(
        "maxFileBytes",
        `${path} of skill ${JSON.stringify(id)} is larger than ${this.#limits.maxFileBytes} bytes`,
      );
    }
  }

  #assertWriteable(operation: string): void {
    if (this.#closed) throw new ProviderUnavailableError(`${this.name}: repository is closed`);
    if (!this.#writeable) throw new RepositoryReadOnlyError(this.name, operation);
  }

  #emit(ids: string[]): void {
    for (const id of ids) this.#primed.delete(id);
    for (const listener of [...this.#listeners]) {
      try {
        listener([...ids]);
      } catch {
        // A listener's failure must not stop the others or the watcher.
      }
    }
  }
}

function parseDisplay(connection: SqlConnectionOptions): string {
  return connection.dialect === "sqlite"
    ? `sqlite:${connection.filename ?? ":memory:"}`
    : parseSqlAddress(connection.url ?? `${connection.dialect}://`).display;
}

function limit(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 0)
    throw new RangeError(`${name} must be a whole number ≥ 0, got ${chosen}`);
  return chosen;
}

/** The row whose name is exactly `id` (case-insensitive collations of foreign tables may return look-alikes). */
function exact<T extends { name: string }>(id: string, rows: readonly T[]): T | undefined {
  return rows.find((r) => r.name === id);
}

/** A stored path this repository will serve: safe, and not something that would stand in for SKILL.md. */
function servable(path: string): boolean {
  return isSafeResourcePath(path) && path.toLowerCase() !== "skill.md";
}

/**
 * Bytes of a column as the database measures them, without reading the value: SQLite's octet_length on a column reads
 * only the record header (length() of a cast or a coalesce loads the whole value first), PostgreSQL's reads the
 * TOAST header, MySQL's is computed on the server. NULL counts as 0.
 */
function octets(column: string): RawBuilder<number> {
  return sql<number>`coalesce(octet_length(${sql.ref(column)}), 0)`;
}

/** Bytes of the frontmatter's columns. */
function metadataBytes(hasMetadataJson: boolean): RawBuilder<number> {
  return hasMetadataJson ? sql<number>`(${octets("description")} + ${octets("metadata_json")})` : octets("description");
}

/** SKILL.md's size as a listing reads it: Skillport's rows store it, so listing never touches skill_content there. */
function storedSkillMdBytes({ native }: Ready): RawBuilder<number> {
  return native ? sql<number>`skill_md_bytes` : octets("skill_content");
}

/**
 * SKILL.md's size before the body is read. Skillport's rows store it (skill_md_bytes), but a row written by hand could
 * understate it: the stored body's own size is the floor.
 */
function skillMdBytes({ native, database }: Ready): RawBuilder<number> {
  if (!native) return octets("skill_content");
  const larger = database.dialect === "sqlite" ? sql.raw("max") : sql.raw("greatest");
  return sql<number>`${larger}(skill_md_bytes, ${octets("skill_content")})`;
}

function resourceSize(native: boolean, alias = ""): RawBuilder<number> {
  return native
    ? sql<number>`(${octets(`${alias}resource_bytes`)} + ${octets(`${alias}resource_content`)})`
    : octets(`${alias}resource_content`);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join("");
}
