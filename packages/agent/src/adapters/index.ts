/**
 * Tool lists and tool results in each API's documented shape. The neutral `Tool` (JSON Schema 2020-12) goes in;
 * each API's call comes back through `callTool`; each `ToolResult` goes out as that API's tool result.
 */
import { resultText, type JsonSchema, type Tool, type ToolResult } from "../tool.js";

/** What adapters call tools through: a SkillBox, a session of one, or anything with the same method. */
export interface ToolCaller {
  callTool(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
}

/** The schema without `$schema` (some APIs reject unknown top-level keywords). */
export function modelSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

// ── OpenAI Chat Completions ────────────────────────────────────────────────────────────────────────────────────

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** `tools` for `POST /chat/completions`. */
export function toOpenAIChatTools(tools: readonly Tool[]): OpenAIChatTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: modelSchema(t.inputSchema) },
  }));
}

/** A `role: "tool"` message answering one tool call. Tool messages carry text only: images become a placeholder. */
export function toOpenAIChatToolMessage(toolCallId: string, result: ToolResult): OpenAIChatToolMessage {
  return { role: "tool", tool_call_id: toolCallId, content: resultText(result) };
}

/** Runs every `tool_calls` entry of an assistant message and returns the tool messages, in order. */
export async function runOpenAIChatToolCalls(
  caller: ToolCaller,
  toolCalls: readonly OpenAIChatToolCall[],
  options: { signal?: AbortSignal } = {},
): Promise<OpenAIChatToolMessage[]> {
  const out: OpenAIChatToolMessage[] = [];
  for (const call of toolCalls) {
    const args = parseArguments(call.function.arguments);
    const result =
      "error" in args
        ? invalidArguments(call.function.name, args.error)
        : await caller.callTool(call.function.name, args.value, options);
    out.push(toOpenAIChatToolMessage(call.id, result));
  }
  return out;
}

// ── OpenAI Responses ───────────────────────────────────────────────────────────────────────────────────────────

export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

export interface OpenAIResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

export interface OpenAIResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/** Function tools for `POST /responses` (not strict: our schemas have optional properties). */
export function toOpenAIResponsesTools(tools: readonly Tool[]): OpenAIResponsesTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: modelSchema(t.inputSchema),
    strict: false,
  }));
}

export function toOpenAIResponsesOutput(callId: string, result: ToolResult): OpenAIResponsesFunctionCallOutput {
  return { type: "function_call_output", call_id: callId, output: resultText(result) };
}

/** Runs every `function_call` item of a response's `output` and returns the `function_call_output` items. */
export async function runOpenAIResponsesCalls(
  caller: ToolCaller,
  output: ReadonlyArray<{ type: string }>,
  options: { signal?: AbortSignal } = {},
): Promise<OpenAIResponsesFunctionCallOutput[]> {
  const out: OpenAIResponsesFunctionCallOutput[] = [];
  for (const item of output) {
    if (item.type !== "function_call") continue;
    const call = item as OpenAIResponsesFunctionCall;
    const args = parseArguments(call.arguments);
    const result =
      "error" in args ? invalidArguments(call.name, args.error) : await caller.callTool(call.name, args.value, options);
    out.push(toOpenAIResponsesOutput(call.call_id, result));
  }
  return out;
}

// ── Anthropic Messages ─────────────────────────────────────────────────────────────────────────────────────────

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export type AnthropicToolResultContent =
  { type: "text"; text: string } | { type: "image"; source: { type: "base64"; media_type: string; data: string } };

export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicToolResultContent[];
  is_error?: boolean;
}

/** `tools` for `POST /v1/messages`. */
export function toAnthropicTools(tools: readonly Tool[]): AnthropicTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: modelSchema(t.inputSchema) }));
}

/** A `tool_result` block (text and images; JSON as its text). */
export function toAnthropicToolResult(toolUseId: string, result: ToolResult): AnthropicToolResult {
  const content: AnthropicToolResultContent[] = result.content.map((part) =>
    part.type === "image"
      ? { type: "image", source: { type: "base64", media_type: part.mimeType, data: part.data } }
      : { type: "text", text: part.type === "text" ? part.text : JSON.stringify(part.value) },
  );
  return result.isError
    ? { type: "tool_result", tool_use_id: toolUseId, content, is_error: true }
    : { type: "tool_result", tool_use_id: toolUseId, content };
}

/** Runs every `tool_use` block of an assistant message; the results go in ONE user message, in order. */
export async function runAnthropicToolUses(
  caller: ToolCaller,
  content: ReadonlyArray<{ type: string }>,
  options: { signal?: AbortSignal } = {},
): Promise<AnthropicToolResult[]> {
  const out: AnthropicToolResult[] = [];
  for (const block of content) {
    if (block.type !== "tool_use") continue;
    const use = block as AnthropicToolUse;
    out.push(toAnthropicToolResult(use.id, await caller.callTool(use.name, use.input, options)));
  }
  return out;
}

// ── MCP ────────────────────────────────────────────────────────────────────────────────────────────────────────

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export type McpContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export interface McpCallToolResult {
  content: McpContent[];
  isError: boolean;
}

/** Entries of a `tools/list` result (the schema keeps `$schema`: MCP tool schemas are JSON Schema 2020-12). */
export function toMcpTools(tools: readonly Tool[]): McpTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

/** A `tools/call` result. */
export function toMcpCallToolResult(result: ToolResult): McpCallToolResult {
  return {
    content: result.content.map((part) =>
      part.type === "image"
        ? { type: "image", data: part.data, mimeType: part.mimeType }
        : { type: "text", text: part.type === "text" ? part.text : JSON.stringify(part.value) },
    ),
    isError: result.isError,
  };
}

/** Answers a `tools/call` request's params (`{name, arguments}`). */
export async function callMcpTool(
  caller: ToolCaller,
  params: { name: string; arguments?: unknown },
  options: { signal?: AbortSignal } = {},
): Promise<McpCallToolResult> {
  return toMcpCallToolResult(await caller.callTool(params.name, params.arguments ?? {}, options));
}

// ── shared ─────────────────────────────────────────────────────────────────────────────────────────────────────

/** A model's JSON arguments text: `{}` when empty, an error when it is not a JSON object. */
export function parseArguments(text: string): { value: unknown } | { error: string } {
  if (text.trim() === "") return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { error: "the arguments must be a JSON object" };
    return { value };
  } catch (error) {
    return { error: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** The result a model gets for arguments it wrote as broken JSON: an error it can correct, never a crash. */
export function invalidArguments(tool: string, problem: string): ToolResult {
  return {
    content: [
      { type: "text", text: `Error: ${tool}: ${problem}. Call the tool again with a JSON object of arguments.` },
    ],
    isError: true,
  };
}
