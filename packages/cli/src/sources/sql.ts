import { parseSqlAddress, SqlRepositoryError, SqlSkillRepository } from "@skillport/sql";
import { CliError } from "../io.js";
import type { OpenedSource, OpenSourceOptions } from "./opened-source.js";

/**
 * A SQL address. Reading never creates anything: a SQLite file must exist and the tables must be there (an in-memory
 * database is new by definition, so it gets its tables). Writing creates the file and the tables, or migrates them.
 */
export async function openSqlSource(address: string, options: OpenSourceOptions): Promise<OpenedSource> {
  const parsed = parseSqlAddress(address);
  const connection = { ...parsed.connection };
  if (connection.dialect === "sqlite" && connection.filename !== ":memory:") {
    connection.filename = (await import("node:path")).resolve(options.cwd, connection.filename ?? "");
    connection.mustExist = !options.write;
  }
  const memory = connection.dialect === "sqlite" && connection.filename === ":memory:";
  const repository = new SqlSkillRepository({
    connection,
    name: parsed.display.replace(/\s/g, "_") + (parsed.namespace ? `#${parsed.namespace}` : ""),
    ...(parsed.namespace !== undefined && { namespace: parsed.namespace }),
    tables: parsed.tables,
    writeable: Boolean(options.write),
    migrate: Boolean(options.write) || memory,
  });
  try {
    await repository.ready();
  } catch (error) {
    await repository.close();
    throw options.write ? error : inCliTerms(error);
  }
  return {
    label: repository.name,
    provider: repository,
    ...(options.write && { repository }),
    close: () => repository.close(),
  };
}

/**
 * The library says "open it writable" (its `writeable`/`migrate` options); on the command line the writer is `copy`,
 * which creates the tables (or upgrades them) in the database it copies into.
 */
function inCliTerms(error: unknown): unknown {
  if (!(error instanceof SqlRepositoryError) || error.code !== "SQL_SCHEMA") return error;
  const create = error.message.replace(
    /; open it writable to create them$/,
    "; `skillport copy <folder of skills> <this address>` creates them and copies skills in",
  );
  const upgrade = create.replace(
    /; open it writable once to upgrade$/,
    "; `skillport copy` into it (e.g. from an empty folder) upgrades it",
  );
  return upgrade === error.message ? error : new CliError(upgrade);
}
