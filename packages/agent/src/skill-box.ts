import type { RegistrationFailure, Skill, SkillRegistry, SkillSource } from "@skillport/core";
import { DEFAULT_MIN_CONFIDENCE } from "@skillport/core/internal";
import { Activations } from "./activations.js";
import { AgentError } from "./errors.js";
import type { BoxSkill, RegisterResult, SkillVersion } from "./box-skill.js";
import { renderSkillCatalog, type CatalogBudget } from "./box-prompt.js";
import { CodeExecutionBuilder, type CodeExecution } from "./code-exec/builder.js";
import { createLoadTool, LOAD_SKILL_TOOL, type LoadHost } from "./load-tool.js";
import { SkillRegistration } from "./registration.js";
import { createSearchTool, SEARCH_SKILLS_TOOL } from "./search-tool.js";
import { resolveSkill } from "./skill-resolve.js";
import { DEFAULT_SESSION } from "./skill-id.js";
import { SkillStore } from "./skill-store.js";
import { capResult, errorResult, messageOf, type Tool, type ToolContext, type ToolResult } from "./tool.js";
import { groupName, ToolGroups } from "./tool-groups.js";

export interface SkillBoxOptions {
  /** Sources to serve skills from (fs, memory, deployed workspace, SQL…); loaded into a registry of the box's own. */
  sources?: readonly SkillSource[];
  /**
   * A registry to serve skills from (its winning skills). Used as is; the box listens to its changes, and skills
   * registered in code are added to it as in-memory sources.
   */
  registry?: SkillRegistry;
  /** Tools the model always sees (besides the skill tools). */
  toolkit?: readonly Tool[];
  /** The prompt header; blank or undefined = the built-in one. */
  instruction?: string;
  /** Every metadata key in the prompt (default true), or only name, description and skill id. */
  exposeAllSkillMetadata?: boolean;
  /**
   * `agentscope` (default): AgentScope's `<skill>` elements. `compact`: one `- <skill-id>: <description>` line per
   * skill, no metadata — about the token cost of a bare "name: description" list (bench/agent.mjs).
   */
  catalogLayout?: "agentscope" | "compact";
  /** `skillId` is a JSON Schema enum while at most this many skills are visible. Default 64; 0 never. */
  enumLimit?: number;
  /** Budget for the skills section of the prompt; past it the box lists the most relevant skills and offers search. */
  catalog?: CatalogBudget;
  /** `auto` (default): `search_skills` appears when the prompt leaves skills out; `always`; `never`. */
  searchTool?: "auto" | "always" | "never";
  /** Longest text a load returns, in characters (longer content is cut, and says so). Default 200,000. */
  maxContentChars?: number;
  /** Most paths listed after a missing resource. Default 1,000. */
  maxListedPaths?: number;
  /**
   * Longest result any tool call returns to the model, in characters (text and JSON parts together); past it the
   * result is cut and says so. Default 256,000.
   */
  maxToolResultChars?: number;
  /** Watch the `sources` for changes (hot reload). Default false. */
  watch?: boolean;
}

export const DEFAULT_ENUM_LIMIT = 64;
export const DEFAULT_MAX_CONTENT_CHARS = 200_000;
export const DEFAULT_MAX_LISTED_PATHS = 1_000;
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 256_000;

