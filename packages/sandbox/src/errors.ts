import { AgentSkillsError } from "@skillport/core";

/** Raised when a sandbox backend is asked for but cannot work here (never silently replaced). */
export class SandboxUnavailableError extends AgentSkillsError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: "SANDBOX_UNAVAILABLE", cause: options?.cause });
  }
}
