export {
  SqlSkillRepository,
  SQL_DEFAULT_LIMITS,
  MAX_RESOURCE_PATH_LENGTH,
  type SqlSkillRepositoryOptions,
} from "./repository.js";
export {
  SqlDatabase,
  parseSqlAddress,
  sqlDialectOf,
  describeConnection,
  type SqlAddress,
  type SqlConnectionOptions,
  type SqlDialectName,
} from "./connection.js";
export { SqlRepositoryError, type SqlErrorCode } from "./errors.js";
export {
  prepareSchema,
  withMigrationLock,
  SCHEMA_VERSION,
  type SchemaState,
  type SqlLayout,
  type PrepareSchemaOptions,
} from "./schema.js";
export { resolveTableNames, DEFAULT_SKILLS_TABLE, DEFAULT_RESOURCES_TABLE, type SqlTableNames } from "./tables.js";