/** What a session needs of its box; reached through `links`, so neither class shows it in its public face. */
interface BoxLink {
  /** The skill's generation, or undefined when the box does not serve it. */
  generation(skillId: string): number | undefined;
  tools(activations: Activations): Tool[];
  call(
    activations: Activations,
    sessionId: string,
    name: string,
    args: unknown,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult>;
  prompt(): string;
}

const links = new WeakMap<SkillBox, BoxLink>();

/**
 * AgentScope's SkillBox, framework-neutral: skills from any provider or registered in code, the load tool, tool groups
 * that switch on when their skill is loaded, per-session activation, content-digest versions, the system prompt, and
 * sandboxed code execution. Bodies and files are read only when the model loads them.
 *
 * The parts, one job each: the skill store (skill-store.ts: one registry, code skills as its in-memory sources, the
 * version log), tool groups (tool-groups.ts), a session's activations (activations.ts), the prompt (box-prompt.ts).
 */
export class SkillBox {
  readonly #store: SkillStore;
  readonly #groups = new ToolGroups();
  readonly #sessions = new Map<string, SkillBoxSession>();
  readonly #loadTool: Tool;
  readonly #searchTool: Tool;
  readonly #enumLimit: number;
  readonly #budget: CatalogBudget;
  readonly #searchMode: "auto" | "always" | "never";
  #codeExec: CodeExecution | undefined;
  #instruction: string | undefined;
  #exposeAll: boolean;
  #layout: "agentscope" | "compact";
  #prompt: { text: string; truncated: boolean } | undefined;
  readonly maxContentChars: number;
  readonly maxListedPaths: number;
  readonly maxToolResultChars: number;

  constructor(options: SkillBoxOptions = {}) {
    this.#instruction = options.instruction;
    this.#exposeAll = options.exposeAllSkillMetadata ?? true;
    this.#layout = options.catalogLayout ?? "agentscope";
    this.#enumLimit = nonNegative("enumLimit", options.enumLimit ?? DEFAULT_ENUM_LIMIT);
    this.#budget = { ...options.catalog };
    this.#searchMode = options.searchTool ?? "auto";
    this.maxContentChars = positive("maxContentChars", options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS);
    this.maxListedPaths = positive("maxListedPaths", options.maxListedPaths ?? DEFAULT_MAX_LISTED_PATHS);
    this.maxToolResultChars = positive(
      "maxToolResultChars",
      options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    );
    this.#store = new SkillStore(
      { sources: options.sources, registry: options.registry, watch: options.watch },
      () => (this.#prompt = undefined),
    );
    this.#loadTool = createLoadTool(this.#loadHost());
    this.#searchTool = createSearchTool((query, limit, minConfidence) =>
      this.searchSkills(query, limit, { minConfidence }),
    );
    links.set(this, {
      generation: (id) => (this.#store.has(id) ? this.#store.generation(id) : undefined),
      tools: (activations) => this.#visibleTools(activations),
      call: (activations, sessionId, name, args, signal) => this.#callTool(activations, sessionId, name, args, signal),
      prompt: () => this.getSkillPrompt(),
    });
    for (const tool of options.toolkit ?? []) this.addTool(tool);
  }

  /** Resolves when the `sources` given to the constructor are loaded (rejects when one cannot be read). */
  ready(): Promise<void> {
    return this.#store.ready;
  }

  /** A box whose sources are loaded. */
  static async create(options: SkillBoxOptions = {}): Promise<SkillBox> {
    const box = new SkillBox(options);
    await box.ready();
    return box;
  }

  /** The registry that holds every skill of the box (its own, or the one it was given); code skills included. */
  get registry(): SkillRegistry {
    return this.#store.registry;
  }

  /**
   * Skills the box's sources (or registry) hold but leave out of the prompt, the load tool and search — no description,
   * broken YAML, an unsafe name… — each with its source, id and reason. Check it after `create()`/`ready()`: a skill
   * is never left out silently (docs/decisions/0282).
   */
  get failures(): readonly RegistrationFailure[] {
    return this.#store.registry.failures;
  }

  // ── skills ────────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers a skill built in code, into an in-memory source of the box's registry named after `skill.source`. Its id
   * is `<name>_<source>`. Same content digest as the current version: nothing happens. A new digest: a new version (the
   * old one is kept until `clearSkillOldVersions()`), and the skill is deactivated in every session. A name another
   * source already serves is refused (decision 0320).
   */
  registerSkill(skill: Skill): Promise<RegisterResult> {
    return this.#store.register(skill);
  }

  /** `registration().skill(s).tool(t).apply()`: registers the skill and puts tools in its inactive group. */
  registration(): SkillRegistration {
    return new SkillRegistration(this);
  }

