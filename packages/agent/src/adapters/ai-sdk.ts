/**
 * Vercel AI SDK (`ai` v5 and later, an optional peer): each neutral tool as an AI SDK `tool()` whose `execute` goes
 * through `callTool`, so hidden tools stay refused and results come back as the text a model reads.
 * Import from `@skillport/agent/ai-sdk`.
 */
import { jsonSchema, tool, type ToolSet } from "ai";
import { modelSchema, type ToolCaller } from "./index.js";
import { resultText, type Tool } from "../tool.js";

type AiJsonSchema = Parameters<typeof jsonSchema>[0];

/**
 * `tools` for `generateText`/`streamText`. Pass `session.tools()` and rebuild each step (`prepareStep`), or pass
 * `box.allTools()` once and limit `activeTools` to `session.toolNames()` each step: skill groups switch on as skills load.
 */
export function toAiSdkTools(tools: readonly Tool[], caller: ToolCaller): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(modelSchema(t.inputSchema) as AiJsonSchema),
      execute: async (input: Record<string, unknown>, options: { abortSignal?: AbortSignal }) => {
        const result = await caller.callTool(t.name, input, options.abortSignal ? { signal: options.abortSignal } : {});
        return resultText(result);
      },
    });
  }
  return set;
}
