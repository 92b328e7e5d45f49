import { parseSqlAddress, SqlSkillRepository } from "@skillport/sql";
import type { OpenedSource, OpenSourceOptions } from "../source-uri.js";

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
    throw error;
  }
  return { label: repository.name, provider: repository, ...(options.write && { repository }), close: () => repository.close() };
}
