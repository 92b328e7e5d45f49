import { z } from "zod";
import {
  InvalidPathError,
  LOAD_SKILL_TOOL_NAME,
  normalizeResourcePath,
  ResourceNotFoundError,
  SkillNotFoundError,
} from "@skillport/core";
import { secretFileContent, secretFilePattern } from "@skillport/core/internal";
import { secretReason } from "./secret-paths.js";
import type { BoxSkill } from "./box-skill.js";
import { defineTool, errorResult, messageOf, textResult, type JsonSchema, type Tool } from "./tool.js";

export const LOAD_SKILL_TOOL = LOAD_SKILL_TOOL_NAME;

/** What the load tool needs from its box. */
export interface LoadHost {
  box: { readonly maxContentChars: number; readonly maxListedPaths: number };
  /** The skill an argument names, or "did you mean" candidates. */
  resolve(given: string): BoxSkill | { suggestions: string[] };
  /** Ids for the `skillId` enum, or undefined when the catalog is too large for one. */
  enumIds(): string[] | undefined;
  /** Activates the skill for the session; returns a line to add to the result (e.g. where its scripts are). */
  activate(sessionId: string, skill: BoxSkill): Promise<string | undefined>;
}

const input = z.object({
  skillId: z.string().describe("The <skill-id> of the skill, exactly as listed in the system prompt."),
  path: z
    .string()
    .optional()
    .describe(
      'Path relative to the skill folder: "SKILL.md" for the instructions, or a file they name, e.g. "references/guide.md".',
    ),
  /** AgentScope's documented name for `path`; accepted, not advertised. */
  resourcePath: z.string().optional(),
});

const DESCRIPTION =
  'Load a skill\'s instructions (path "SKILL.md") or one of its files (e.g. "references/guide.md"). ' +
  "Loading a skill activates it and makes its tools available.";

/** `load_skill_through_path(skillId, path)`: the one entry point to skill content; success activates the skill. */
export function createLoadTool(host: LoadHost): Tool {
  return defineTool({
    name: LOAD_SKILL_TOOL,
    description: DESCRIPTION,
    input,
    schema: (base) => modelSchema(base, host.enumIds()),
    handler: async (args, context) => {
      const skillId = args.skillId.trim();
      const path = (args.path ?? args.resourcePath ?? "").trim();
      if (skillId === "")
        return errorResult(`Error: ${LOAD_SKILL_TOOL}: missing required argument 'skillId' (it must not be blank)`);
      if (path === "")
        return errorResult(
          `Error: ${LOAD_SKILL_TOOL}: missing required argument 'path' (it must not be blank; use "SKILL.md" for the instructions)`,
        );
      const found = host.resolve(skillId);
      if (!("id" in found)) return unknownSkill(skillId, found.suggestions);
      const skill = found;
      try {
        normalizeResourcePath(path);
      } catch (error) {
        return errorResult(
          `Error: path ${JSON.stringify(path)} is not allowed: ${error instanceof InvalidPathError ? error.reason : messageOf(error)}. Paths are relative to the skill folder, e.g. "SKILL.md" or "references/guide.md".`,
        );
      }
      // Credential files and VCS folders are never served, whatever the source holds (decision 0255).
      const secret = path === "SKILL.md" ? undefined : await secretReason(skill.reader, path);
      if (secret !== undefined) return notServed(skill, path, secret);
      if (path === "SKILL.md") {
        let body: string;
        try {
          body = await skill.reader.body();
        } catch (error) {
          return readFailure(skill, path, error, host);
        }
        const note = await host.activate(context.sessionId, skill);
        const lines = [
          `Successfully loaded skill ${skill.id}.`,
          `Name: ${skill.name}`,
          `Description: ${skill.description}`,
          `Source: ${skill.source}`,
          ...(note ? [note] : []),
          "",
          "===== SKILL.md =====",
          cap(body, host.box.maxContentChars),
          "===== end of SKILL.md =====",
        ];
        return textResult(lines.join("\n"));
      }
      let bytes: Uint8Array;
      try {
        bytes = await skill.reader.readFile(path);
      } catch (error) {
        return readFailure(skill, path, error, host);
      }
      const shape = secretFileContent(path, bytes);
      if (shape !== undefined) return notServed(skill, path, `it holds a ${shape}`);
      const note = await host.activate(context.sessionId, skill);
      return textResult(
        [
          `Successfully loaded resource ${path} of skill ${skill.id}.`,
          ...(note ? [note] : []),
          "",
          cap(decode(bytes), host.box.maxContentChars),
        ].join("\n"),
      );
    },
  });
}

/** The schema a model sees: `skillId` and `path` required, the id an enum while the catalog is small. */
function modelSchema(base: JsonSchema, ids: string[] | undefined): JsonSchema {
  const properties = { ...(base.properties as Record<string, JsonSchema>) };
  delete properties.resourcePath;
  if (ids) properties.skillId = { ...properties.skillId, enum: ids };
  return { ...base, properties, required: ["skillId", "path"] };
}

function unknownSkill(given: string, suggestions: readonly string[]) {
  const hint =
    suggestions.length === 0
      ? " Use a <skill-id> from the system prompt."
      : ` Did you mean ${suggestions.map((s) => JSON.stringify(s)).join(" or ")}?`;
  return errorResult(`Error: skill ${JSON.stringify(given)} not found.${hint}`);
}

function notServed(skill: BoxSkill, path: string, why: string) {
  return errorResult(
    `Error: ${JSON.stringify(path)} of skill ${skill.id} is not served: ${why}, and credential files are never given to the model.`,
  );
}

/** A failed read: a missing file lists every path of the skill (SKILL.md first); the skill stays inactive. */
async function readFailure(skill: BoxSkill, path: string, error: unknown, host: LoadHost) {
  if (error instanceof InvalidPathError)
    return errorResult(`Error: path ${JSON.stringify(path)} of skill ${skill.id} is not allowed: ${error.reason}.`);
  if (error instanceof SkillNotFoundError) return unknownSkill(skill.id, []);
  if (!(error instanceof ResourceNotFoundError)) {
    return errorResult(`Error: skill ${skill.id} cannot be read right now (${messageOf(error)}); try again later.`);
  }
  let listing: string;
  try {
    const files = (await skill.reader.listFiles()).filter(
      (p) => p !== "SKILL.md" && secretFilePattern(p) === undefined,
    );
    const all = ["SKILL.md", ...files];
    const shown = all.slice(0, host.box.maxListedPaths).map((p, i) => `${i + 1}. ${p}`);
    if (all.length > shown.length) shown.push(`(${all.length - shown.length} more not listed)`);
    listing = `Available paths:\n${shown.join("\n")}`;
  } catch (listError) {
    listing = `Available paths: SKILL.md (the other files cannot be listed: ${messageOf(listError)})`;
  }
  return errorResult(`Error: resource ${JSON.stringify(path)} not found in skill ${skill.id}. ${listing}`);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 text as it is; anything else (or text holding NUL) as `base64:<data>`. */
function decode(bytes: Uint8Array): string {
  try {
    const text = utf8.decode(bytes);
    if (!text.includes("\u0000")) return text;
  } catch {
    // not UTF-8: binary
  }
  return `base64:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[truncated: showing ${max} of ${text.length} characters]`;
}
