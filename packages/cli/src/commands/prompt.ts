import { InvalidArgumentError, Option, type Command } from "commander";
import {
  CATALOG_FORMATS,
  DEFAULT_SEARCH_TOOL,
  TokenizerUnavailableError,
  type CatalogFormat,
  type TokenCounter,
  type TokenEncoding,
} from "@skillport/core";
import { approximateTokenCounter, loadTokenCounter, TOKEN_ENCODINGS } from "@skillport/core/internal";
import { CliError, colors, EXIT_PROBLEMS, type CliOutput } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";
import { positiveInteger } from "../options.js";

interface PromptOptions {
  format: CatalogFormat;
  maxChars?: number;
  maxTokens?: number;
  maxEntryChars?: number;
  tokenizer: TokenEncoding | "chars";
  layout: "skills-ref" | "indented";
  /** Undefined unless --metadata or --no-metadata was given: each format keeps its own default. */
  metadata?: boolean;
  pin: string[];
  priority: Record<string, number>;
  searchTool: string | false;
}

function priorityPair(value: string, previous: Record<string, number> = {}): Record<string, number> {
  const match = /^([^=]+)=(-?\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError(`expected <skill-id>=<number>, got ${JSON.stringify(value)}`);
  return { ...previous, [match[1] as string]: Number(match[2]) };
}

/** The exact tokenizer asked for, or characters ÷ 4 (said on stderr) when js-tiktoken is not installed. */
async function tokenCounter(name: PromptOptions["tokenizer"], io: CliOutput): Promise<TokenCounter> {
  if (name === "chars") return approximateTokenCounter;
  try {
    return await loadTokenCounter(name);
  } catch (error) {
    if (!(error instanceof TokenizerUnavailableError)) throw error;
    io.stderr(`${colors(io).yellow("warning")}  ${error.message}; counting tokens as characters ÷ 4 instead\n`);
    return approximateTokenCounter;
  }
}

export function registerPrompt(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("prompt")
    .description(
      "print the skills catalog a model sees. Under a budget it keeps pinned skills, then higher priority, then takes " +
        "skills from every source in turn; its last line says how many were left out and which tool finds them.",
    )
    .argument(
      "[roots...]",
      "folders of skills, skill folders or source addresses (sqlite:./x.db, postgres://…, mysql://…, git+https://…#ref:path, https://…, npm:<package>), highest precedence first",
    )
    .addOption(new Option("-f, --format <format>", "catalog format").choices([...CATALOG_FORMATS]).default("xml"))
    .addOption(new Option("--layout <layout>", "xml layout").choices(["skills-ref", "indented"]).default("skills-ref"))
    .option("--max-chars <n>", "character budget: whole skills are left out to fit", positiveInteger)
    .option("--max-tokens <n>", "token budget, counted by --tokenizer", positiveInteger)
    .addOption(
      new Option(
        "--tokenizer <name>",
        "how --max-tokens counts: an OpenAI encoding (js-tiktoken) or chars (characters ÷ 4)",
      )
        .choices([...TOKEN_ENCODINGS, "chars"])
        .default("o200k_base"),
    )
    .option("--max-entry-chars <n>", "cap on one skill's entry (its description is shortened)", positiveInteger)
    .option("--pin <ids...>", "skills kept first under a budget, in this order")
    .option(
      "--priority <id=n>",
      "a skill's priority under a budget (repeatable; overrides its frontmatter)",
      priorityPair,
      {},
    )
    .option("--search-tool <name>", "the tool the last line names when skills are left out", DEFAULT_SEARCH_TOOL)
    .option("--no-search-tool", "the model has no search tool: the last line only counts what was left out")
    .option("--metadata", "agentscope/json: show every metadata key (default: agentscope yes, json no)")
    .option("--no-metadata", "agentscope/json: show only name, description and id")
    .action(async (roots: string[], options: PromptOptions) => {
      const loaded = await loadSkills(roots, io);
      const { registry, failures, skipped } = loaded;
      try {
        reportLoadProblems(io, failures, registry.shadowed, skipped);
        if (failures.length > 0) setExit(EXIT_PROBLEMS);
        // An empty catalog on stdout would look like success: say that nothing was found (exit 1), as validate does.
        if (registry.list().length === 0) {
          const where =
            loaded.roots.length > 0
              ? loaded.roots.join(", ")
              : ".agents/skills or .claude/skills (here, above, or in your home folder)";
          throw new CliError(`no skills found in ${where}`, EXIT_PROBLEMS);
        }
        const counter = options.maxTokens === undefined ? undefined : await tokenCounter(options.tokenizer, io);
        const text = await registry.catalog({
          format: options.format,
          layout: options.layout,
          maxChars: options.maxChars,
          maxTokens: options.maxTokens,
          ...(counter && { tokenCounter: counter }),
          maxEntryChars: options.maxEntryChars,
          pinned: options.pin ?? [],
          priorities: options.priority,
          searchTool: options.searchTool,
          ...(options.metadata !== undefined && { exposeAllMetadata: options.metadata }),
        });
        if (text.length > 0) io.data(text.endsWith("\n") ? text : `${text}\n`);
      } finally {
        await loaded.close();
      }
    });
}
