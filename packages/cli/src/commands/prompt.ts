import { Option, type Command } from "commander";
import { CATALOG_FORMATS, type CatalogFormat } from "@skillport/core";
import { EXIT_PROBLEMS, type CliIO } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";
import { positiveInteger } from "../options.js";

interface PromptOptions {
  format: CatalogFormat;
  maxChars?: number;
  maxTokens?: number;
  maxEntryChars?: number;
  layout: "skills-ref" | "indented";
  metadata: boolean;
}

export function registerPrompt(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command("prompt")
    .description("print the skills catalog a model sees (budgeted; says what it dropped)")
    .argument("[roots...]", "folders of skills or skill folders, highest precedence first")
    .addOption(new Option("-f, --format <format>", "catalog format").choices([...CATALOG_FORMATS]).default("xml"))
    .addOption(new Option("--layout <layout>", "xml layout").choices(["skills-ref", "indented"]).default("skills-ref"))
    .option("--max-chars <n>", "character budget: whole skills are dropped to fit", positiveInteger)
    .option("--max-tokens <n>", "approximate token budget (4 characters a token)", positiveInteger)
    .option("--max-entry-chars <n>", "cap on one skill's entry (its description is shortened)", positiveInteger)
    .option("--no-metadata", "agentscope/json: show only name, description and id")
    .action(async (roots: string[], options: PromptOptions) => {
      const { registry, failures } = await loadSkills(roots, io);
      reportLoadProblems(io, failures, registry.shadowed);
      if (failures.length > 0) setExit(EXIT_PROBLEMS);
      const text = await registry.catalog({
        format: options.format,
        layout: options.layout,
        maxChars: options.maxChars,
        maxTokens: options.maxTokens,
        maxEntryChars: options.maxEntryChars,
        exposeAllMetadata: options.metadata,
      });
      if (text.length > 0) io.stdout(text.endsWith("\n") ? text : `${text}\n`);
    });
}
