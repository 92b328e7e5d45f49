import { renderCatalogWithCounts, type CatalogEntry, type RenderedCatalog, type TokenCounter } from "@skillport/core";
import { catalogPriority } from "@skillport/core/internal";
import type { BoxSkill } from "./box-skill.js";

export interface CatalogBudget {
  maxChars?: number;
  maxTokens?: number;
  tokenCounter?: TokenCounter;
  /** Box skill ids listed first under a budget. */
  pinned?: readonly string[];
  priorities?: Readonly<Record<string, number>>;
  maxEntryChars?: number;
}

export interface PromptSettings {
  /** The prompt header; blank or undefined = the built-in one. */
  instruction: string | undefined;
  exposeAllMetadata: boolean;
  layout: "agentscope" | "compact";
  budget: CatalogBudget;
  /** The search tool the notice names when skills are left out, or false. */
  searchTool: string | false;
}

/**
 * The skills section of a box's prompt (core's agentscope renderer) and what its budget decided. The compact layout
 * names a skill by its bare name when that is unique among the visible skills: the load tool resolves it.
 */
export function renderSkillCatalog(visible: readonly BoxSkill[], settings: PromptSettings): RenderedCatalog {
  if (visible.length === 0) return { text: "", shown: 0, total: 0 };
  const nameCount = new Map<string, number>();
  for (const skill of visible) nameCount.set(skill.name, (nameCount.get(skill.name) ?? 0) + 1);
  const entries: CatalogEntry[] = visible.map((skill) => {
    const priority = catalogPriority(skill.frontmatter);
    const label = skill.name !== "" && nameCount.get(skill.name) === 1 ? skill.name : skill.id;
    return {
      id: skill.id,
      name: skill.name,
      description: skill.description,
      metadata: skill.frontmatter,
      source: skill.source,
      label,
      ...(priority !== undefined && { priority }),
    };
  });
  const { budget } = settings;
  return renderCatalogWithCounts(entries, {
    format: "agentscope",
    exposeAllMetadata: settings.exposeAllMetadata,
    ...(settings.layout === "compact" && { layout: "compact" as const }),
    ...(settings.instruction !== undefined && { instruction: settings.instruction }),
    ...(budget.maxChars !== undefined && { maxChars: budget.maxChars }),
    ...(budget.maxTokens !== undefined && { maxTokens: budget.maxTokens }),
    ...(budget.tokenCounter !== undefined && { tokenCounter: budget.tokenCounter }),
    ...(budget.pinned !== undefined && { pinned: budget.pinned }),
    ...(budget.priorities !== undefined && { priorities: budget.priorities }),
    ...(budget.maxEntryChars !== undefined && { maxEntryChars: budget.maxEntryChars }),
    searchTool: settings.searchTool,
  });
}
