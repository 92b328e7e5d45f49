import { Option, type Command } from "commander";
import { toAnthropicTools, toMcpTools, toOpenAIChatTools, toOpenAIResponsesTools } from "@skillport/agent";
import { printJson, type CliOutput } from "../io.js";
import { boxOptions, buildBox, type BoxOptions } from "./agent-setup.js";

const FORMATS = ["openai", "openai-responses", "anthropic", "mcp", "json"] as const;

interface ToolsOptions extends BoxOptions {
  format: (typeof FORMATS)[number];
  all?: boolean;
}

export function registerTools(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  boxOptions(
    program
      .command("tools")
      .description(
        "print the tool definitions a model gets for these skills, in an API's shape (before any skill is loaded, unless --all)",
      )
      .argument("[roots...]", "folders of skills or skill folders, highest precedence first")
      .addOption(
        new Option(
          "-f, --format <format>",
          "openai (Chat Completions), openai-responses, anthropic, mcp (tools/list) or json (neutral)",
        )
          .choices([...FORMATS])
          .default("openai"),
      )
      .option("--all", "also the tools that appear only after a skill is loaded"),
  ).action(async (roots: string[], options: ToolsOptions) => {
    const built = await buildBox(roots, options, io, setExit);
    const box = built.box;
    try {
      const tools = options.all ? box.allTools() : box.tools();
      const out =
        options.format === "openai"
          ? toOpenAIChatTools(tools)
          : options.format === "openai-responses"
            ? toOpenAIResponsesTools(tools)
            : options.format === "anthropic"
              ? toAnthropicTools(tools)
              : options.format === "mcp"
                ? { tools: toMcpTools(tools) }
                : tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
      printJson(io, out);
    } finally {
      await built.close();
    }
  });
}
