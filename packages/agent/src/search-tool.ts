import { z } from "zod";
import { DEFAULT_SEARCH_TOOL } from "@skillport/core";
import type { BoxSkill } from "./skill-box.js";
import { defineTool, type Tool } from "./tool.js";

export const SEARCH_SKILLS_TOOL = DEFAULT_SEARCH_TOOL;

const input = z.object({
  query: z.string().min(1).describe("What the task is about, in a few words."),
  limit: z.number().int().min(1).max(20).optional().describe("Most skills returned (default 5)."),
});

/** `search_skills(query)`: finds skills the prompt had no room to list (core's BM25F search, calibrated confidence). */
export function createSearchTool(search: (query: string, limit: number) => Promise<Array<{ skill: BoxSkill; confidence: number }>>): Tool {
  return defineTool({
    name: SEARCH_SKILLS_TOOL,
    description: "Find skills by what they do, when the system prompt does not list them all. Returns skill ids to load with load_skill_through_path.",
    input,
    handler: async ({ query, limit }) => {
      const hits = await search(query, limit ?? 5);
      if (hits.length === 0) return `No skill matches ${JSON.stringify(query)}.`;
      const lines = hits.map(({ skill, confidence }, i) => `${i + 1}. ${skill.id} (${Math.round(confidence * 100)}%): ${skill.description}`);
      return `Skills matching ${JSON.stringify(query)}:\n${lines.join("\n")}`;
    },
  });
}
