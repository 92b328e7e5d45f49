import { parseArguments, toOpenAIChatTools } from "../adapters/index.js";
import { AgentError } from "../errors.js";
import { resultText } from "../tool.js";
import { modelBaseUrl, postJson, readSse, type HttpOptions } from "./http.js";
import type { AgentMessage, ModelClient, ModelRequest, ModelResponse, ToolCallRequest, Usage } from "./types.js";

export interface OpenAIChatModelOptions extends HttpOptions {
  model: string;
  /** Default: OPENAI_API_KEY. An explicit empty string sends no Authorization header (local servers). */
  apiKey?: string;
  /** Default https://api.openai.com/v1 (any OpenAI-compatible server: `…/v1`). */
  baseUrl?: string;
  /** Server-sent events (default true). */
  stream?: boolean;
  maxTokens?: number;
  temperature?: number;
  headers?: Record<string, string>;
}

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** An OpenAI-compatible Chat Completions client (`POST {baseUrl}/chat/completions`), streaming or not. */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ModelClient {
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  if (apiKey === undefined) throw new AgentError("MODEL_AUTH", "OPENAI_API_KEY is not set (export it, or pass apiKey)");
  const baseUrl = modelBaseUrl(options.baseUrl ?? process.env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL);
  const url = `${baseUrl}/chat/completions`;
  const stream = options.stream ?? true;
  const headers: Record<string, string> = {
    ...options.headers,
    ...(apiKey !== "" && { authorization: `Bearer ${apiKey}` }),
  };
  const label = `OpenAI-compatible server at ${baseUrl}`;
  return {
    provider: "openai",
    model: options.model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        messages: [
          ...(request.system ? [{ role: "system", content: request.system }] : []),
          ...request.messages.map(toOpenAIMessage),
        ],
        ...(request.tools.length > 0 && { tools: toOpenAIChatTools(request.tools) }),
        ...(options.maxTokens !== undefined && { max_tokens: options.maxTokens }),
        ...(options.temperature !== undefined && { temperature: options.temperature }),
        ...(stream && { stream: true, stream_options: { include_usage: true } }),
      };
      const response = await postJson(url, headers, body, {
        ...options,
        label,
        secrets: apiKey ? [apiKey] : [],
        ...(request.signal && { signal: request.signal }),
        ...(request.onRetry && { onRetry: request.onRetry }),
      });
      return stream ? readStream(response, request, label) : readJson(response, label);
    },
  };
}

function toOpenAIMessage(message: AgentMessage): Record<string, unknown> {
  if (message.role === "user") return { role: "user", content: message.content };
  if (message.role === "tool")
    return { role: "tool", tool_call_id: message.toolCallId, content: resultText(message.result) };
  const calls = message.toolCalls ?? [];
  return {
    role: "assistant",
    content: message.content === "" && calls.length > 0 ? null : message.content,
    ...(calls.length > 0 && {
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.rawArguments },
      })),
    }),
  };
}

interface ChatChoiceMessage {
  content?: string | null;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
}

async function readJson(response: Response, label: string): Promise<ModelResponse> {
  const json = (await response.json().catch(() => undefined)) as
    | {
        choices?: Array<{ message?: ChatChoiceMessage; finish_reason?: string }>;
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      }
    | undefined;
  const choice = json?.choices?.[0];
  if (!choice?.message)
    throw new AgentError("MODEL_PROTOCOL", `the ${label} sent a response without choices[0].message`);
  const toolCalls = (choice.message.tool_calls ?? []).map((c, i) =>
    toolCall(c.id ?? `call_${i}`, c.function?.name ?? "", c.function?.arguments ?? ""),
  );
  return finish(choice.message.content ?? "", toolCalls, choice.finish_reason ?? "stop", usageOf(json?.usage));
}

async function readStream(response: Response, request: ModelRequest, label: string): Promise<ModelResponse> {
  if (!response.body) throw new AgentError("MODEL_PROTOCOL", `the ${label} sent no stream`);
  let content = "";
  let finishReason = "stop";
  let usage: Usage | undefined;
  const calls: Array<{ id: string; name: string; args: string }> = [];
  let events = 0;
  for await (const event of readSse(response.body, request.signal)) {
    events++;
    if (event.data === "[DONE]") break;
    let chunk: {
      choices?: Array<{
        index?: number;
        delta?: {
          content?: string | null;
          tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
        };
        finish_reason?: string | null;
      }>;
      usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
      error?: { message?: string };
    };
    try {
      chunk = JSON.parse(event.data) as typeof chunk;
    } catch {
      throw new AgentError("MODEL_PROTOCOL", `the ${label} sent an event that is not JSON`);
    }
    if (chunk.error)
      throw new AgentError(
        "MODEL_HTTP",
        `the ${label} reported an error mid-stream: ${chunk.error.message ?? "unknown"}`,
      );
    if (chunk.usage) usage = usageOf(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      if (delta?.content) {
        content += delta.content;
        request.onTextDelta?.(delta.content);
      }
      for (const part of delta?.tool_calls ?? []) {
        const index = part.index ?? calls.length;
        const call = (calls[index] ??= { id: "", name: "", args: "" });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.args += part.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  if (events === 0)
    throw new AgentError(
      "MODEL_PROTOCOL",
      `the ${label} sent an empty stream (no server-sent events): check the base URL`,
    );
  const toolCalls = calls.filter(Boolean).map((c, i) => toolCall(c.id || `call_${i}`, c.name, c.args));
  return finish(content, toolCalls, finishReason, usage);
}

export function toolCall(id: string, name: string, raw: string): ToolCallRequest {
  const parsed = parseArguments(raw);
  return "error" in parsed
    ? { id, name, arguments: undefined, rawArguments: raw, parseError: parsed.error }
    : { id, name, arguments: parsed.value, rawArguments: raw };
}

/** The response of one model turn (shared by the Anthropic client). */
export function finish(
  content: string,
  toolCalls: ToolCallRequest[],
  stopReason: string,
  usage: Usage | undefined,
): ModelResponse {
  return {
    message: toolCalls.length > 0 ? { role: "assistant", content, toolCalls } : { role: "assistant", content },
    usage,
    stopReason,
  };
}

function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): Usage | undefined {
  return usage ? { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } : undefined;
}
