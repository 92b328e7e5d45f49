import { createHash, randomBytes } from "node:crypto";
import { CompiledQuery, sql, type Kysely } from "kysely";
import { compareCodeUnits } from "@skillport/core/internal";
import { SqlDatabase } from "@skillport/sql";
import { readArchive, type PackageLimits } from "@skillport/pack";
import type { Finding, Verdict } from "@skillport/audit";
import { ArchiveCache, servedFiles, type ServedFile } from "./archive-cache.js";
import { FileBlobStore, sha256Hex, type BlobStore } from "./blobs.js";
import { PostgresBlobStore } from "./pg-blobs.js";
import {
  CatalogSnapshot,
  currentVersion,
  isVisible,
  skillKey,
  summaryOf,
  type CatalogSkill,
  type CatalogVersion,
  type IndexEntrySource,
} from "./catalog.js";
import { RegistryError } from "./errors.js";
import { checkPackage, SPEC_NAME } from "./package.js";
import { checkRunPackage, VERSION_ID, type RunPackageView } from "./run-packages.js";
import { migrateRegistry } from "./schema.js";
import { bumpPatch, compareVersions, parseSemVer, requireSemVer } from "./semver.js";
import {
  SCOPES,
  type Actor,
  type FileEntry,
  type HoldState,
  type LogEntry,
  type Scope,
  type SkillSummary,
  type SkillView,
  type VersionView,
} from "./types.js";

/**
 * The registry's limits: pack's limits for what an upload may hold (`maxFiles`, `maxFileBytes` — one skill file,
 * default 10 MiB here —, `maxTotalBytes`), and its own.
 */
export interface RegistryLimits extends Pick<PackageLimits, "maxFiles" | "maxFileBytes" | "maxTotalBytes"> {
  /** Largest upload, in bytes. Default 16 MiB. */
  maxUploadBytes: number;
  /** Longest changelog, in characters. Default 20,000. */
  maxChangelogChars: number;
  /** Most results one listing returns. Default 100. */
  maxListLimit: number;
}

export const DEFAULT_REGISTRY_LIMITS: Readonly<RegistryLimits> = Object.freeze({
  maxUploadBytes: 16 * 1024 * 1024,
  maxFiles: 1000,
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxChangelogChars: 20_000,
  maxListLimit: 100,
});

export interface RegistryStoreOptions {
  /** An address (`sqlite:./registry.db`, `postgres://…?schema=x`) or an open database (not closed by the store). */
  database: string | SqlDatabase;
  /**
   * Where package bytes go: a folder (the file blob store), `"postgres"` (chunks in the registry's own PostgreSQL
   * database, for several instances without a shared folder), a store, or a function making one on the open database.
   */
  blobs: string | BlobStore | ((database: SqlDatabase) => BlobStore | Promise<BlobStore>);
  limits?: Partial<RegistryLimits>;
  /** An upload unfinished for this long is a crash's leftover: its row goes and its blob too, unless used. Default 15 min. */
  sweepAfterMs?: number;
  /** Sweep unfinished uploads when opening. Default true (false: a tool that only touches metadata, like token create). */
  sweepOnOpen?: boolean;
}

export interface PublishRequest {
  /** The namespace to publish into (without `@`); absent: the unscoped space, where the first publisher owns a name. */
  namespace?: string;
  /** A semantic version; absent: the frontmatter's `version`, else the next patch after the newest version. */
  version?: string;
  /** Tags to point at this version; absent: `latest` (none for a pre-release). */
  tags?: readonly string[];
  changelog?: string;
  /** The name the client calls the skill (ClawHub's `slug`): an upload whose SKILL.md has another name is refused. */
  name?: string;
}

export interface PublishResult {
  /** False when these exact files were already published as a version of this skill (nothing changed). */
  created: boolean;
  version: VersionView;
}

export interface ListQuery {
  q?: string;
  namespace?: string;
  /** Skills that have this tag. */
  tag?: string;
  verdict?: Verdict;
  limit?: number;
  offset?: number;
}

/** The PostgreSQL NOTIFY channel a commit that changes the catalog signals on (payload: the registry's schema). */
export const REGISTRY_CHANNEL = "skillport_registry";

/** Bytes of unpacked archives kept in memory for file reads. */
const ARCHIVE_CACHE_BYTES = 64 * 1024 * 1024;
/** The change counter's read, compiled once: every read request runs it. */
const CHANGES = CompiledQuery.raw("select value from registry_state where key = 'changes'");
const USER = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const TAG = /^(?=.{1,64}$)[a-z][a-z0-9._-]*$/;

/**
 * The registry's state: metadata in SQL (SQLite or PostgreSQL; migrations in `schema.ts`), package bytes in a
 * content-addressed blob store. Every answer is computed from the database — the only thing a process keeps is a
 * catalog snapshot tagged with the database's change counter, re-read when the counter moves — so several servers on
 * one PostgreSQL agree. A publish writes its blob first, then commits the version in one transaction; an upload row
 * written before the blob lets a sweep remove what a crash left.
 */
export class RegistryStore {
  readonly database: SqlDatabase;
  readonly blobs: BlobStore;
  readonly limits: Readonly<RegistryLimits>;
  readonly #ownsDatabase: boolean;
  readonly #sweepAfterMs: number;
  #snapshot: Promise<CatalogSnapshot> | undefined;
  /** The rate-limit window `countHits` last saw (older windows are removed when it moves). */
  #rateWindow = -1;
  readonly #archives = new ArchiveCache(ARCHIVE_CACHE_BYTES);
  readonly #localListeners = new Set<() => void>();

  private constructor(database: SqlDatabase, ownsDatabase: boolean, blobs: BlobStore, options: RegistryStoreOptions) {
    this.database = database;
    this.#ownsDatabase = ownsDatabase;
    this.blobs = blobs;
    this.limits = Object.freeze({ ...DEFAULT_REGISTRY_LIMITS, ...options.limits });
    this.#sweepAfterMs = options.sweepAfterMs ?? 15 * 60 * 1000;
  }

  /** Opens (and migrates) the database, then sweeps what interrupted uploads left. */
  static async open(options: RegistryStoreOptions): Promise<RegistryStore> {
    const owns = typeof options.database === "string";
    const database = typeof options.database === "string" ? await SqlDatabase.open(options.database) : options.database;
    try {
      await migrateRegistry(database);
      const blobs =
        options.blobs === "postgres"
          ? await PostgresBlobStore.open(database)
          : typeof options.blobs === "string"
            ? new FileBlobStore(options.blobs)
            : typeof options.blobs === "function"
              ? await options.blobs(database)
              : options.blobs;
      const store = new RegistryStore(database, owns, blobs, options);
      if (options.sweepOnOpen !== false) await store.sweep();
      return store;
    } catch (error) {
      if (owns) await database.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#ownsDatabase) await this.database.close();
  }

  get #db(): Kysely<unknown> {
    return this.database.kysely;
  }

