import {
  OperationNodeTransformer,
  type ColumnType,
  type Generated,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from "kysely";
import { SqlRepositoryError } from "./errors.js";

/** The four tables a repository uses. Skills and resources keep AgentScope's default names. */
export interface SqlTableNames {
  skills: string;
  resources: string;
  /** Applied schema versions (Skillport's own). */
  migrations: string;
  /** One change counter per namespace, bumped by every write (Skillport's own). */
  changes: string;
}

export const DEFAULT_SKILLS_TABLE = "agentscope_skills";
export const DEFAULT_RESOURCES_TABLE = "agentscope_skill_resources";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** PostgreSQL's limit (63) is the lowest of the three dialects. */
const MAX_IDENTIFIER_LENGTH = 63;

/** Table names from options: defaults filled in, every name checked, so no name ever needs escaping. */
export function resolveTableNames(given: Partial<SqlTableNames> = {}): SqlTableNames {
  const skills = given.skills ?? DEFAULT_SKILLS_TABLE;
  const names: SqlTableNames = {
    skills,
    resources: given.resources ?? DEFAULT_RESOURCES_TABLE,
    migrations: given.migrations ?? `${skills}_migrations`,
    changes: given.changes ?? `${skills}_changes`,
  };
  for (const [role, name] of Object.entries(names)) {
    if (!IDENTIFIER.test(name) || name.length > MAX_IDENTIFIER_LENGTH) {
      throw new SqlRepositoryError(
        `invalid ${role} table name ${JSON.stringify(name)}: letters, digits and _ only, not starting with a digit, at most ${MAX_IDENTIFIER_LENGTH} characters`,
        "SQL_CONFIG",
      );
    }
  }
  if (new Set(Object.values(names)).size !== 4)
    throw new SqlRepositoryError(
      "the skills, resources, migrations and changes tables need four different names",
      "SQL_CONFIG",
    );
  return names;
}

/** A column only Skillport's schema has: optional on insert, since AgentScope's tables lack it. */
type Native<T> = ColumnType<T, T | undefined, T>;

/**
 * Column shapes as queries see them. Columns marked "native" exist only in Skillport's own schema; a repository over
 * AgentScope's tables as they are (layout `agentscope`) never names them.
 */
interface SkillsRow {
  id: Generated<number>;
  /** native */
  namespace: Native<string>;
  name: string;
  description: string;
  /** The SKILL.md body (AgentScope's skill content). */
  skill_content: string;
  source: string;
  /** The whole frontmatter as JSON, key order kept. */
  metadata_json: ColumnType<string | null, string | null | undefined, string | null>;
  /** native: `sha256:<hex>` of the skill (Skill#digest). */
  digest: Native<string>;
  /** native: 1 when created, +1 on each replacement. */
  version: Native<number>;
  /** native: bytes of the SKILL.md this row serialises to. */
  skill_md_bytes: Native<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

interface ResourcesRow {
  id: number;
  resource_path: string;
  /** The file as text when it is UTF-8 without NUL; empty for binary files (AgentScope reads this column). */
  resource_content: string;
  /** native: the exact bytes of a file that is not text; null for text. */
  resource_bytes: Native<Uint8Array | null>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

interface ChangesRow {
  namespace: string;
  version: number;
}

interface MigrationsRow {
  version: number;
  name: string;
  applied_at: Generated<string>;
}

/** The logical schema; the table-name plugin maps these four names to the configured ones. */
export interface SkillDatabase {
  skills: SkillsRow;
  resources: ResourcesRow;
  changes: ChangesRow;
  migrations: MigrationsRow;
}

class TableRenamer extends OperationNodeTransformer {
  readonly #names: Readonly<Record<string, string>>;
  constructor(names: SqlTableNames) {
    super();
    this.#names = { ...names };
  }

  protected override transformTable(node: TableNode): TableNode {
    const table = super.transformTable(node);
    const actual = this.#names[table.table.identifier.name];
    if (actual === undefined) return table;
    return { ...table, table: { ...table.table, identifier: { ...table.table.identifier, name: actual } } };
  }
}

/** Rewrites the logical table names (`skills`, `resources`, …) to the configured ones in every query. */
export class TableNamesPlugin implements KyselyPlugin {
  readonly #renamer: TableRenamer;
  constructor(names: SqlTableNames) {
    this.#renamer = new TableRenamer(names);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#renamer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
