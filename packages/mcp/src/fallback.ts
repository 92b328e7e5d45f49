import type { CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { LOAD_SKILL_TOOL_NAME, normalizeResourcePath, renderCatalog, type SkillRegistry } from "@skillport/core";
import * as z from "zod";
import { textOf, type ServedSkill, type Snapshot } from "./snapshot.js";

/** The catalog resource of the tool fallback: one line per served skill, the server's name on each. */
export const CATALOG_URI = "skillport://catalog";
export const SEARCH_TOOL_NAME = "search_skills";
/** Beyond this many skills the `skillId` enum is left out of the tool schema (it would cost more than it helps). */
const MAX_ENUM = 200;

function error(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function catalogText(snapshot: Snapshot, serverName: string): string {
  const entries = snapshot.skills.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    metadata: {},
    source: serverName,
  }));
  const header = `Skills served by the MCP server "${serverName}". Load one with ${LOAD_SKILL_TOOL_NAME}(skillId, path="SKILL.md").\n`;
  return (
    header +
    renderCatalog(entries, { format: "agentscope", layout: "compact" })
      .split("\n")
      .map((line) => (line.startsWith("- ") ? `${line} [server: ${serverName}]` : line))
      .join("\n")
  );
}

function fileText(skill: ServedSkill, path: string): CallToolResult {
  const file = [...skill.files.values()].find((f) => f.path === path);
  if (file === undefined) {
    const paths = [...skill.files.values()].map((f) => f.path);
    return error(
      `Error: ${skill.id} has no file ${JSON.stringify(path)}; its files: ${paths.slice(0, 50).join(", ")}${paths.length > 50 ? ", …" : ""}`,
    );
  }
  const text = file.isText ? textOf(file.bytes) : undefined;
  if (text === undefined) {
    return {
      content: [
        {
          type: "resource",
          resource: { uri: file.uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString("base64") },
        },
      ],
    };
  }
  return { content: [{ type: "text", text }] };
}

/**
 * The tool fallback for hosts without the extension: `load_skill_through_path(skillId, path)` (the seed's load tool,
 * over the same snapshot the extension serves), `search_skills(query)` (Skillport's ranking, limited to served skills)
 * and the catalog as a resource.
 */
export function registerFallback(
  mcp: McpServer,
  current: () => Snapshot,
  registry: SkillRegistry,
  serverName: string,
): void {
  const ids = current().skills.map((s) => s.id);
  const skillId = ids.length > 0 && ids.length <= MAX_ENUM ? z.enum(ids as [string, ...string[]]) : z.string();
  mcp.registerTool(
    LOAD_SKILL_TOOL_NAME,
    {
      description: `Load a skill served by "${serverName}": its instructions (path "SKILL.md") or one of its files (e.g. "references/guide.md"). The catalog is the resource ${CATALOG_URI}; ${SEARCH_TOOL_NAME} finds skills by task.`,
      inputSchema: z.object({
        skillId: skillId.describe("The skill's id, as the catalog lists it."),
        path: z.string().optional().describe('Path relative to the skill folder; default "SKILL.md".'),
        resourcePath: z.string().optional().describe("AgentScope's name for path."),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const snapshot = current();
      const skill = snapshot.byId.get(args.skillId.trim());
      if (skill === undefined)
        return error(
          `Error: no skill ${JSON.stringify(args.skillId)} is served here; read ${CATALOG_URI} or call ${SEARCH_TOOL_NAME}`,
        );
      const raw = (args.path ?? args.resourcePath ?? "SKILL.md").trim() || "SKILL.md";
      let path: string;
      try {
        path = normalizeResourcePath(raw);
      } catch (e) {
        return error(
          `Error: path ${JSON.stringify(raw)} is not allowed: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      return fileText(skill, path);
    },
  );
  mcp.registerTool(
    SEARCH_TOOL_NAME,
    {
      description: `Find skills served by "${serverName}" that fit a task; returns ids to pass to ${LOAD_SKILL_TOOL_NAME}.`,
      inputSchema: z.object({ query: z.string().min(1).max(1000), limit: z.number().int().min(1).max(50).optional() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      const snapshot = current();
      const wanted = limit ?? 5;
      const hits = (await registry.search(query, { limit: wanted + snapshot.refused.length }))
        .filter((h) => snapshot.byId.has(h.id))
        .slice(0, wanted);
      const lines = hits.map((h) => {
        const s = snapshot.byId.get(h.id) as ServedSkill;
        return `${s.id} (${Math.round(h.confidence * 100)}%): ${s.description}`;
      });
      return { content: [{ type: "text", text: lines.length === 0 ? "No served skill fits." : lines.join("\n") }] };
    },
  );
  mcp.registerResource(
    "skills-catalog",
    CATALOG_URI,
    { description: `The skills "${serverName}" serves, one line each`, mimeType: "text/markdown" },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: catalogText(current(), serverName) }],
    }),
  );
}
