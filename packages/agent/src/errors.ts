import { AgentSkillsError } from "@skillport/core";

/** Stable codes for errors the agent layer raises. Callers branch on `code`, never on message text. */
export type AgentErrorCode =
  | "AGENT_CONFIG"
  | "TOOL_CONFLICT"
  | "MODEL_AUTH"
  | "MODEL_UNREACHABLE"
  | "MODEL_HTTP"
  | "MODEL_PROTOCOL"
  | "AGENT_ABORTED";

/** An error of the agent layer (configuration, model transport). Tool failures are results, never these. */
export class AgentError extends AgentSkillsError<AgentErrorCode> {
  /** HTTP status of a model server's answer, when there was one. */
  readonly status: number | undefined;
  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown; status?: number }) {
    super(message, { code, cause: options?.cause });
    this.status = options?.status;
  }
}
