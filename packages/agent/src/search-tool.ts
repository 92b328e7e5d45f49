import { z } from "zod";
import { DEFAULT_SEARCH_TOOL } from "@skillport/core";
import { DEFAULT_MIN_CONFIDENCE } from "@skillport/core/internal";
import type { BoxSkill } from "./box-skill.js";
import { defineTool, type Tool } from "./tool.js";

export const SEARCH_SKILLS_TOOL = DEFAULT_SEARCH_TOOL;

const input = z.object({
  query: z.string().min(1).describe("What the task is about, in a few words."),
  limit: z.number().int().min(1).max(20).optional().describe("Most skills returned (default 5)."),
  minConfidence: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      "Leave out skills whose confidence is below this (0–1). Default 0: every match, best first, each with its confidence.",
    ),
});

/**
 * `search_skills(query)`: finds skills the prompt had no room to list (core's BM25F search, calibrated confidence).
 * Like `skillport search`, it shows every ranked match with its confidence and abstains only when asked (decision 0265).
 */
export function createSearchTool(
  search: (
    query: string,
    limit: number,
    minConfidence: number,
  ) => Promise<Array<{ skill: BoxSkill; confidence: number }>>,
): Tool {
  return defineTool({
    name: SEARCH_SKILLS_TOOL,
    description:
      "Find skills by what they do, when the system prompt does not list them all. Returns skill ids, best match first, each with " +
      "its confidence (how likely it fits), to load with load_skill_through_path.",
    input,
    handler: async ({ query, limit, minConfidence }) => {
      const threshold = minConfidence ?? DEFAULT_MIN_CONFIDENCE;
      const hits = await search(query, limit ?? 5, threshold);
      if (hits.length === 0)
        return `No skill matches ${JSON.stringify(query)}${threshold > 0 ? ` with confidence ≥ ${threshold}` : ""}.`;
      const lines = hits.map(
        ({ skill, confidence }, i) => `${i + 1}. ${skill.id} (${Math.round(confidence * 100)}%): ${skill.description}`,
      );
      return `Skills matching ${JSON.stringify(query)}:\n${lines.join("\n")}`;
    },
  });
}
