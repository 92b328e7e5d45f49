import type { CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { LOAD_SKILL_TOOL_NAME, normalizeResourcePath, renderCatalog, type SkillRegistry } from "@skillport/core";
import {
  isExecutableRunFile,
  isRunFile,
  returnCodeText,
  runResultText,
  scriptInterpreter,
  scriptPath,
  type RemoteCodeRunner,
} from "@skillport/core/internal";
import * as z from "zod";
import { textOf, type ServedFile, type ServedSkill, type Snapshot } from "./snapshot.js";

/** Reads a served file's bytes, verified against its snapshot (the server's one reader, decision 0381). */
export type ReadServedFile = (skill: ServedSkill, file: ServedFile) => Promise<Uint8Array>;

/** The catalog resource of the tool fallback: one line per served skill, the server's name on each. */
export const CATALOG_URI = "skillport://catalog";
export const SEARCH_TOOL_NAME = "search_skills";
export const SCRIPT_TOOL_NAME = "run_skill_script";
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

async function fileText(skill: ServedSkill, path: string, read: ReadServedFile): Promise<CallToolResult> {
  const file = [...skill.files.values()].find((f) => f.path === path);
  if (file === undefined) {
    const paths = [...skill.files.values()].map((f) => f.path);
    return error(
      `Error: ${skill.id} has no file ${JSON.stringify(path)}; its files: ${paths.slice(0, 50).join(", ")}${paths.length > 50 ? ", …" : ""}`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await read(skill, file);
  } catch (e) {
    return error(`Error: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = file.isText ? textOf(bytes) : undefined;
  if (text === undefined) {
    return {
      content: [
        {
          type: "resource",
          resource: { uri: file.uri, mimeType: file.mimeType, blob: Buffer.from(bytes).toString("base64") },
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
  read: ReadServedFile,
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
      return fileText(skill, path, read);
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

/**
 * `run_skill_script(skillId, script, args?, timeout?)` when the server has a runner (`skillport mcp --queue`, decision
 * 0440): the served skill's script, with its scripts and assets, becomes a job on the pool; nothing runs in the server.
 * Each MCP session (a stdio server: its one client) works in a folder of its own, kept between calls where the runners
 * keep sessions. The result is the code-execution tools' (`<returncode>…`).
 */
export function registerScriptTool(
  mcp: McpServer,
  current: () => Snapshot,
  read: ReadServedFile,
  runner: RemoteCodeRunner,
  serverName: string,
): void {
  mcp.registerTool(
    SCRIPT_TOOL_NAME,
    {
      description: `Run a script of a skill served by "${serverName}" (Python, JavaScript or shell) on its runner pool, in a sandbox, and return its return code, standard output and standard error. Load the skill first to learn its scripts.`,
      inputSchema: z.object({
        skillId: z.string().describe("The skill's id, as the catalog lists it."),
        script: z
          .string()
          .describe('The script\'s path in the skill, e.g. "scripts/report.py" (a bare name means scripts/<name>).'),
        args: z.array(z.string()).optional().describe("Arguments, each passed as is (no shell)."),
        timeout: z.number().int().positive().max(600).optional().describe("Seconds the script may run (default 300)."),
      }),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    async ({ skillId, script, args, timeout }, ctx) => {
      const skill = current().byId.get(skillId.trim());
      if (skill === undefined)
        return error(
          `Error: no skill ${JSON.stringify(skillId)} is served here; read ${CATALOG_URI} or call ${SEARCH_TOOL_NAME}`,
        );
      let rel: string;
      try {
        rel = normalizeResourcePath(scriptPath(script));
      } catch (e) {
        return error(
          `Error: script path ${JSON.stringify(script)} is not allowed: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      const interpreter = scriptInterpreter(rel);
      if (interpreter === undefined) return error(`Error: ${JSON.stringify(rel)} is not a .py, .js or .sh script`);
      const runFiles = [...skill.files.values()].filter((f) => isRunFile(f.path));
      if (!runFiles.some((f) => f.path === rel))
        return error(`Error: ${skill.id} has no script ${JSON.stringify(rel)}`);
      let files;
      try {
        files = await Promise.all(
          runFiles.map(async (f) => ({
            path: f.path,
            bytes: await read(skill, f),
            executable: isExecutableRunFile(f.path),
          })),
        );
      } catch (e) {
        return error(returnCodeText(-1, "", `Error: ${e instanceof Error ? e.message : String(e)}`));
      }
      const seconds = timeout ?? 300;
      try {
        const result = await runner.run({
          sessionId: ctx.sessionId ?? "stdio",
          run: { kind: "script", interpreter, script: rel, args: args ?? [], files },
          timeoutSeconds: seconds,
          signal: ctx.mcpReq.signal,
        });
        if (result.failure !== undefined)
          return error(returnCodeText(-1, "", `Error: the script could not be run: ${result.failure}`));
        const { text, isError } = runResultText(result, seconds);
        return { content: [{ type: "text", text }], isError };
      } catch (e) {
        return error(
          returnCodeText(-1, "", `Error: the script could not be run: ${e instanceof Error ? e.message : String(e)}`),
        );
      }
    },
  );
}
