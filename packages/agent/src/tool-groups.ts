import { AgentError } from "./errors.js";
import { TOOL_NAME_PATTERN, type Tool } from "./tool.js";

interface ToolEntry {
  readonly tool: Tool;
  /** Skill ids whose group holds the tool; undefined = always visible. */
  readonly skills: Set<string> | undefined;
  /** In the group of every skill (visible once any skill is active in the session). */
  everySkill: boolean;
}

/** The group name of a skill's tools, as upstream names it. */
export function groupName(skillId: string): string {
  return `${skillId}_skill_tools`;
}

/**
 * The box's own tools: always-visible ones and tool groups (`<skillId>_skill_tools`). A tool may be in several groups,
 * or in every skill's group; it is visible when any of its groups is active. Which groups are active is the session's
 * business: `visible` is asked with the session's answer.
 */
export class ToolGroups {
  readonly #tools = new Map<string, ToolEntry>();

  /** Adds a tool (always visible when `skillIds` is undefined); `reserved` names are the box's own tools. */
  put(tool: Tool, skillIds: readonly string[] | undefined, reserved: readonly string[]): void {
    this.#put(tool, skillIds, reserved);
  }

  putInEveryGroup(tool: Tool, reserved: readonly string[]): void {
    this.#put(tool, [], reserved).everySkill = true;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** Takes a removed skill out of every group; a tool left in no group goes. */
  dropSkill(skillId: string): void {
    for (const [name, entry] of this.#tools) {
      if (!entry.skills?.delete(skillId)) continue;
      if (entry.skills.size === 0 && !entry.everySkill) this.#tools.delete(name);
    }
  }

  groups(name: string): string[] {
    const entry = this.#tools.get(name);
    return entry?.skills ? [...entry.skills].map(groupName) : [];
  }

  all(): Tool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** The tools a session sees, given which of its skills are active. */
  visible(isActive: (skillId: string) => boolean, anyActive: boolean): Tool[] {
    const out: Tool[] = [];
    for (const entry of this.#tools.values()) {
      if (!entry.skills || (entry.everySkill && anyActive) || [...entry.skills].some(isActive)) out.push(entry.tool);
    }
    return out;
  }

  /** Why a group tool cannot be called yet (which skill to load), or undefined for a tool in no group. */
  unavailable(name: string, loadTool: string): string | undefined {
    const entry = this.#tools.get(name);
    if (!entry?.skills) return undefined;
    const load = entry.everySkill ? "any skill" : [...entry.skills].map((id) => JSON.stringify(id)).join(" or ");
    const belongs = entry.everySkill ? "every skill's tool group" : this.groups(name).join(", ");
    return `Error: tool ${JSON.stringify(name)} is not available yet: load ${load} with ${loadTool} first (it belongs to ${belongs}).`;
  }

  #put(tool: Tool, skillIds: readonly string[] | undefined, reserved: readonly string[]): ToolEntry {
    if (!TOOL_NAME_PATTERN.test(tool.name))
      throw new AgentError("AGENT_CONFIG", `tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME_PATTERN}`);
    if (reserved.includes(tool.name))
      throw new AgentError("TOOL_CONFLICT", `tool name ${JSON.stringify(tool.name)} is reserved by the skill box`);
    const existing = this.#tools.get(tool.name);
    if (existing && existing.tool !== tool)
      throw new AgentError("TOOL_CONFLICT", `another tool named ${JSON.stringify(tool.name)} is already registered`);
    if (existing) {
      if (skillIds === undefined || existing.skills === undefined) {
        if ((skillIds === undefined) !== (existing.skills === undefined)) {
          throw new AgentError(
            "TOOL_CONFLICT",
            `tool ${JSON.stringify(tool.name)} cannot be both always visible and in a skill group`,
          );
        }
        return existing;
      }
      for (const id of skillIds) existing.skills.add(id);
      return existing;
    }
    const entry: ToolEntry = {
      tool,
      skills: skillIds === undefined ? undefined : new Set(skillIds),
      everySkill: false,
    };
    this.#tools.set(tool.name, entry);
    return entry;
  }
}
