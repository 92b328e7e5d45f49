import type { FrontmatterValue } from "../types.js";
import type { CatalogCounts, CatalogEntry, Frame, Renderer } from "./types.js";
import { escapeXml, escapeXmlText, omittedNotice } from "./text.js";

/** The load tool AgentScope's SkillBox registers; the header tells the model how to call it. */
export const LOAD_SKILL_TOOL_NAME = "load_skill_through_path";

export const DEFAULT_AGENTSCOPE_INSTRUCTION = [
  "## Available Skills",
  "",
  "Skills are folders of instructions, scripts and resources for specific tasks.",
  "When a task matches a skill's description, load that skill before acting:",
  `call \`${LOAD_SKILL_TOOL_NAME}\` with its \`skillId\` (the <skill-id> below) and \`path\` "SKILL.md".`,
  "The skill's instructions name its other files; load one by calling the tool again with its relative path,",
  `for example: ${LOAD_SKILL_TOOL_NAME}(skillId="pdf-tools", path="references/forms.md").`,
  "Load only the skills the task needs, each once.",
].join("\n");

/** The header for the compact layout: the same guidance, naming the id before the colon. */
export const DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION = [
  "## Available Skills",
  "",
  "Skills are folders of instructions, scripts and resources for specific tasks.",
  "When a task matches a skill's description, load that skill before acting:",
  `call \`${LOAD_SKILL_TOOL_NAME}\` with its \`skillId\` (the id before the colon below) and \`path\` "SKILL.md".`,
  "The skill's instructions name its other files; load one by calling the tool again with its relative path,",
  `for example: ${LOAD_SKILL_TOOL_NAME}(skillId="pdf-tools", path="references/forms.md").`,
  "Load only the skills the task needs, each once.",
].join("\n");

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** One metadata value as nested XML at `depth` (two spaces per level); null values render nothing. */
function element(key: string, value: FrontmatterValue, depth: number): string[] {
  if (value === null) return [];
  const pad = "  ".repeat(depth);
  const valid = XML_NAME.test(key);
  const open = valid ? `<${key}>` : `<entry key="${escapeXml(key)}">`;
  const close = valid ? `</${key}>` : "</entry>";
  if (Array.isArray(value)) {
    const items = value.flatMap((item) => element("item", item, depth + 1));
    return items.length === 0 ? [`${pad}${open}${close}`] : [`${pad}${open}`, ...items, `${pad}${close}`];
  }
  if (typeof value === "object") {
    const children = Object.entries(value).flatMap(([k, v]) => element(k, v, depth + 1));
    return children.length === 0 ? [`${pad}${open}${close}`] : [`${pad}${open}`, ...children, `${pad}${close}`];
  }
  return [`${pad}${open}${escapeXml(String(value))}${close}`];
}

/**
 * AgentScope's SkillBox prompt: a header (the default, or `instruction`), then `<available_skills>` with one
 * `<skill>` per entry: name, description, every other metadata key in insertion order (unless
 * `exposeAllMetadata` is false), and `<skill-id>` last. No skills: empty.
 */
export function agentscopeRenderer(options: {
  exposeAllMetadata?: boolean;
  instruction?: string;
  layout?: string;
}): Renderer {
  const compact = options.layout === "compact";
  const custom = options.instruction?.trim() ? options.instruction.trimEnd() : undefined;
  const header = custom ?? (compact ? DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION : DEFAULT_AGENTSCOPE_INSTRUCTION);
  const exposeAll = options.exposeAllMetadata ?? true;
  return {
    entry(entry: CatalogEntry): string {
      if (compact) {
        const label =
          entry.label ?? (entry.name === entry.id || entry.name === "" ? entry.id : `${entry.id} (${entry.name})`);
        return `- ${escapeXmlText(label)}: ${escapeXmlText(entry.description.replace(/\s+/g, " ").trim())}`;
      }
      const lines = ["<skill>", ...element("name", entry.name, 1), ...element("description", entry.description, 1)];
      if (exposeAll) {
        for (const [key, value] of Object.entries(entry.metadata)) {
          if (key !== "name" && key !== "description" && key !== "skill-id") lines.push(...element(key, value, 1));
        }
      }
      lines.push(...element("skill-id", entry.id, 1), "</skill>");
      return lines.join("\n");
    },
    frame(counts: CatalogCounts): Frame {
      const open = counts.truncated
        ? `<available_skills truncated="true" shown="${counts.shown}" total="${counts.total}">`
        : "<available_skills>";
      const prefix = `${header}\n\n${open}\n`;
      const close = counts.truncated ? `</available_skills>\n${omittedNotice(counts)}` : "</available_skills>";
      return { prefix, separator: "\n", suffix: `\n${close}`, empty: counts.total === 0 ? "" : `${prefix}${close}` };
    },
  };
}