  /** The current version of a skill, or undefined. */
  getSkill(skillId: string): BoxSkill | undefined {
    return this.#store.get(skillId);
  }

  /** Every version kept for a registered skill, oldest first. */
  getSkillVersions(skillId: string): readonly SkillVersion[] {
    return this.#store.versions(skillId);
  }

  /** Every skill the box serves, hidden ones included: registered skills first (in order), then registry skills. */
  listSkills(): readonly BoxSkill[] {
    return this.#store.list();
  }

  /** Removes a skill (every version of a registered one; a registry skill is hidden from this box). */
  removeSkill(skillId: string): boolean {
    if (!this.#store.remove(skillId)) return false;
    this.#groups.dropSkill(skillId);
    return true;
  }

  /** Drops every version of registered skills but the current one; returns how many were dropped. */
  clearSkillOldVersions(): number {
    return this.#store.clearOldVersions();
  }

  /**
   * Skills matching a query (the registry's BM25F search with calibrated confidence), best first; hidden skills never.
   * Every match by default; `minConfidence` leaves out weaker ones (abstention on request, decision 0265).
   */
  searchSkills(
    query: string,
    limit = 5,
    options: { minConfidence?: number } = {},
  ): Promise<Array<{ skill: BoxSkill; confidence: number }>> {
    return this.#store.search(query, limit, options.minConfidence ?? DEFAULT_MIN_CONFIDENCE);
  }

  // ── tools ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Adds a tool the model always sees. A different tool under a name already used is refused. */
  addTool(tool: Tool): void {
    this.#groups.put(tool, undefined, this.#reservedNames());
  }

  /** Puts a tool in the group `<skillId>_skill_tools` of each given skill (a tool may be in several groups). */
  bindTool(tool: Tool, skillIds: readonly string[]): void {
    for (const id of skillIds)
      if (!this.#store.has(id))
        throw new AgentError("AGENT_CONFIG", `cannot bind tool ${tool.name}: no skill ${JSON.stringify(id)}`);
    this.#groups.put(tool, skillIds, this.#reservedNames());
  }

  /** Puts a tool in the group of every skill, present and future: hidden until some skill is active in the session. */
  bindToolToEverySkill(tool: Tool): void {
    this.#groups.putInEveryGroup(tool, this.#reservedNames());
  }

  /** Every tool the box may ever show (hidden group tools included), e.g. for APIs that take `activeTools`. */
  allTools(): Tool[] {
    return [
      this.#loadTool,
      ...(this.#searchMode === "never" ? [] : [this.#searchTool]),
      ...(this.#codeExec?.tools() ?? []),
      ...this.#groups.all(),
    ];
  }

  /** Removes a tool from the box (and every group). */
  removeTool(name: string): boolean {
    return this.#groups.remove(name);
  }

  /** The group name of a skill's tools, as upstream names it. */
  static groupName(skillId: string): string {
    return groupName(skillId);
  }

  /** The groups a tool belongs to (empty for an always-visible tool). */
  toolGroups(name: string): string[] {
    return this.#groups.groups(name);
  }

  // ── sessions (the box's own methods act on the default session) ─────────────────────────────────────────────

  /** A session: its own activations, so two sessions (users, agents) never see each other's. */
  session(id: string = DEFAULT_SESSION): SkillBoxSession {
    if (typeof id !== "string" || id === "")
      throw new AgentError("AGENT_CONFIG", "a session id must be a non-empty string");
    let session = this.#sessions.get(id);
    if (!session) this.#sessions.set(id, (session = new SkillBoxSession(this, id)));
    return session;
  }

  /** Forgets a session's activations; its own work dir and sandbox (code execution) are removed in the background. */
  closeSession(id: string): void {
    this.#sessions.get(id)?.deactivateAll(); // a view kept by a caller holds nothing any more
    this.#sessions.delete(id);
    this.#codeExec?.closeSession(id).catch(() => undefined);
  }

  tools(): Tool[] {
    return this.session().tools();
  }

  callTool(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    return this.session().callTool(name, args, options);
  }

  isActive(skillId: string): boolean {
    return this.session().isActive(skillId);
  }

  deactivateAll(): void {
    this.session().deactivateAll();
  }

  // ── prompt ────────────────────────────────────────────────────────────────────────────────────────────────────

  setExposeAllSkillMetadata(expose: boolean): void {
    this.#exposeAll = expose;
    this.#prompt = undefined;
  }

  /** `agentscope` (AgentScope's elements) or `compact` (one line per skill); see SkillBoxOptions.catalogLayout. */
  setCatalogLayout(layout: "agentscope" | "compact"): void {
    this.#layout = layout;
    this.#prompt = undefined;
  }

  /** The prompt header; null, undefined or blank = the built-in one. */
  setInstruction(instruction: string | null | undefined): void {
    this.#instruction = instruction ?? undefined;
    this.#prompt = undefined;
  }

  /**
   * The skills section of the system prompt, in AgentScope's layout: header, `<available_skills>` (core's agentscope
   * renderer), then the code-execution section when it is enabled. No visible skills: empty.
   */
  getSkillPrompt(): string {
    return this.#renderPrompt().text;
  }

  /** `codeExecution().workDir(…).withShell().withRead().withWrite().enable()`. */
  codeExecution(): CodeExecutionBuilder {
    return new CodeExecutionBuilder((exec) => this.#enableCodeExecution(exec));
  }

  /** The enabled code execution (its work and upload directories), if any. */
  get codeExecutionConfig(): CodeExecution | undefined {
    return this.#codeExec;
  }

  /** Stops listening to the registry (a registry of the box's own stops watching), stops the sandbox, removes a temporary work directory. */
  async close(): Promise<void> {
    this.#store.close();
    await this.#codeExec?.close();
  }

  // ── private ───────────────────────────────────────────────────────────────────────────────────────────────────

  #reservedNames(): string[] {
    return [LOAD_SKILL_TOOL, SEARCH_SKILLS_TOOL, ...(this.#codeExec?.tools().map((t) => t.name) ?? [])];
  }

  #visibleTools(activations: Activations): Tool[] {
    const out: Tool[] = [this.#loadTool];
    if (this.#searchVisible()) out.push(this.#searchTool);
    if (this.#codeExec) out.push(...this.#codeExec.tools());
    out.push(...this.#groups.visible((id) => activations.isActive(id), activations.any()));
    return out;
  }

  /** Runs a tool for a session; unknown and hidden tools are error results naming them. Never throws. */
  async #callTool(
    activations: Activations,
    sessionId: string,
    name: string,
    args: unknown,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    const visible = this.#visibleTools(activations);
    const tool = visible.find((t) => t.name === name);
    if (!tool) {
      const hidden = this.#groups.unavailable(name, LOAD_SKILL_TOOL);
      return errorResult(
        hidden ??
          `Error: unknown tool ${JSON.stringify(name)}. Available tools: ${visible.map((t) => t.name).join(", ")}.`,
      );
    }
    const context: ToolContext = signal ? { sessionId, signal } : { sessionId };
    try {
      return capResult(await tool.execute(args, context), this.maxToolResultChars);
    } catch (error) {
      return errorResult(`Error: ${name} failed: ${messageOf(error)}`);
    }
  }

  #enableCodeExecution(exec: CodeExecution): void {
    for (const tool of exec.tools()) {
      if (this.#groups.has(tool.name))
        throw new AgentError("TOOL_CONFLICT", `tool name ${JSON.stringify(tool.name)} is already used by another tool`);
    }
    const previous = this.#codeExec;
    if (previous?.scriptTool) this.#groups.remove(previous.scriptTool.name);
    this.#codeExec = exec;
    exec.host = {
      activeSkill: (sessionId, given) => {
        const found = this.#resolve(given);
        return "id" in found && this.#sessions.get(sessionId)?.isActive(found.id) ? found : undefined;
      },
    };
    if (exec.scriptTool) this.bindToolToEverySkill(exec.scriptTool);
    this.#prompt = undefined;
    void previous?.close();
  }

  #renderPrompt(): { text: string; truncated: boolean } {
    if (this.#prompt) return this.#prompt;
    const catalog = renderSkillCatalog(this.#store.visible(), {
      instruction: this.#instruction,
      exposeAllMetadata: this.#exposeAll,
      layout: this.#layout,
      budget: this.#budget,
      searchTool: this.#searchMode === "never" ? false : SEARCH_SKILLS_TOOL,
    });
    if (catalog.total === 0) return (this.#prompt = { text: "", truncated: false });
    const section = this.#codeExec?.promptSection();
    this.#prompt = {
      text: section ? `${catalog.text}\n\n${section}` : catalog.text,
      truncated: catalog.shown < catalog.total,
    };
    return this.#prompt;
  }

  #searchVisible(): boolean {
    if (this.#searchMode === "never") return false;
    if (this.#searchMode === "always") return this.#store.visible().length > 0;
    return this.#renderPrompt().truncated;
  }

  #resolve(given: string): BoxSkill | { suggestions: string[] } {
    return resolveSkill(given, this.#store.visible(), (id) => this.#store.get(id));
  }

  #loadHost(): LoadHost {
    return {
      box: this,
      resolve: (given) => this.#resolve(given),
      enumIds: () => {
        const visible = this.#store.visible();
        return visible.length > 0 && visible.length <= this.#enumLimit ? visible.map((s) => s.id) : undefined;
      },
      activate: async (sessionId, skill) => {
        const session = this.session(sessionId);
        const already = session.isActive(skill.id);
        session.activate(skill.id);
        // The folder line is said once, when the skill becomes active.
        const note = this.#codeExec ? await this.#codeExec.prepareSkill(skill) : undefined;
        return already ? undefined : note;
      },
    };
  }
}

/** One session of a box: its own activations; tools, calls and the prompt as that session sees them. */
export class SkillBoxSession {
  readonly box: SkillBox;
  readonly id: string;
  readonly #link: BoxLink;
  readonly #activations: Activations;

  constructor(box: SkillBox, id: string) {
    const link = links.get(box);
    if (!link) throw new AgentError("AGENT_CONFIG", "a SkillBoxSession belongs to a SkillBox: use box.session(id)");
    this.box = box;
    this.id = id;
    this.#link = link;
    this.#activations = new Activations((skillId) => link.generation(skillId));
  }

  /** The tools the model may see now: skill tools, code execution, always-on tools and the groups of active skills. */
  tools(): Tool[] {
    return this.#link.tools(this.#activations);
  }

  toolNames(): string[] {
    return this.tools().map((t) => t.name);
  }

  /** Runs a tool by name. A hidden or unknown tool, a bad argument or a failing tool is an error result, never a throw. */
  callTool(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    return this.#link.call(this.#activations, this.id, name, args, options.signal);
  }

  isActive(skillId: string): boolean {
    return this.#activations.isActive(skillId);
  }

  /** Active skill ids. */
  activeSkills(): string[] {
    return this.#activations.list();
  }

  /** Activates a skill without the model loading it (e.g. the user invoked it). */
  activate(skillId: string): void {
    if (!this.#activations.activate(skillId))
      throw new AgentError("AGENT_CONFIG", `no skill ${JSON.stringify(skillId)}`);
  }

  deactivate(skillId: string): boolean {
    return this.#activations.deactivate(skillId);
  }

  /** Deactivates every skill of this session: their tool groups are hidden again. */
  deactivateAll(): void {
    this.#activations.clear();
  }

  getSkillPrompt(): string {
    return this.#link.prompt();
  }
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new AgentError("AGENT_CONFIG", `${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new AgentError("AGENT_CONFIG", `${name} must be a non-negative integer, got ${value}`);
  return value;
}
