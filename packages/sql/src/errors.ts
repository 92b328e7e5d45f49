import { AgentSkillsError, ProviderUnavailableError } from "@skillport/core";
import { REDACTED_CREDENTIAL, redactUriCredentials } from "@skillport/core/internal";

export type SqlErrorCode = "SQL_CONFIG" | "SQL_SCHEMA" | "SQL_QUERY";

/**
 * A SQL repository problem that is not an outage: a bad address or option (`SQL_CONFIG`), tables that are missing,
 * foreign or newer than this code (`SQL_SCHEMA`), or a statement the database refused (`SQL_QUERY`). Messages never
 * hold a password; the driver's own error is not attached (its fields may echo connection settings), only its code.
 */
export class SqlRepositoryError extends AgentSkillsError<SqlErrorCode> {
  /** The driver's error code (`23505`, `ER_DUP_ENTRY`, `SQLITE_BUSY`, `ECONNREFUSED`…), when there was one. */
  readonly driverCode: string | undefined;
  constructor(message: string, code: SqlErrorCode, driverCode?: string) {
    super(message, { code });
    this.driverCode = driverCode;
  }
}

/** Passwords this process knows of (from the addresses it opened), hidden by value in every driver message. */
const knownSecrets = new Set<string>();

/** Remembers a password so that no message can carry it, even one that quotes it outside an address. */
export function rememberSecret(secret: string | undefined): void {
  // Very short values would shred every message; the structural rule still hides them inside addresses.
  if (secret !== undefined && secret.length >= 4) knownSecrets.add(secret);
}

/** A driver message made safe to show: addresses redacted, known passwords removed, one line. */
function safeMessage(text: string): string {
  let out = redactUriCredentials(text);
  for (const secret of knownSecrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED_CREDENTIAL);
  return out.replace(/\s+/g, " ").trim();
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "PROTOCOL_CONNECTION_LOST",
  "ER_ACCESS_DENIED_ERROR",
  "ER_BAD_DB_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "SQLITE_CANTOPEN",
  "SQLITE_NOTADB",
  "28P01", // invalid password
  "28000", // invalid authorization
  "3D000", // database does not exist
  "57P01", // admin shutdown
  "57P03", // cannot connect now
  "08001",
  "08006",
]);

function driverCodeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code;
  if (typeof code === "number") return String(code);
  return undefined;
}

/**
 * Turns whatever a driver threw into a typed error naming the store (`where`, already redacted) and the operation.
 * Connection failures become ProviderUnavailableError (an outage, not a missing skill); Skillport's own errors pass
 * through untouched.
 */
export function wrapDriverError(error: unknown, where: string, operation: string): Error {
  if (error instanceof AgentSkillsError) return error;
  const code = driverCodeOf(error);
  const detail = safeMessage(error instanceof Error ? error.message || error.name : String(error));
  const message = `${where}: ${operation} failed: ${detail}${code && !detail.includes(code) ? ` (${code})` : ""}`;
  if (code !== undefined && CONNECTION_CODES.has(code)) return new ProviderUnavailableError(message);
  if (error instanceof AggregateError && error.errors.some((e) => CONNECTION_CODES.has(driverCodeOf(e) ?? ""))) {
    return new ProviderUnavailableError(`${where}: ${operation} failed: cannot connect`);
  }
  return new SqlRepositoryError(message, "SQL_QUERY", code);
}

/** Unique-key violations, which a concurrent writer can cause between our check and our insert. */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverCodeOf(error);
  return (
    code === "23505" ||
    code === "ER_DUP_ENTRY" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  );
}
