import type { Tool, ToolResult } from "../tool.js";
import type { RetryInfo } from "./http.js";

/** A tool call a model made. `arguments` is parsed; when the JSON was broken, `parseError` says why. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
  /** The arguments exactly as the model wrote them. */
  rawArguments: string;
  parseError?: string;
}

/** One message of a conversation, the same for every model API. */
export type AgentMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; toolCallId: string; name: string; result: ToolResult };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelRequest {
  system: string;
  messages: readonly AgentMessage[];
  tools: readonly Tool[];
  signal?: AbortSignal;
  /** Text as it streams in (streaming clients only). */
  onTextDelta?: (text: string) => void;
  onRetry?: (info: RetryInfo) => void;
}

export interface ModelResponse {
  message: { role: "assistant"; content: string; toolCalls?: ToolCallRequest[] };
  usage: Usage | undefined;
  /** The API's own word: `stop`, `tool_calls`, `end_turn`, `tool_use`, `max_tokens`… */
  stopReason: string;
}

/** A chat model reached over HTTP. */
export interface ModelClient {
  readonly provider: string;
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
