import type { Diagnostic } from "./diagnostics.js";

/**
 * Stable error codes. Callers branch on `code`, never on message text.
 */
export type AgentSkillsErrorCode =
  | "SKILL_ERROR"
  | "SKILL_NOT_FOUND"
  | "RESOURCE_NOT_FOUND"
  | "RESOURCE_LISTING_NOT_SUPPORTED"
  | "DISCOVERY_NOT_SUPPORTED"
  | "FILE_ACCESS_NOT_SUPPORTED"
  | "SKILL_UNAVAILABLE"
  | "PROVIDER_UNAVAILABLE"
  | "SKILL_VALIDATION"
  | "LIMIT_EXCEEDED"
  | "INVALID_PATH"
  | "SKILL_EXISTS"
  | "ARCHIVE_REJECTED"
  | "REPOSITORY_READ_ONLY"
  | "SANDBOX_UNAVAILABLE";

/**
 * Base of every error Skillport raises on purpose, in every package (one hierarchy: plugin-host, toolchain and CLI
 * errors extend it with their own code unions). Messages name skill ids and relative paths, never host paths.
 */
export class AgentSkillsError<Code extends string = AgentSkillsErrorCode> extends Error {
  readonly code: Code;
  constructor(message: string, options?: { code?: Code; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options?.code ?? ("SKILL_ERROR" as Code);
  }
}

export class SkillNotFoundError extends AgentSkillsError {
  readonly skillId: string;
  constructor(skillId: string, message = `skill not found: ${JSON.stringify(skillId)}`, options?: { cause?: unknown }) {
    super(message, { code: "SKILL_NOT_FOUND", ...options });
    this.skillId = skillId;
  }
}

export class ResourceNotFoundError extends AgentSkillsError {
  readonly skillId: string;
  readonly path: string;
  constructor(
    skillId: string,
    path: string,
    message = `resource not found in skill ${JSON.stringify(skillId)}: ${JSON.stringify(path)}`,
    options?: { cause?: unknown },
  ) {
    super(message, { code: "RESOURCE_NOT_FOUND", ...options });
    this.skillId = skillId;
    this.path = path;
  }
}

/** Raised by a provider that cannot list a skill's resources (it never returns an empty listing instead). */
export class ResourceListingNotSupportedError extends AgentSkillsError {
  constructor(provider: string) {
    super(`provider ${provider} does not support listing resources`, { code: "RESOURCE_LISTING_NOT_SUPPORTED" });
  }
}

export class DiscoveryNotSupportedError extends AgentSkillsError {
  constructor(provider: string) {
    super(`provider ${provider} does not support discovery`, { code: "DISCOVERY_NOT_SUPPORTED" });
  }
}

export class FileAccessNotSupportedError extends AgentSkillsError {
  constructor(provider: string) {
    super(`provider ${provider} does not support file access`, { code: "FILE_ACCESS_NOT_SUPPORTED" });
  }
}

/** A skill exists but cannot be served right now (an outage is not "not found"). */
export class SkillUnavailableError extends AgentSkillsError {
  /** Seconds after which a retry may succeed, when known. */
  readonly retryAfter: number | undefined;
  constructor(message: string, options?: { retryAfter?: number; cause?: unknown; code?: AgentSkillsErrorCode }) {
    super(message, { code: options?.code ?? "SKILL_UNAVAILABLE", cause: options?.cause });
    this.retryAfter = options?.retryAfter;
  }
}

export class ProviderUnavailableError extends SkillUnavailableError {
  constructor(message: string, options?: { retryAfter?: number; cause?: unknown }) {
    super(message, { ...options, code: "PROVIDER_UNAVAILABLE" });
  }
}

/** A skill (or a batch) failed validation; `diagnostics` says what and where. */
export class SkillValidationError extends AgentSkillsError {
  readonly diagnostics: readonly Diagnostic[];
  constructor(message: string, diagnostics: readonly Diagnostic[]) {
    super(message, { code: "SKILL_VALIDATION" });
    this.diagnostics = diagnostics;
  }
}

/** A configured limit (size, count, depth, aliases, time) was hit. */
export class LimitExceededError extends AgentSkillsError {
  readonly limit: string;
  constructor(limit: string, message: string) {
    super(message, { code: "LIMIT_EXCEEDED" });
    this.limit = limit;
  }
}

/** A path or id from outside broke the safe-path rules. */
export class InvalidPathError extends AgentSkillsError {
  readonly path: string;
  /** What is wrong with it, e.g. `contains ':'`. */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`invalid path ${JSON.stringify(path)}: ${reason}`, { code: "INVALID_PATH" });
    this.path = path;
    this.reason = reason;
  }
}

/** A save without `force` met skills that already exist; nothing was written. */
export class SkillExistsError extends AgentSkillsError {
  readonly skillIds: readonly string[];
  constructor(skillIds: readonly string[]) {
    super(`skill already exists: ${skillIds.map((id) => JSON.stringify(id)).join(", ")} (save with force to replace)`, {
      code: "SKILL_EXISTS",
    });
    this.skillIds = skillIds;
  }
}

/** A write (save, delete) reached a repository that is read-only (by nature, or switched with `setWriteable(false)`). */
export class RepositoryReadOnlyError extends AgentSkillsError {
  readonly repository: string;
  constructor(repository: string, operation: string) {
    super(`cannot ${operation}: repository ${repository} is read-only`, { code: "REPOSITORY_READ_ONLY" });
    this.repository = repository;
  }
}

/**
 * A feature needs a package the user has not installed: a database driver, the exact tokenizer or the plugin
 * toolchain are optional peers (decision 0295). The message ends with the one command that installs it.
 */
export class MissingDependencyError extends AgentSkillsError<"MISSING_DEPENDENCY"> {
  /** The package to install, e.g. `better-sqlite3`. */
  readonly packageName: string;
  /** The exact command, e.g. `npm install better-sqlite3` (`npm install --global …` beside a global install). */
  readonly install: string;
  constructor(packageName: string, feature: string, options?: { install?: string; cause?: unknown }) {
    const install = options?.install ?? `npm install ${packageName}`;
    super(`${feature} needs the package ${packageName}, which is not installed: ${install}`, {
      code: "MISSING_DEPENDENCY",
      cause: options?.cause,
    });
    this.packageName = packageName;
    this.install = install;
  }
}
