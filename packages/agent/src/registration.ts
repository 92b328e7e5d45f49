import type { Skill } from "@skillport/core";
import { AgentError } from "./errors.js";
import type { BoxSkill, RegisterResult } from "./box-skill.js";
import type { Tool } from "./tool.js";

/** What a registration uses of its box (a SkillBox). */
interface RegistrationTarget {
  getSkill(skillId: string): BoxSkill | undefined;
  registerSkill(skill: Skill): Promise<RegisterResult>;
  bindTool(tool: Tool, skillIds: readonly string[]): void;
}

/** `registration().skill(s).tool(t).tool(u).apply()`. */
export class SkillRegistration {
  readonly #box: RegistrationTarget;
  #skill: Skill | string | undefined;
  readonly #tools: Tool[] = [];

  constructor(box: RegistrationTarget) {
    this.#box = box;
  }

  /** A Skill to register, or the id of a skill the box already serves. */
  skill(skill: Skill | string): this {
    this.#skill = skill;
    return this;
  }

  tool(tool: Tool): this {
    this.#tools.push(tool);
    return this;
  }

  /** Registers the skill (a no-op for the same content) and puts each tool in its inactive group. */
  async apply(): Promise<RegisterResult> {
    const skill = this.#skill;
    if (skill === undefined)
      throw new AgentError("AGENT_CONFIG", "registration needs a skill: registration().skill(s)");
    let result: RegisterResult;
    if (typeof skill === "string") {
      const known = this.#box.getSkill(skill);
      if (!known) throw new AgentError("AGENT_CONFIG", `no skill ${JSON.stringify(skill)} to bind tools to`);
      result = { skillId: known.id, status: "unchanged", version: known.version };
    } else result = await this.#box.registerSkill(skill);
    for (const tool of this.#tools) this.#box.bindTool(tool, [result.skillId]);
    return result;
  }
}
