import { AgentSkillsError } from "@skillport/core";

export type RegistryErrorCode =
  | "REGISTRY_BAD_REQUEST"
  | "REGISTRY_UNAUTHORIZED"
  | "REGISTRY_FORBIDDEN"
  | "REGISTRY_NOT_FOUND"
  | "REGISTRY_HELD"
  | "REGISTRY_CONFLICT"
  | "REGISTRY_TOO_LARGE"
  | "REGISTRY_RATE_LIMITED"
  | "REGISTRY_INVALID_PACKAGE";

const STATUS: Readonly<Record<RegistryErrorCode, number>> = {
  REGISTRY_BAD_REQUEST: 400,
  REGISTRY_UNAUTHORIZED: 401,
  REGISTRY_FORBIDDEN: 403,
  REGISTRY_NOT_FOUND: 404,
  REGISTRY_HELD: 403,
  REGISTRY_CONFLICT: 409,
  REGISTRY_TOO_LARGE: 413,
  REGISTRY_RATE_LIMITED: 429,
  REGISTRY_INVALID_PACKAGE: 422,
};

/**
 * A request the registry refuses, with the HTTP status it answers with. Messages are one line and never hold a token
 * or a host path; `details` (validation diagnostics, audit findings) travel in the JSON answer.
 */
export class RegistryError extends AgentSkillsError<RegistryErrorCode> {
  readonly status: number;
  readonly details: unknown;
  constructor(code: RegistryErrorCode, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, { code, cause: options.cause });
    this.status = STATUS[code];
    this.details = options.details;
  }
}
