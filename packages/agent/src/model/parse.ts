import { AgentError } from "../errors.js";
import { createAnthropicModel, type AnthropicModelOptions } from "./anthropic.js";
import type { HttpOptions } from "./http.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import type { ModelClient } from "./types.js";

export interface ModelSpecOptions extends HttpOptions {
  apiKey?: string;
  baseUrl?: string;
  stream?: boolean;
  maxTokens?: number;
}

/** `openai:<model>` (any OpenAI-compatible Chat Completions server) or `anthropic:<model>`. */
export function createModel(spec: string, options: ModelSpecOptions = {}): ModelClient {
  const match = /^(openai|anthropic):(.+)$/.exec(spec.trim());
  if (!match)
    throw new AgentError("AGENT_CONFIG", `model ${JSON.stringify(spec)} must be openai:<model> or anthropic:<model>`);
  const model = match[2] as string;
  if (match[1] === "openai") return createOpenAIChatModel({ ...options, model });
  return createAnthropicModel({ ...(options as Omit<AnthropicModelOptions, "model">), model });
}
