import { toAnthropicToolResult, toAnthropicTools } from "../adapters/index.js";
import { AgentError } from "../errors.js";
import { modelBaseUrl, postJson, readSse, type HttpOptions } from "./http.js";
import { finish, toolCall } from "./openai-chat.js";
import type { AgentMessage, ModelClient, ModelRequest, ModelResponse, ToolCallRequest, Usage } from "./types.js";

export interface AnthropicModelOptions extends HttpOptions {
  model: string;
  /** Default: ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Default https://api.anthropic.com (a trailing /v1 is accepted). */
  baseUrl?: string;
  /** Server-sent events (default true). */
  stream?: boolean;
  /** Required by the API. Default 4096. */
  maxTokens?: number;
  temperature?: number;
  /** Default 2023-06-01. */
  anthropicVersion?: string;
  headers?: Record<string, string>;
}

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

/** An Anthropic Messages client (`POST {baseUrl}/v1/messages`), streaming or not. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelClient {
  const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
  if (apiKey === undefined || apiKey === "")
    throw new AgentError("MODEL_AUTH", "ANTHROPIC_API_KEY is not set (export it, or pass apiKey)");
  const baseUrl = modelBaseUrl(options.baseUrl ?? process.env.ANTHROPIC_BASE_URL ?? DEFAULT_ANTHROPIC_BASE_URL);
  const url = baseUrl.endsWith("/v1") ? `${baseUrl}/messages` : `${baseUrl}/v1/messages`;
  const stream = options.stream ?? true;
  const headers = {
    ...options.headers,
    "x-api-key": apiKey,
    "anthropic-version": options.anthropicVersion ?? "2023-06-01",
  };
  const label = `Anthropic server at ${baseUrl}`;
  return {
    provider: "anthropic",
    model: options.model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        max_tokens: options.maxTokens ?? 4096,
        ...(request.system && { system: request.system }),
        messages: toAnthropicMessages(request.messages),
        ...(request.tools.length > 0 && { tools: toAnthropicTools(request.tools) }),
        ...(options.temperature !== undefined && { temperature: options.temperature }),
        ...(stream && { stream: true }),
      };
      const response = await postJson(url, headers, body, {
        ...options,
        label,
        secrets: [apiKey],
        ...(request.signal && { signal: request.signal }),
        ...(request.onRetry && { onRetry: request.onRetry }),
      });
      return stream ? readStream(response, request, label) : readJson(response, label);
    },
  };
}

type Block = Record<string, unknown>;

/** Neutral messages as Anthropic's alternating user/assistant turns: tool results go in the next user turn. */
export function toAnthropicMessages(
  messages: readonly AgentMessage[],
): Array<{ role: "user" | "assistant"; content: Block[] }> {
  const out: Array<{ role: "user" | "assistant"; content: Block[] }> = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "user") push("user", [{ type: "text", text: message.content }]);
    else if (message.role === "tool")
      push("user", [toAnthropicToolResult(message.toolCallId, message.result) as unknown as Block]);
    else {
      const blocks: Block[] = message.content === "" ? [] : [{ type: "text", text: message.content }];
      for (const call of message.toolCalls ?? []) {
        const input =
          call.parseError === undefined && call.arguments !== null && typeof call.arguments === "object"
            ? call.arguments
            : {};
        blocks.push({ type: "tool_use", id: call.id, name: call.name, input });
      }
      push("assistant", blocks.length > 0 ? blocks : [{ type: "text", text: "" }]);
    }
  }
  return out;
}

async function readJson(response: Response, label: string): Promise<ModelResponse> {
  const json = (await response.json().catch(() => undefined)) as
    | {
        content?: Array<{ type?: string; text?: string; id?: string; name?: string; input?: unknown }>;
        stop_reason?: string;
        usage?: { input_tokens?: number; output_tokens?: number };
      }
    | undefined;
  if (!json || !Array.isArray(json.content))
    throw new AgentError("MODEL_PROTOCOL", `the ${label} sent a response without content`);
  let text = "";
  const calls: ToolCallRequest[] = [];
  for (const block of json.content) {
    if (block.type === "text") text += block.text ?? "";
    else if (block.type === "tool_use") {
      const input = block.input ?? {};
      calls.push(
        input !== null && typeof input === "object" && !Array.isArray(input)
          ? { id: block.id ?? "", name: block.name ?? "", arguments: input, rawArguments: JSON.stringify(input) }
          : {
              id: block.id ?? "",
              name: block.name ?? "",
              arguments: undefined,
              rawArguments: JSON.stringify(input),
              parseError: "the arguments must be a JSON object",
            },
      );
    }
  }
  return finish(
    text,
    calls,
    json.stop_reason ?? "end_turn",
    json.usage ? { inputTokens: json.usage.input_tokens ?? 0, outputTokens: json.usage.output_tokens ?? 0 } : undefined,
  );
}

async function readStream(response: Response, request: ModelRequest, label: string): Promise<ModelResponse> {
  if (!response.body) throw new AgentError("MODEL_PROTOCOL", `the ${label} sent no stream`);
  let text = "";
  let stopReason = "end_turn";
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const blocks = new Map<number, { type: string; id: string; name: string; json: string }>();
  let started = false;
  for await (const event of readSse(response.body, request.signal)) {
    started = true;
    let data: {
      type?: string;
      index?: number;
      content_block?: { type?: string; id?: string; name?: string; text?: string };
      delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string };
      message?: { usage?: { input_tokens?: number; output_tokens?: number } };
      usage?: { output_tokens?: number; input_tokens?: number };
      error?: { type?: string; message?: string };
    };
    try {
      data = JSON.parse(event.data) as typeof data;
    } catch {
      throw new AgentError("MODEL_PROTOCOL", `the ${label} sent an event that is not JSON`);
    }
    const type = data.type ?? event.event;
    if (type === "message_start") {
      usage.inputTokens = data.message?.usage?.input_tokens ?? 0;
      usage.outputTokens = data.message?.usage?.output_tokens ?? 0;
    } else if (type === "content_block_start" && data.index !== undefined) {
      const block = data.content_block ?? {};
      blocks.set(data.index, { type: block.type ?? "", id: block.id ?? "", name: block.name ?? "", json: "" });
      if (block.type === "text" && block.text) {
        text += block.text;
        request.onTextDelta?.(block.text);
      }
    } else if (type === "content_block_delta" && data.index !== undefined) {
      const block = blocks.get(data.index);
      if (data.delta?.type === "text_delta" && data.delta.text) {
        text += data.delta.text;
        request.onTextDelta?.(data.delta.text);
      } else if (data.delta?.type === "input_json_delta" && block) block.json += data.delta.partial_json ?? "";
    } else if (type === "message_delta") {
      if (data.delta?.stop_reason) stopReason = data.delta.stop_reason;
      if (data.usage?.output_tokens !== undefined) usage.outputTokens = data.usage.output_tokens;
      if (data.usage?.input_tokens !== undefined) usage.inputTokens = data.usage.input_tokens;
    } else if (type === "error") {
      throw new AgentError(
        "MODEL_HTTP",
        `the ${label} reported an error mid-stream: ${data.error?.message ?? data.error?.type ?? "unknown"}`,
      );
    } else if (type === "message_stop") break;
  }
  if (!started)
    throw new AgentError(
      "MODEL_PROTOCOL",
      `the ${label} sent an empty stream (no server-sent events): check the base URL`,
    );
  const calls = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .filter(([, b]) => b.type === "tool_use")
    .map(([, b]) => toolCall(b.id, b.name, b.json));
  return finish(text, calls, stopReason, usage);
}
