import { AgentSkillsError } from "@skillport/core";

/**
 * Stable codes for everything the plugin host reports. Callers branch on `code`, never on message text.
 * The same codes travel in `error` events, so a remote caller sees what a local one sees.
 */
export type PluginHostErrorCode =
  | "PLUGIN_INVALID" // the dist/.pkg or its manifest is unusable
  | "PLUGIN_TOOL_NOT_FOUND"
  | "PLUGIN_INPUT_INVALID"
  | "PLUGIN_OUTPUT_INVALID"
  | "PLUGIN_SECRETS_INVALID"
  | "PLUGIN_HANDLER_ERROR" // the tool's own code threw
  | "PLUGIN_SANDBOX_DENIED" // the tool tried something the sandbox forbids
  | "PLUGIN_TIMEOUT"
  | "PLUGIN_LIMIT_EXCEEDED" // e.g. a stream flood
  | "PLUGIN_HEAP_LIMIT"
  | "PLUGIN_WORKER_CRASHED"
  | "PLUGIN_WORKER_START_FAILED"
  | "PLUGIN_QUEUE_FULL"
  | "PLUGIN_QUEUE_TIMEOUT"
  | "PLUGIN_CIRCUIT_OPEN"
  | "PLUGIN_SANDBOX_UNAVAILABLE" // bubblewrap was required but does not work here
  | "PLUGIN_HOST_CLOSED";

/** Every error the host raises on purpose. Messages name the plugin and tool, never host paths or secret values. */
export class PluginHostError extends AgentSkillsError<PluginHostErrorCode> {
  /** What the tool threw, as JSON-safe data, when it says more than the message (see worker/error-text.ts). */
  readonly detail: unknown;
  constructor(code: PluginHostErrorCode, message: string, options?: { cause?: unknown; detail?: unknown }) {
    super(message, { code, cause: options?.cause });
    this.detail = options?.detail;
  }
}

const CODES: ReadonlySet<string> = new Set<PluginHostErrorCode>([
  "PLUGIN_INVALID",
  "PLUGIN_TOOL_NOT_FOUND",
  "PLUGIN_INPUT_INVALID",
  "PLUGIN_OUTPUT_INVALID",
  "PLUGIN_SECRETS_INVALID",
  "PLUGIN_HANDLER_ERROR",
  "PLUGIN_SANDBOX_DENIED",
  "PLUGIN_TIMEOUT",
  "PLUGIN_LIMIT_EXCEEDED",
  "PLUGIN_HEAP_LIMIT",
  "PLUGIN_WORKER_CRASHED",
  "PLUGIN_WORKER_START_FAILED",
  "PLUGIN_QUEUE_FULL",
  "PLUGIN_QUEUE_TIMEOUT",
  "PLUGIN_CIRCUIT_OPEN",
  "PLUGIN_SANDBOX_UNAVAILABLE",
  "PLUGIN_HOST_CLOSED",
]);

export function isPluginHostErrorCode(value: unknown): value is PluginHostErrorCode {
  return typeof value === "string" && CODES.has(value);
}