  // ---- tokens -------------------------------------------------------------------------------------------------

  /** A new token for `user`; only its sha256 is stored, so the token itself is shown once, here. */
  async createToken(
    input: { user: string; scopes: readonly Scope[]; label?: string },
    actor?: Actor,
  ): Promise<{ token: string; id: string; user: string; scopes: Scope[] }> {
    if (!USER.test(input.user))
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `user name ${JSON.stringify(input.user.slice(0, 80))} is not valid (lowercase letters, digits, . _ -; at most 64)`,
      );
    const scopes = [...new Set(input.scopes)].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));
    if (scopes.length === 0 || scopes.some((s) => !SCOPES.includes(s)))
      throw new RegistryError("REGISTRY_BAD_REQUEST", `scopes must be some of ${SCOPES.join(", ")}`);
    if (actor) {
      // A user makes tokens for themself with scopes they have; an admin makes any.
      if (
        !actor.scopes.includes("admin") &&
        (actor.user !== input.user || scopes.some((s) => !actor.scopes.includes(s)))
      ) {
        throw new RegistryError(
          "REGISTRY_FORBIDDEN",
          "a token can only be made for yourself, with scopes your own token has (or by an admin)",
        );
      }
    }
    const token = `skp_${randomBytes(32).toString("base64url")}`;
    const id = newId();
    await sql`insert into registry_tokens (id, user_name, scopes, hash, label, created_at) values (${id}, ${input.user}, ${scopes.join(" ")}, ${hashToken(token)}, ${(input.label ?? "").slice(0, 200)}, ${now()})`.execute(
      this.#db,
    );
    await this.#log(this.#db, actor?.user ?? "(server)", "token.create", input.user, { id, scopes });
    return { token, id, user: input.user, scopes };
  }

  /** The actor a token stands for; undefined for an unknown or revoked token. */
  async authenticate(token: string): Promise<Actor | undefined> {
    if (!/^skp_[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    const { rows } = await sql<{
      id: string;
      user_name: string;
      scopes: string;
    }>`select id, user_name, scopes from registry_tokens where hash = ${hashToken(token)} and revoked_at is null`.execute(
      this.#db,
    );
    const row = rows[0];
    return row ? { user: row.user_name, scopes: row.scopes.split(" ") as Scope[], tokenId: row.id } : undefined;
  }

  async revokeToken(id: string, actor: Actor): Promise<void> {
    const { rows } = await sql<{
      user_name: string;
    }>`select user_name from registry_tokens where id = ${id} and revoked_at is null`.execute(this.#db);
    const owner = rows[0]?.user_name;
    if (owner === undefined || (owner !== actor.user && !actor.scopes.includes("admin")))
      throw new RegistryError("REGISTRY_NOT_FOUND", "no such token");
    await sql`update registry_tokens set revoked_at = ${now()} where id = ${id}`.execute(this.#db);
    await this.#log(this.#db, actor.user, "token.revoke", owner, { id });
  }

  // ---- namespaces ---------------------------------------------------------------------------------------------

  async createNamespace(
    name: string,
    actor: Actor,
  ): Promise<{ name: string; members: Array<{ user: string; role: string }> }> {
    requireScope(actor, "publish");
    if (!SPEC_NAME.test(name))
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `namespace ${JSON.stringify(name.slice(0, 80))} is not valid (lowercase letters, digits and single hyphens)`,
      );
    await this.#db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ name: string }>`select name from registry_namespaces where name = ${name}`.execute(
        trx,
      );
      if (rows.length > 0) throw new RegistryError("REGISTRY_CONFLICT", `namespace @${name} exists`);
      await sql`insert into registry_namespaces (name, created_by, created_at) values (${name}, ${actor.user}, ${now()})`.execute(
        trx,
      );
      await sql`insert into registry_members (namespace, user_name, role) values (${name}, ${actor.user}, 'owner')`.execute(
        trx,
      );
      await this.#log(trx, actor.user, "namespace.create", `@${name}`, {});
    });
    return this.getNamespace(name);
  }

  async getNamespace(name: string): Promise<{ name: string; members: Array<{ user: string; role: string }> }> {
    const ns = await sql<{ name: string }>`select name from registry_namespaces where name = ${name}`.execute(this.#db);
    if (ns.rows.length === 0) throw new RegistryError("REGISTRY_NOT_FOUND", `no namespace @${name}`);
    const { rows } = await sql<{
      user_name: string;
      role: string;
    }>`select user_name, role from registry_members where namespace = ${name} order by user_name`.execute(this.#db);
    return { name, members: rows.map((r) => ({ user: r.user_name, role: r.role })) };
  }

  /** Owners (and admins) add members or owners, and remove them; the last owner cannot go. */
  async setMember(namespace: string, user: string, role: "owner" | "member" | null, actor: Actor): Promise<void> {
    if (!USER.test(user)) throw new RegistryError("REGISTRY_BAD_REQUEST", "not a valid user name");
    await this.#db.transaction().execute(async (trx) => {
      await this.#requireOwner(trx, namespace, actor);
      if (role === null)
        await sql`delete from registry_members where namespace = ${namespace} and user_name = ${user}`.execute(trx);
      else {
        await sql`delete from registry_members where namespace = ${namespace} and user_name = ${user}`.execute(trx);
        await sql`insert into registry_members (namespace, user_name, role) values (${namespace}, ${user}, ${role})`.execute(
          trx,
        );
      }
      const owners = await sql<{
        n: number | string;
      }>`select count(*) as n from registry_members where namespace = ${namespace} and role = 'owner'`.execute(trx);
      if (Number(owners.rows[0]?.n ?? 0) === 0)
        throw new RegistryError("REGISTRY_CONFLICT", `@${namespace} would have no owner left`);
      await this.#log(trx, actor.user, role === null ? "member.remove" : "member.set", `@${namespace}`, { user, role });
    });
  }

  async #requireOwner(db: Kysely<unknown>, namespace: string, actor: Actor): Promise<void> {
    requireScope(actor, "publish");
    const ns = await sql<{ name: string }>`select name from registry_namespaces where name = ${namespace}`.execute(db);
    if (ns.rows.length === 0) throw new RegistryError("REGISTRY_NOT_FOUND", `no namespace @${namespace}`);
    if (actor.scopes.includes("admin")) return;
    const { rows } = await sql<{
      role: string;
    }>`select role from registry_members where namespace = ${namespace} and user_name = ${actor.user}`.execute(db);
    if (rows[0]?.role !== "owner")
      throw new RegistryError("REGISTRY_FORBIDDEN", `only an owner of @${namespace} may change its members`);
  }

  // ---- publish ------------------------------------------------------------------------------------------------

  /**
   * Publishes an upload (zip, tar or `.skill`) as an immutable version. The same files again give back the version
   * they already are (`created: false`); other files under an existing version number are a conflict. A `malicious`
   * audit verdict stores the version held: no listing or download shows it until an admin decides.
   */
  async publish(bytes: Uint8Array, request: PublishRequest, actor: Actor | undefined): Promise<PublishResult> {
    requireScope(actor, "publish");
    if (bytes.byteLength > this.limits.maxUploadBytes)
      throw new RegistryError(
        "REGISTRY_TOO_LARGE",
        `the upload is ${bytes.byteLength} bytes, over the limit of ${this.limits.maxUploadBytes}`,
      );
    const namespace = request.namespace ?? "";
    if (namespace !== "" && !SPEC_NAME.test(namespace))
      throw new RegistryError("REGISTRY_BAD_REQUEST", "not a valid namespace");
    const changelog = request.changelog ?? "";
    if (changelog.length > this.limits.maxChangelogChars)
      throw new RegistryError(
        "REGISTRY_TOO_LARGE",
        `the changelog is over ${this.limits.maxChangelogChars} characters`,
      );
    for (const tag of request.tags ?? [])
      if (!TAG.test(tag) || parseSemVer(tag))
        throw new RegistryError(
          "REGISTRY_BAD_REQUEST",
          `tag ${JSON.stringify(tag.slice(0, 80))} is not valid (a lowercase word, not a version)`,
        );
    if (request.version !== undefined) requireSemVer(request.version);

    const pkg = await checkPackage(bytes, this.#packageLimits());
    if (request.name !== undefined && pkg.name !== request.name)
      throw new RegistryError(
        "REGISTRY_BAD_REQUEST",
        `the skill is named ${JSON.stringify(request.name.slice(0, 80))} but its SKILL.md says name: ${pkg.name} (they must be equal)`,
      );
    const explicit = request.version ?? pkg.declaredVersion;
    if (explicit !== undefined) requireSemVer(explicit);
    // Cheap early answers, repeated under the lock below: a re-publish, or someone else's name.
    const known = await this.#findByContent(this.#db, namespace, pkg.name, pkg.contentDigest);
    // The publisher sees the answer for their own upload even when it is held (that is how they learn why).
    if (known !== undefined)
      return { created: false, version: await this.#view(namespace, pkg.name, known, actor, true) };
    await this.#checkCanPublish(this.#db, namespace, pkg.name, actor);

    const upload = newId();
    await this.#db.transaction().execute(async (trx) => {
      await this.#touchBlob(trx, pkg.blob);
      await sql`insert into registry_uploads (id, blob, started_at) values (${upload}, ${pkg.blob}, ${now()})`.execute(
        trx,
      );
    });
    let committed: { created: boolean; version: string } | undefined;
    try {
      await this.blobs.put(pkg.blob, pkg.archive, upload);
      committed = await this.#db.transaction().execute(async (trx) => {
        await this.#touchBlob(trx, pkg.blob);
        const at = now();
        await sql`insert into registry_skills (id, namespace, name, owner, created_at, updated_at) values (${newId()}, ${namespace}, ${pkg.name}, ${actor.user}, ${at}, ${at}) on conflict (namespace, name) do nothing`.execute(
          trx,
        );
        // Locks the skill's row: publishers of one skill queue here, so version numbers and tags never race.
        await sql`update registry_skills set updated_at = ${at} where namespace = ${namespace} and name = ${pkg.name}`.execute(
          trx,
        );
        const skill = (
          await sql<{
            id: string;
            owner: string;
          }>`select id, owner from registry_skills where namespace = ${namespace} and name = ${pkg.name}`.execute(trx)
        ).rows[0];
        if (!skill) throw new RegistryError("REGISTRY_CONFLICT", "the skill changed during the publish; try again");
        await this.#checkCanPublish(trx, namespace, pkg.name, actor);
        await sql`delete from registry_uploads where id = ${upload}`.execute(trx);
        const same = await this.#findByContent(trx, namespace, pkg.name, pkg.contentDigest);
        if (same !== undefined) return { created: false, version: same };
        const versions = (
          await sql<{ version: string }>`select version from registry_versions where skill_id = ${skill.id}`.execute(
            trx,
          )
        ).rows.map((r) => r.version);
        const newest = versions.sort(compareVersions).at(-1);
        const version = explicit ?? (newest === undefined ? "1.0.0" : bumpPatch(newest));
        if (versions.includes(version))
          throw new RegistryError(
            "REGISTRY_CONFLICT",
            `${skillKey(namespace, pkg.name)}@${version} exists with other content; versions are immutable (publish a new version)`,
          );
        const hold = pkg.audit.verdict === "malicious" ? "held" : null;
        await sql`insert into registry_versions (skill_id, version, content_digest, blob, size, description, frontmatter, body_head, files, changelog, verdict, findings, hold, yanked, published_by, created_at, flat_digest)
          values (${skill.id}, ${version}, ${pkg.contentDigest}, ${pkg.blob}, ${pkg.archive.byteLength}, ${pkg.description}, ${JSON.stringify(pkg.frontmatter)}, ${pkg.bodyHead}, ${JSON.stringify(pkg.files)}, ${changelog}, ${pkg.audit.verdict}, ${JSON.stringify(pkg.audit.findings)}, ${hold}, 0, ${actor.user}, ${at}, ${pkg.flatDigest})`.execute(
          trx,
        );
        const tags = request.tags ?? ((parseSemVer(version)?.prerelease.length ?? 0) === 0 ? ["latest"] : []);
        for (const tag of tags) await this.#setTag(trx, skill.id, tag, version);
        await this.#log(trx, actor.user, "publish", `${skillKey(namespace, pkg.name)}@${version}`, {
          digest: `sha256:${pkg.blob}`,
          verdict: pkg.audit.verdict,
          held: hold !== null,
          tags,
        });
        await this.#changed(trx);
        return { created: true, version };
      });
      if (committed.created) this.#emitLocalChange();
    } finally {
      // Anything but a commit: drop the upload row now (and the blob, if nothing uses it) instead of waiting for a sweep.
      if (committed === undefined) await this.#sweepUpload(upload, pkg.blob).catch(() => undefined);
    }
    return {
      created: committed.created,
      version: await this.#view(namespace, pkg.name, committed.version, actor, true),
    };
  }

  /**
   * Keeps one file of a publish that arrives in pieces (ClawHub's clients upload each file, then publish a list of
   * them): an upload row, then the bytes in the blob store under their sha256. Nothing stays in a process, so the
   * publish may reach another server. `readStaged` reads it back; `dropStaged` (or the sweep, after `sweepAfterMs`)
   * removes it. Returns the upload's id.
   */
  async stageFile(bytes: Uint8Array, actor: Actor | undefined): Promise<string> {
    requireScope(actor, "publish");
    if (bytes.byteLength > this.limits.maxFileBytes)
      throw new RegistryError(
        "REGISTRY_TOO_LARGE",
        `the file is ${bytes.byteLength} bytes, over the limit of ${this.limits.maxFileBytes}`,
      );
    const upload = newId();
    const blob = sha256Hex(bytes);
    await this.#db.transaction().execute(async (trx) => {
      await this.#touchBlob(trx, blob);
      await sql`insert into registry_uploads (id, blob, started_at) values (${upload}, ${blob}, ${now()})`.execute(trx);
    });
    try {
      await this.blobs.put(blob, bytes, upload);
    } catch (error) {
      await this.#sweepUpload(upload, blob).catch(() => undefined);
      throw error;
    }
    return upload;
  }

  /** A staged file's bytes and sha256; undefined when the id is unknown (never staged, used, or swept). */
  async readStaged(upload: string): Promise<{ bytes: Uint8Array; sha256: string } | undefined> {
    if (!/^[0-9a-f]{24}$/.test(upload)) return undefined;
    const { rows } = await sql<{ blob: string }>`select blob from registry_uploads where id = ${upload}`.execute(
      this.#db,
    );
    const blob = rows[0]?.blob;
    const bytes = blob === undefined ? undefined : await this.blobs.get(blob);
    return blob === undefined || bytes === undefined ? undefined : { bytes, sha256: blob };
  }

  /** Removes staged files (their rows, and their blobs unless a version uses the same bytes). */
  async dropStaged(uploads: readonly string[]): Promise<void> {
    for (const upload of uploads) {
      if (!/^[0-9a-f]{24}$/.test(upload)) continue;
      const { rows } = await sql<{ blob: string }>`select blob from registry_uploads where id = ${upload}`.execute(
        this.#db,
      );
      const blob = rows[0]?.blob;
      if (blob !== undefined) await this.#sweepUpload(upload, blob);
    }
  }

  #packageLimits(): Partial<PackageLimits> {
    const l = this.limits;
    return {
      maxArchiveBytes: l.maxUploadBytes,
      maxFiles: l.maxFiles,
      maxFileBytes: l.maxFileBytes,
      maxTotalBytes: l.maxTotalBytes,
    };
  }

  async #findByContent(
    db: Kysely<unknown>,
    namespace: string,
    name: string,
    contentDigest: string,
  ): Promise<string | undefined> {
    const { rows } = await sql<{
      version: string;
    }>`select v.version from registry_versions v join registry_skills s on s.id = v.skill_id where s.namespace = ${namespace} and s.name = ${name} and v.content_digest = ${contentDigest}`.execute(
      db,
    );
    return rows[0]?.version;
  }

  /** Unscoped names belong to their first publisher; a namespace's skills to its members. Admins may do either. */
  async #checkCanPublish(db: Kysely<unknown>, namespace: string, name: string, actor: Actor): Promise<void> {
    if (actor.scopes.includes("admin")) {
      if (
        namespace !== "" &&
        (await sql`select name from registry_namespaces where name = ${namespace}`.execute(db)).rows.length === 0
      ) {
        throw new RegistryError("REGISTRY_NOT_FOUND", `no namespace @${namespace} (create it first)`);
      }
      return;
    }
    if (namespace === "") {
      const { rows } = await sql<{
        owner: string;
      }>`select owner from registry_skills where namespace = '' and name = ${name}`.execute(db);
      const owner = rows[0]?.owner;
      if (owner !== undefined && owner !== actor.user)
        throw new RegistryError("REGISTRY_FORBIDDEN", `${name} belongs to another publisher`);
      return;
    }
    const ns = await sql`select name from registry_namespaces where name = ${namespace}`.execute(db);
    if (ns.rows.length === 0)
      throw new RegistryError("REGISTRY_NOT_FOUND", `no namespace @${namespace} (create it first)`);
    const { rows } = await sql<{
      role: string;
    }>`select role from registry_members where namespace = ${namespace} and user_name = ${actor.user}`.execute(db);
    if (rows.length === 0) throw new RegistryError("REGISTRY_FORBIDDEN", `you are not a member of @${namespace}`);
  }

  /** Takes the blob's row (creating it): publishers and the sweep of one blob queue on it. */
  async #touchBlob(db: Kysely<unknown>, blob: string): Promise<void> {
    const at = now();
    await sql`insert into registry_blobs (digest, touched_at) values (${blob}, ${at}) on conflict (digest) do update set touched_at = ${at}`.execute(
      db,
    );
  }

  /**
   * Removes what unfinished uploads left: each upload row older than `sweepAfterMs` goes, with its temp file, and its
   * blob too when no version and no other upload uses it. Runs at open; call it again whenever (the server does,
   * every few minutes). The blob's row is locked first, so a publish of the same bytes waits or is waited for.
   */
  async sweep(olderThanMs: number = this.#sweepAfterMs): Promise<{ uploads: number; blobs: number }> {
    const before = new Date(Date.now() - olderThanMs).toISOString();
    const { rows } = await sql<{
      id: string;
      blob: string;
    }>`select id, blob from registry_uploads where started_at <= ${before}`.execute(this.#db);
    let blobs = 0;
    for (const row of rows) if (await this.#sweepUpload(row.id, row.blob)) blobs++;
    return { uploads: rows.length, blobs };
  }

  async #sweepUpload(upload: string, blob: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      await this.#touchBlob(trx, blob);
      await sql`delete from registry_uploads where id = ${upload}`.execute(trx);
      const used =
        await sql`select 1 as one from registry_versions where blob = ${blob} union all select 1 as one from registry_packages where blob = ${blob} union all select 1 as one from registry_uploads where blob = ${blob}`.execute(
          trx,
        );
      if (used.rows.length > 0) {
        await this.blobs.discardUpload(blob, upload);
        return false;
      }
      await this.blobs.remove(blob, upload);
      await sql`delete from registry_blobs where digest = ${blob}`.execute(trx);
      return true;
    });
  }

  // ---- reads --------------------------------------------------------------------------------------------------

  /** The catalog as of the database's change counter (re-read when it moved). */
  async snapshot(): Promise<CatalogSnapshot> {
    const { rows } = await this.#db.executeQuery<{ value: number | string }>(CHANGES);
    const changes = Number(rows[0]?.value ?? 0);
    const current = this.#snapshot;
    const previous = await current?.catch(() => undefined);
    if (previous && previous.changes === changes) return previous;
    const next = CatalogSnapshot.load(this.#db, changes, previous);
    this.#snapshot = next;
    return next;
  }

  /**
   * A page of skills, each at its current version (or the tagged one), ranked by search when `q` is given. Answers are
   * kept per catalog snapshot by their query (decision 0410), so they are shared, and frozen.
   */
  async listSkills(query: ListQuery): Promise<{ total: number; skills: SkillSummary[] }> {
    const snap = await this.snapshot();
    const limit = Math.min(Math.max(1, query.limit ?? 20), this.limits.maxListLimit);
    const offset = Math.max(0, query.offset ?? 0);
    const q = query.q?.trim() ?? "";
    const key = JSON.stringify([q, query.namespace, query.tag, query.verdict, limit, offset]);
    return snap.answer(key, () => {
      const answer = this.#list(snap, { ...query, q }, limit, offset);
      for (const s of answer.skills) Object.freeze(s);
      Object.freeze(answer.skills);
      return Object.freeze(answer);
    });
  }

  #list(
    snap: CatalogSnapshot,
    query: ListQuery & { q: string },
    limit: number,
    offset: number,
  ): { total: number; skills: SkillSummary[] } {
    // The skill as this listing shows it (current version, or the tagged one), or undefined when a filter drops it.
    const keep = (skill: CatalogSkill): SkillSummary | undefined => {
      if (query.namespace !== undefined && skill.namespace !== query.namespace) return undefined;
      if (query.tag === undefined) {
        // Shared by every answer of this snapshot (computed once per skill).
        const summary = snap.currentSummary(skill);
        return summary && (query.verdict === undefined || summary.audit.verdict === query.verdict)
          ? summary
          : undefined;
      }
      const tagged = skill.tags.get(query.tag);
      const v = tagged === undefined ? undefined : skill.versions.find((x) => x.version === tagged && isVisible(x));
      if (!v) return undefined;
      if (query.verdict !== undefined && v.verdict !== query.verdict) return undefined;
      return summaryOf(skill, v);
    };
    if (query.q !== "") {
      const filtered = query.namespace !== undefined || query.tag !== undefined || query.verdict !== undefined;
      // Filters apply before ranking, so the page is always full and `total` counts every match that passes them.
      const accepted =
        filtered &&
        snap.accepted(JSON.stringify([query.namespace, query.tag, query.verdict]), (s) => keep(s) !== undefined);
      const { total, hits } = snap.search(query.q, {
        offset,
        limit,
        ...(accepted && { among: accepted }),
      });
      const skills: SkillSummary[] = [];
      for (const hit of hits) {
        const skill = snap.byKey(hit.key);
        const found = skill && keep(skill);
        // Only the page's hits are copied to carry a confidence.
        if (found) skills.push({ ...found, confidence: Number(hit.confidence.toFixed(3)) });
      }
      return { total, skills };
    }
    const rows = snap.skills.map(keep).filter((s): s is SkillSummary => s !== undefined);
    return { total: rows.length, skills: rows.slice(offset, offset + limit) };
  }

  async getSkill(namespace: string, name: string, actor: Actor | undefined): Promise<SkillView> {
    const snap = await this.snapshot();
    const skill = snap.find(namespace, name);
    const admin = actor?.scopes.includes("admin") ?? false;
    const current = skill && currentVersion(skill);
    const shown = skill?.versions.filter((v) => admin || v.hold === null) ?? [];
    if (!skill || shown.length === 0)
      throw new RegistryError("REGISTRY_NOT_FOUND", `no skill ${skillKey(namespace, name)}`);
    const head = current ?? shown[0];
    if (!head) throw new RegistryError("REGISTRY_NOT_FOUND", `no skill ${skillKey(namespace, name)}`);
    const notes = await sql<{
      version: string;
      changelog: string;
    }>`select version, changelog from registry_versions where skill_id = ${skill.id}`.execute(this.#db);
    const changelogs = new Map(notes.rows.map((r) => [r.version, r.changelog]));
    return {
      ...summaryOf(skill, head),
      owner: skill.owner,
      versions: shown.map((v) => ({
        version: v.version,
        publishedAt: v.createdAt,
        changelog: changelogs.get(v.version) ?? "",
        yanked: v.yanked,
        hold: v.hold,
        verdict: v.verdict,
      })),
    };
  }

  /**
   * One version (or the version a tag points at). A yanked version is still served by its exact number (locked
   * installs keep working) and says so; a held or rejected one only to admins.
   */
  async getVersion(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
  ): Promise<VersionView> {
    return this.#view(namespace, name, versionOrTag, actor, false);
  }

  async #view(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
    showHeld: boolean,
  ): Promise<VersionView> {
    const row = await this.#versionRow(namespace, name, versionOrTag, actor, showHeld);
    const tags = await sql<{
      tag: string;
    }>`select tag from registry_tags where skill_id = ${row.skill_id} and version = ${row.version} order by tag`.execute(
      this.#db,
    );
    return {
      skill: skillKey(namespace, name),
      namespace: namespace === "" ? null : namespace,
      name,
      version: row.version,
      description: row.description,
      digest: `sha256:${row.blob}`,
      flatDigest: row.flat_digest === null ? null : `sha256:${row.flat_digest}`,
      contentDigest: row.content_digest,
      size: Number(row.size),
      changelog: row.changelog,
      publishedAt: row.created_at,
      publishedBy: row.published_by,
      tags: tags.rows.map((t) => t.tag),
      yanked: Number(row.yanked) === 1,
      hold: (row.hold ?? null) as HoldState,
      audit: { verdict: row.verdict as Verdict, findings: JSON.parse(row.findings) as Finding[] },
      frontmatter: JSON.parse(row.frontmatter) as Record<string, unknown>,
      files: JSON.parse(row.files) as FileEntry[],
    };
  }

  async #versionRow(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
    showHeld = false,
  ): Promise<VersionRow> {
    let version = versionOrTag;
    const skill = (
      await sql<{
        id: string;
      }>`select id from registry_skills where namespace = ${namespace} and name = ${name}`.execute(this.#db)
    ).rows[0];
    if (!skill) throw new RegistryError("REGISTRY_NOT_FOUND", `no skill ${skillKey(namespace, name)}`);
    if (!parseSemVer(versionOrTag)) {
      if (versionOrTag === "latest") {
        const current = (await this.snapshot()).find(namespace, name);
        version = (current && currentVersion(current)?.version) ?? "";
      } else {
        const tag = (
          await sql<{
            version: string;
          }>`select version from registry_tags where skill_id = ${skill.id} and tag = ${versionOrTag}`.execute(this.#db)
        ).rows[0];
        if (!tag)
          throw new RegistryError(
            "REGISTRY_NOT_FOUND",
            `${skillKey(namespace, name)} has no version or tag ${JSON.stringify(versionOrTag.slice(0, 80))}`,
          );
        version = tag.version;
      }
    }
    const row = (
      await sql<VersionRow>`select * from registry_versions where skill_id = ${skill.id} and version = ${version}`.execute(
        this.#db,
      )
    ).rows[0];
    if (!row)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `no version ${JSON.stringify(versionOrTag.slice(0, 80))} of ${skillKey(namespace, name)}`,
      );
    if (row.hold !== null && !showHeld && !(actor?.scopes.includes("admin") ?? false)) {
      throw new RegistryError(
        "REGISTRY_HELD",
        `${skillKey(namespace, name)}@${row.version} is held for review (its audit verdict is ${row.verdict}); an admin decides`,
      );
    }
    return row;
  }

  /**
   * The version a request names, from the catalog snapshot (current as of the database's change counter): the same
   * rules as `#versionRow` — a tag through the skill's tags, `latest` to the current version, a held or rejected
   * version only for admins (or the publisher's own answer) — without a query beyond the counter.
   */
  async #resolve(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
  ): Promise<CatalogVersion> {
    const snap = await this.snapshot();
    const skill = snap.find(namespace, name);
    if (!skill) throw new RegistryError("REGISTRY_NOT_FOUND", `no skill ${skillKey(namespace, name)}`);
    let version = versionOrTag;
    if (!parseSemVer(versionOrTag)) {
      const tagged = versionOrTag === "latest" ? currentVersion(skill)?.version : skill.tags.get(versionOrTag);
      if (tagged === undefined && versionOrTag !== "latest")
        throw new RegistryError(
          "REGISTRY_NOT_FOUND",
          `${skillKey(namespace, name)} has no version or tag ${JSON.stringify(versionOrTag.slice(0, 80))}`,
        );
      version = tagged ?? "";
    }
    const found = skill.versions.find((v) => v.version === version);
    if (!found)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `no version ${JSON.stringify(versionOrTag.slice(0, 80))} of ${skillKey(namespace, name)}`,
      );
    if (found.hold !== null && !(actor?.scopes.includes("admin") ?? false)) {
      throw new RegistryError(
        "REGISTRY_HELD",
        `${skillKey(namespace, name)}@${found.version} is held for review (its audit verdict is ${found.verdict}); an admin decides`,
      );
    }
    return found;
  }

  /** The `.skill` archive of a version, checked against its digest on the way out of the blob store. */
  async download(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
  ): Promise<{ bytes: Uint8Array; digest: string; version: string; filename: string }> {
    const v = await this.#resolve(namespace, name, versionOrTag, actor);
    const bytes = await this.blobs.get(v.blob);
    if (!bytes)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `the archive of ${skillKey(namespace, name)}@${v.version} is missing from the blob store`,
      );
    return { bytes, digest: v.blob, version: v.version, filename: `${name}-${v.version}.skill` };
  }

  // ---- package archives for runners (decision 0378) ---------------------------------------------------------

  /**
   * Stores a whole package archive for the runner pool under its versionId (publish scope). The same crash rule as a
   * publish: upload row, blob, then one transaction; the same bytes again is a no-op answered with the stored record.
   */
  async putRunPackage(
    bytes: Uint8Array,
    actor: Actor | undefined,
  ): Promise<{ created: boolean; package: RunPackageView }> {
    requireScope(actor, "publish");
    if (bytes.byteLength > this.limits.maxUploadBytes)
      throw new RegistryError(
        "REGISTRY_TOO_LARGE",
        `the upload is ${bytes.byteLength} bytes, over the limit of ${this.limits.maxUploadBytes}`,
      );
    const pkg = await checkRunPackage(bytes, this.#packageLimits());
    const known = await this.#runPackageRow(this.#db, pkg.versionId);
    if (known) return { created: false, package: runPackageView(known) };
    const upload = newId();
    await this.#db.transaction().execute(async (trx) => {
      await this.#touchBlob(trx, pkg.blob);
      await sql`insert into registry_uploads (id, blob, started_at) values (${upload}, ${pkg.blob}, ${now()})`.execute(
        trx,
      );
    });
    let created: boolean | undefined;
    try {
      await this.blobs.put(pkg.blob, bytes, upload);
      created = await this.#db.transaction().execute(async (trx) => {
        await this.#touchBlob(trx, pkg.blob);
        await sql`delete from registry_uploads where id = ${upload}`.execute(trx);
        if (await this.#runPackageRow(trx, pkg.versionId)) return false;
        await sql`insert into registry_packages (version_id, blob, size, skills, verdict, findings, uploaded_by, created_at)
          values (${pkg.versionId}, ${pkg.blob}, ${bytes.byteLength}, ${JSON.stringify(pkg.skills)}, ${pkg.verdict}, ${JSON.stringify(pkg.findings)}, ${actor.user}, ${now()})`.execute(
          trx,
        );
        await this.#log(trx, actor.user, "package.put", pkg.versionId, {
          digest: `sha256:${pkg.blob}`,
          verdict: pkg.verdict,
        });
        return true;
      });
    } finally {
      if (created === undefined) await this.#sweepUpload(upload, pkg.blob).catch(() => undefined);
    }
    const row = await this.#runPackageRow(this.#db, pkg.versionId);
    if (!row) throw new RegistryError("REGISTRY_CONFLICT", `package ${pkg.versionId} vanished during the upload`);
    return { created, package: runPackageView(row) };
  }

  /** A package archive by versionId, with its record; the bytes are verified against the stored digest. */
  async getRunPackage(versionId: string): Promise<{ bytes: Uint8Array; package: RunPackageView }> {
    if (!VERSION_ID.test(versionId))
      throw new RegistryError("REGISTRY_BAD_REQUEST", `${JSON.stringify(versionId.slice(0, 80))} is not a versionId`);
    const row = await this.#runPackageRow(this.#db, versionId);
    if (!row) throw new RegistryError("REGISTRY_NOT_FOUND", `no package ${versionId} in this registry`);
    const bytes = await this.blobs.get(row.blob);
    if (!bytes)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `the archive of package ${versionId} is missing from the blob store`,
      );
    return { bytes, package: runPackageView(row) };
  }

  async #runPackageRow(db: Kysely<unknown>, versionId: string): Promise<RunPackageRow | undefined> {
    return (await sql<RunPackageRow>`select * from registry_packages where version_id = ${versionId}`.execute(db))
      .rows[0];
  }

  /**
   * One file of a version, from its archive: unpacked once per blob and kept (blobs never change), with its digest and
   * whether it is text computed then. `version` is the version served (a tag resolved).
   */
  async readFile(
    namespace: string,
    name: string,
    versionOrTag: string,
    filePath: string,
    actor: Actor | undefined,
  ): Promise<{ bytes: Uint8Array; entry: FileEntry; version: string; text: boolean }> {
    const v = await this.#resolve(namespace, name, versionOrTag, actor);
    const files = await this.#archives.get(v.blob, () => this.#loadArchive(v.blob, name));
    const file = files.get(filePath);
    if (!file)
      throw new RegistryError(
        "REGISTRY_NOT_FOUND",
        `${skillKey(namespace, name)}@${v.version} has no file ${JSON.stringify(filePath.slice(0, 200))}`,
      );
    return { bytes: file.bytes, entry: file.entry, version: v.version, text: file.text };
  }

  /** Every file of a version with its bytes, in path order (from the same cache as `readFile`). */
  async readFiles(
    namespace: string,
    name: string,
    versionOrTag: string,
    actor: Actor | undefined,
  ): Promise<{ version: string; files: Array<FileEntry & { bytes: Uint8Array }> }> {
    const v = await this.#resolve(namespace, name, versionOrTag, actor);
    const files = await this.#archives.get(v.blob, () => this.#loadArchive(v.blob, name));
    return {
      version: v.version,
      files: [...files.values()]
        .map((f) => ({ ...f.entry, bytes: f.bytes }))
        .sort((a, b) => compareCodeUnits(a.path, b.path)),
    };
  }

  /** The files of a version's archive by path inside the skill, read from the blob store (digest verified). */
  async archiveFiles(blob: string, name: string): Promise<Map<string, Uint8Array>> {
    const files = await this.#archives.get(blob, () => this.#loadArchive(blob, name));
    return new Map([...files].map(([path, f]) => [path, f.bytes]));
  }

  async #loadArchive(blob: string, name: string): Promise<Map<string, ServedFile>> {
    const bytes = await this.blobs.get(blob);
    if (!bytes) throw new RegistryError("REGISTRY_NOT_FOUND", "the archive is missing from the blob store");
    const archive = await readArchive(bytes, { limits: this.#packageLimits(), stripWrapper: false });
    return servedFiles(archive.files.map((f) => ({ ...f, path: f.path.slice(name.length + 1) })));
  }

  /**
   * Adds this process's `hits` per rate-limit key in fixed window `window` (of `windowMs`) to the counts every process
   * of this registry shares, and answers each key's total (decision 0419). One statement; keys are stored hashed (with
   * the window length), and ended windows are removed when this process starts a new one. PostgreSQL only (SQLite
   * serves one process).
   */
  async countHits(windowMs: number, window: number, hits: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const ids = new Map([...hits.keys()].map((key) => [sha256Hex(Buffer.from(`${windowMs}\n${key}`)), key]));
    // A row's slot is the time its window ends (ms): removed a window later (servers' clocks differ a little), whatever
    // window length wrote it.
    const ends = (window + 1) * windowMs;
    if (window !== this.#rateWindow) {
      this.#rateWindow = window;
      await sql`delete from registry_rate where slot <= ${Date.now() - windowMs}`.execute(this.#db);
    }
    const { rows } = await sql<{ key: string; hits: string | number }>`insert into registry_rate (key, slot, hits)
      select k, ${ends}, n from unnest(${[...ids.keys()]}::text[], ${[...hits.values()]}::bigint[]) as t(k, n)
      on conflict (key, slot) do update set hits = registry_rate.hits + excluded.hits returning key, hits`.execute(
      this.#db,
    );
    const totals = new Map<string, number>();
    for (const row of rows) {
      const key = ids.get(row.key);
      if (key !== undefined) totals.set(key, Number(row.hits));
    }
    return totals;
  }

  /** What the well-known index lists: each skill's current version, visible ones only. */
  async indexEntries(namespace: string | undefined): Promise<IndexEntrySource[]> {
    return (await this.snapshot()).indexEntries(namespace);
  }

  // ---- changes to versions ------------------------------------------------------------------------------------

  async setTag(
    namespace: string,
    name: string,
    tag: string,
    version: string | null,
    actor: Actor | undefined,
  ): Promise<void> {
    requireScope(actor, "publish");
    if (!TAG.test(tag) || parseSemVer(tag)) throw new RegistryError("REGISTRY_BAD_REQUEST", "not a valid tag");
    await this.#onSkill(namespace, name, actor, async (trx, skillId) => {
      if (version === null)
        await sql`delete from registry_tags where skill_id = ${skillId} and tag = ${tag}`.execute(trx);
      else {
        const exists =
          await sql`select version from registry_versions where skill_id = ${skillId} and version = ${version}`.execute(
            trx,
          );
        if (exists.rows.length === 0) throw new RegistryError("REGISTRY_NOT_FOUND", `no version ${version}`);
        await this.#setTag(trx, skillId, tag, version);
      }
      await this.#log(trx, actor.user, version === null ? "tag.remove" : "tag.set", skillKey(namespace, name), {
        tag,
        version,
      });
    });
  }

  /** Yank (true) hides a version from listings, tags and the index; undelete (false) brings it back. Both logged. */
  async setYanked(
    namespace: string,
    name: string,
    version: string,
    yanked: boolean,
    reason: string,
    actor: Actor | undefined,
  ): Promise<VersionView> {
    requireScope(actor, "publish");
    await this.#onSkill(namespace, name, actor, async (trx, skillId) => {
      const res =
        await sql`update registry_versions set yanked = ${yanked ? 1 : 0} where skill_id = ${skillId} and version = ${version}`.execute(
          trx,
        );
      if (Number(res.numAffectedRows ?? 0) === 0)
        throw new RegistryError("REGISTRY_NOT_FOUND", `no version ${version} of ${skillKey(namespace, name)}`);
      await this.#log(trx, actor.user, yanked ? "yank" : "undelete", `${skillKey(namespace, name)}@${version}`, {
        reason: reason.slice(0, 1000),
      });
    });
    return this.getVersion(namespace, name, version, actor);
  }

  /** An admin's decision on a held version: `release` makes it visible, `reject` keeps it out for good. */
  async decide(
    namespace: string,
    name: string,
    version: string,
    decision: "release" | "reject",
    reason: string,
    actor: Actor | undefined,
  ): Promise<VersionView> {
    requireScope(actor, "admin");
    await this.#onSkill(namespace, name, actor, async (trx, skillId) => {
      const hold = decision === "release" ? null : "rejected";
      const res =
        await sql`update registry_versions set hold = ${hold} where skill_id = ${skillId} and version = ${version} and hold is not null`.execute(
          trx,
        );
      if (Number(res.numAffectedRows ?? 0) === 0)
        throw new RegistryError("REGISTRY_NOT_FOUND", `${skillKey(namespace, name)}@${version} is not held`);
      await this.#log(trx, actor.user, `hold.${decision}`, `${skillKey(namespace, name)}@${version}`, {
        reason: reason.slice(0, 1000),
      });
    });
    return this.getVersion(namespace, name, version, actor);
  }

  /** Versions waiting for an admin (admins only). */
  async held(actor: Actor | undefined): Promise<
    Array<{
      skill: string;
      version: string;
      verdict: Verdict;
      findings: Finding[];
      publishedBy: string;
      publishedAt: string;
    }>
  > {
    requireScope(actor, "admin");
    const { rows } = await sql<
      VersionRow & { namespace: string; name: string }
    >`select v.*, s.namespace, s.name from registry_versions v join registry_skills s on s.id = v.skill_id where v.hold = 'held' order by v.created_at`.execute(
      this.#db,
    );
    return rows.map((r) => ({
      skill: skillKey(r.namespace, r.name),
      version: r.version,
      verdict: r.verdict as Verdict,
      findings: JSON.parse(r.findings) as Finding[],
      publishedBy: r.published_by,
      publishedAt: r.created_at,
    }));
  }

  async auditLog(actor: Actor | undefined, limit = 100): Promise<LogEntry[]> {
    requireScope(actor, "admin");
    const { rows } = await sql<{
      id: string;
      at: string;
      actor: string;
      action: string;
      target: string;
      detail: string;
    }>`select * from registry_log order by at desc, id desc limit ${Math.min(Math.max(1, limit), 1000)}`.execute(
      this.#db,
    );
    return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
  }

  /** Runs `change` on a skill's row, locked, for someone allowed to publish it; bumps the change counter. */
  async #onSkill(
    namespace: string,
    name: string,
    actor: Actor,
    change: (trx: Kysely<unknown>, skillId: string) => Promise<void>,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await sql`update registry_skills set updated_at = updated_at where namespace = ${namespace} and name = ${name}`.execute(
        trx,
      );
      const skill = (
        await sql<{
          id: string;
        }>`select id from registry_skills where namespace = ${namespace} and name = ${name}`.execute(trx)
      ).rows[0];
      if (!skill) throw new RegistryError("REGISTRY_NOT_FOUND", `no skill ${skillKey(namespace, name)}`);
      await this.#checkCanPublish(trx, namespace, name, actor);
      await change(trx, skill.id);
      await this.#changed(trx);
    });
    this.#emitLocalChange();
  }

  async #setTag(db: Kysely<unknown>, skillId: string, tag: string, version: string): Promise<void> {
    await sql`insert into registry_tags (skill_id, tag, version) values (${skillId}, ${tag}, ${version}) on conflict (skill_id, tag) do update set version = ${version}`.execute(
      db,
    );
  }

  async #changed(db: Kysely<unknown>): Promise<void> {
    await sql`update registry_state set value = value + 1 where key = 'changes'`.execute(db);
    // Delivered at commit to every instance listening on this database (changes.ts); the schema tells registries apart.
    if (this.database.dialect === "postgres")
      await sql`select pg_notify(${REGISTRY_CHANNEL}, current_schema())`.execute(db);
  }

  /**
   * Called after this process commits a change to what is published (a publish, yank, undelete, tag or decision).
   * Other processes' changes arrive through `watchRegistryChanges` (LISTEN/NOTIFY, or the change counter polled).
   */
  onLocalChange(listener: () => void): () => void {
    this.#localListeners.add(listener);
    return () => this.#localListeners.delete(listener);
  }

  #emitLocalChange(): void {
    for (const listener of [...this.#localListeners]) listener();
  }

  async #log(
    db: Kysely<unknown>,
    actor: string,
    action: string,
    target: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await sql`insert into registry_log (id, at, actor, action, target, detail) values (${newId()}, ${now()}, ${actor}, ${action}, ${target.slice(0, 200)}, ${JSON.stringify(detail)})`.execute(
      db,
    );
  }
}

