import { invalidArguments } from "./adapters/index.js";
import { AgentError } from "./errors.js";
import type { RetryInfo } from "./model/http.js";
import type { AgentMessage, ModelClient, ToolCallRequest, Usage } from "./model/types.js";
import { SkillBox, type SkillBoxSession } from "./skill-box.js";
import type { ToolResult } from "./tool.js";

export type AgentEvent =
  | { type: "step"; step: number; tools: string[] }
  | { type: "text"; delta: string }
  | { type: "message"; message: AgentMessage }
  | { type: "tool_call"; call: ToolCallRequest }
  | { type: "tool_result"; call: ToolCallRequest; result: ToolResult }
  | { type: "retry"; retry: RetryInfo }
  | { type: "usage"; usage: Usage };

export interface RunAgentOptions {
  model: ModelClient;
  /** The box (its default session) or one session of it: whose skills and tools the model gets. */
  box: SkillBox | SkillBoxSession;
  /** The conversation so far; a string is one user message. */
  messages: readonly AgentMessage[] | string;
  /** Your own instructions, placed before the skills section of the system prompt. */
  system?: string;
  /** Most model calls in this run. Default 20. */
  maxSteps?: number;
  signal?: AbortSignal;
  /** Called as things happen (text deltas when the model streams). Must not throw. */
  onEvent?: (event: AgentEvent) => void;
}

export interface AgentRunResult {
  /** The whole conversation: the input messages, then every assistant and tool message of this run. */
  messages: AgentMessage[];
  /** The last assistant message's text. */
  text: string;
  steps: number;
  usage: Usage;
  /** `end`: the model answered; `max_steps`: it still wanted tools after the step limit; `aborted`: cancelled. */
  stopReason: "end" | "max_steps" | "aborted";
}

/**
 * The agent loop: the model sees the skills prompt and the tools of the session NOW (they change as skills load), each
 * tool call goes through `callTool` (a bad or broken call is an error result the model can correct), until the model
 * answers without tools, the step limit is reached or the signal aborts. Model transport errors throw AgentError.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  const session = options.box instanceof SkillBox ? options.box.session() : options.box;
  const maxSteps = options.maxSteps ?? 20;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new AgentError("AGENT_CONFIG", `maxSteps must be a positive integer, got ${maxSteps}`);
  const emit = (event: AgentEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's bug must not end the run
    }
  };
  const messages: AgentMessage[] =
    typeof options.messages === "string" ? [{ role: "user", content: options.messages }] : [...options.messages];
  const skills = session.getSkillPrompt();
  const system = [options.system?.trim(), skills].filter((s): s is string => Boolean(s)).join("\n\n");
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let text = "";
  const done = (steps: number, stopReason: AgentRunResult["stopReason"]): AgentRunResult => ({
    messages,
    text,
    steps,
    usage,
    stopReason,
  });
  for (let step = 1; step <= maxSteps; step++) {
    if (options.signal?.aborted) return done(step - 1, "aborted");
    const tools = session.tools();
    emit({ type: "step", step, tools: tools.map((t) => t.name) });
    let response;
    try {
      response = await options.model.complete({
        system,
        messages,
        tools,
        ...(options.signal && { signal: options.signal }),
        onTextDelta: (delta) => emit({ type: "text", delta }),
        onRetry: (retry) => emit({ type: "retry", retry }),
      });
    } catch (error) {
      if (error instanceof AgentError && error.code === "AGENT_ABORTED") return done(step - 1, "aborted");
      throw error;
    }
    if (response.usage) {
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      emit({ type: "usage", usage: response.usage });
    }
    const message: AgentMessage = response.message;
    messages.push(message);
    text = message.content;
    emit({ type: "message", message });
    const calls = response.message.toolCalls ?? [];
    if (calls.length === 0) return done(step, "end");
    for (const call of calls) {
      emit({ type: "tool_call", call });
      const result =
        call.parseError !== undefined
          ? invalidArguments(call.name, call.parseError)
          : await session.callTool(call.name, call.arguments, options.signal ? { signal: options.signal } : {});
      const toolMessage: AgentMessage = { role: "tool", toolCallId: call.id, name: call.name, result };
      messages.push(toolMessage);
      emit({ type: "tool_result", call, result });
    }
  }
  return done(maxSteps, "max_steps");
}
