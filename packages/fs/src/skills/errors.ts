import {
  AgentSkillsError,
  ResourceNotFoundError,
  SkillNotFoundError,
  type AgentSkillsErrorCode,
} from "@skillport/core";

/** The provider root is missing or not a directory. Raised by constructors, so misconfiguration fails early. */
export class SkillsRootError extends AgentSkillsError {
  constructor(reason: string) {
    super(`skills root ${reason}`);
  }
}

/**
 * An oversized SKILL.md. It stays a SkillNotFoundError (the provider contract: a skill it cannot serve is "not found")
 * but carries the `LIMIT_EXCEEDED` code and the numbers, so callers can tell a limit from a missing file
 * (docs/decisions/0030-oversized-files-are-not-found-with-a-limit-code.md).
 */
export class SkillFileTooLargeError extends SkillNotFoundError {
  override readonly code: AgentSkillsErrorCode = "LIMIT_EXCEEDED";
  readonly limit = "maxFileBytes";
  readonly maxBytes: number;
  constructor(skillId: string, file: string, maxBytes: number) {
    super(
      skillId,
      `skill ${JSON.stringify(skillId)}: ${file} is larger than the ${maxBytes}-byte limit (maxFileBytes)`,
    );
    this.maxBytes = maxBytes;
  }
}

/** An oversized resource: a ResourceNotFoundError with the `LIMIT_EXCEEDED` code (see SkillFileTooLargeError). */
export class ResourceTooLargeError extends ResourceNotFoundError {
  override readonly code: AgentSkillsErrorCode = "LIMIT_EXCEEDED";
  readonly limit = "maxFileBytes";
  readonly maxBytes: number;
  constructor(skillId: string, path: string, maxBytes: number) {
    super(
      skillId,
      path,
      `skill ${JSON.stringify(skillId)}: ${JSON.stringify(path)} is larger than the ${maxBytes}-byte limit (maxFileBytes)`,
    );
    this.maxBytes = maxBytes;
  }
}