interface VersionRow {
  skill_id: string;
  version: string;
  content_digest: string;
  blob: string;
  size: number | string;
  description: string;
  frontmatter: string;
  files: string;
  changelog: string;
  verdict: string;
  findings: string;
  hold: string | null;
  yanked: number | string;
  published_by: string;
  created_at: string;
  flat_digest: string | null;
}

export function requireScope(actor: Actor | undefined, scope: Scope): asserts actor is Actor {
  if (!actor)
    throw new RegistryError(
      "REGISTRY_UNAUTHORIZED",
      `this needs a token with the ${scope} scope (Authorization: Bearer <token>)`,
    );
  if (!actor.scopes.includes(scope) && !actor.scopes.includes("admin"))
    throw new RegistryError(
      "REGISTRY_FORBIDDEN",
      `this needs the ${scope} scope; the token has ${actor.scopes.join(", ")}`,
    );
}

function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function newId(): string {
  return randomBytes(12).toString("hex");
}

function now(): string {
  return new Date().toISOString();
}

interface RunPackageRow {
  version_id: string;
  blob: string;
  size: number | string;
  skills: string;
  verdict: string;
  findings: string;
  uploaded_by: string;
  created_at: string;
}

function runPackageView(row: RunPackageRow): RunPackageView {
  return {
    versionId: row.version_id,
    digest: `sha256:${row.blob}`,
    size: Number(row.size),
    skills: JSON.parse(row.skills) as string[],
    verdict: row.verdict as Verdict,
    uploadedBy: row.uploaded_by,
    createdAt: row.created_at,
  };
}
