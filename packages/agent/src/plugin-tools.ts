import type { JsonSchema, Tool, ToolResult } from "./tool.js";
import { messageOf, TOOL_NAME_PATTERN } from "./tool.js";

/** A plugin tool as `@skillport/plugin-host`'s `PluginHost.tools()` describes it (structural: no dependency). */
export interface PluginToolLike {
  name: string;
  description: string;
  inputSchema: JsonSchema | { [key: string]: unknown };
  execute(args: unknown, context?: object): Promise<unknown>;
}

/** What `pluginTools` reads: a loaded PluginHost, or anything with the same `tools()`. */
export interface PluginToolSource {
  tools(): PluginToolLike[];
}

/**
 * Each tool of a loaded FastGPT plugin as a neutral Tool. The host validates arguments against the plugin's own zod
 * schema in its sandboxed worker (decision 0071); a rejected input or a failing run becomes an error result naming the
 * reason, never a throw. Bind them to a skill with `box.bindTool(tool, [skillId])`, or add them with `box.addTool`.
 */
export function pluginTools(host: PluginToolSource): Tool[] {
  return host.tools().map((plugin) => {
    if (!TOOL_NAME_PATTERN.test(plugin.name))
      throw new TypeError(`plugin tool name ${JSON.stringify(plugin.name)} is not a model-safe name`);
    return {
      name: plugin.name,
      description: plugin.description,
      inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...(plugin.inputSchema as JsonSchema) },
      async execute(args, context): Promise<ToolResult> {
        if (args === null || typeof args !== "object" || Array.isArray(args)) {
          return {
            content: [{ type: "text", text: `Error: ${plugin.name}: the arguments must be an object` }],
            isError: true,
          };
        }
        try {
          const output = await plugin.execute(args, {});
          void context;
          return typeof output === "string"
            ? { content: [{ type: "text", text: output }], isError: false }
            : { content: [{ type: "json", value: output }], isError: false };
        } catch (error) {
          return { content: [{ type: "text", text: `Error: ${plugin.name}: ${messageOf(error)}` }], isError: true };
        }
      },
    };
  });
}
