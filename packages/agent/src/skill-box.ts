import {
  renderCatalog,
  ResourceNotFoundError,
  skillFields,
  SkillRegistry,
  SkillSearchIndex,
  toSkillProvider,
  type CatalogEntry,
  type Frontmatter,
  type RegistrationFailure,
  type RegistryEntry,
  type SearchHit,
  type Skill,
  type SkillSource,
  type TokenCounter,
} from "@skillport/core";
import { catalogPriority, DEFAULT_MIN_CONFIDENCE, isHiddenFromModel, suggestClosest } from "@skillport/core/internal";
import { AgentError } from "./errors.js";
import type { BoxSkill } from "./box-skill.js";
import { CodeExecutionBuilder, type CodeExecution } from "./code-exec/builder.js";
import { createLoadTool, LOAD_SKILL_TOOL, type LoadHost } from "./load-tool.js";
import { createSearchTool, SEARCH_SKILLS_TOOL } from "./search-tool.js";
import { folderLinkTarget } from "./secret-paths.js";
import { DEFAULT_SESSION, skillIdOf } from "./skill-id.js";
import { capResult, errorResult, messageOf, TOOL_NAME_PATTERN, type Tool, type ToolContext, type ToolResult } from "./tool.js";

// SkillReader and BoxSkill live in box-skill.ts, which the tools import without reaching back here (no cycle).
export type { BoxSkill, SkillReader } from "./box-skill.js";

export interface SkillVersion {
  version: number;
  digest: string;
  skill: Skill;
}

export interface RegisterResult {
  skillId: string;
  /** `added`: first version; `updated`: a new content digest (a new version); `unchanged`: same digest, nothing done. */
  status: "added" | "updated" | "unchanged";
  version: number;
}

export interface CatalogBudget {
  maxChars?: number;
  maxTokens?: number;
  tokenCounter?: TokenCounter;
  /** Box skill ids listed first under a budget. */
  pinned?: readonly string[];
  priorities?: Readonly<Record<string, number>>;
  maxEntryChars?: number;
}

export interface SkillBoxOptions {
  /** Sources to serve skills from (fs, memory, deployed workspace, SQL…); loaded into a registry of the box's own. */
  sources?: readonly SkillSource[];
  /** A registry to serve skills from (its winning skills). Used as is; the box listens to its changes. */
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

interface ToolEntry {
  readonly tool: Tool;
  /** Skill ids whose group holds the tool; undefined = always visible. */
  readonly skills: Set<string> | undefined;
  /** In the group of every skill (visible once any skill is active in the session). */
  everySkill: boolean;
}

interface SessionState {
  /** Active skill ids, with the generation of the skill they were activated at. */
  readonly active: Map<string, number>;
}

/**
 * AgentScope's SkillBox, framework-neutral: skills from any provider or registered in code, the load tool, tool groups
 * that switch on when their skill is loaded, per-session activation, content-digest versions, the system prompt, and
 * sandboxed code execution. Bodies and files are read only when the model loads them.
 */
export class SkillBox {
  readonly #registry: SkillRegistry | undefined;
  readonly #ready: Promise<void>;
  readonly #registered = new Map<string, SkillVersion[]>();
  readonly #removed = new Set<string>();
  readonly #generation = new Map<string, number>();
  readonly #sessions = new Map<string, SessionState>();
  readonly #sessionViews = new Map<string, SkillBoxSession>();
  readonly #tools = new Map<string, ToolEntry>();
  readonly #metadataCache = new WeakMap<RegistryEntry, Frontmatter>();
  readonly #loadTool: Tool;
  readonly #searchTool: Tool;
  #codeExec: CodeExecution | undefined;
  #instruction: string | undefined;
  #exposeAll: boolean;
  #layout: "agentscope" | "compact";
  readonly #enumLimit: number;
  readonly #budget: CatalogBudget;
  readonly #searchMode: "auto" | "always" | "never";
  readonly maxContentChars: number;
  readonly maxListedPaths: number;
  readonly maxToolResultChars: number;
  #skills: BoxSkill[] | undefined;
  #byId: Map<string, BoxSkill> | undefined;
  #prompt: { text: string; truncated: boolean } | undefined;
  #searchIndex: SkillSearchIndex | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(options: SkillBoxOptions = {}) {
    if (options.sources && options.registry) throw new AgentError("AGENT_CONFIG", "give SkillBox either sources or a registry, not both");
    this.#instruction = options.instruction;
    this.#exposeAll = options.exposeAllSkillMetadata ?? true;
    this.#layout = options.catalogLayout ?? "agentscope";
    this.#enumLimit = nonNegative("enumLimit", options.enumLimit ?? DEFAULT_ENUM_LIMIT);
    this.#budget = { ...options.catalog };
    this.#searchMode = options.searchTool ?? "auto";
    this.maxContentChars = positive("maxContentChars", options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS);
    this.maxListedPaths = positive("maxListedPaths", options.maxListedPaths ?? DEFAULT_MAX_LISTED_PATHS);
    this.maxToolResultChars = positive("maxToolResultChars", options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS);
    this.#registry = options.registry ?? (options.sources ? new SkillRegistry() : undefined);
    const registry = this.#registry;
    if (registry) this.#unsubscribe = registry.on("change", (change) => this.#onRegistryChange([...change.updated, ...change.removed]));
    const sources = options.sources ?? [];
    this.#ready = registry && sources.length > 0
      ? (async () => {
          for (const source of sources) await registry.addProvider(toSkillProvider(source), { watch: options.watch ?? false });
        })()
      : Promise.resolve();
    this.#ready.catch(() => undefined); // surfaced by ready()
    this.#loadTool = createLoadTool(this.#loadHost());
    this.#searchTool = createSearchTool((query, limit, minConfidence) => this.searchSkills(query, limit, { minConfidence }));
    for (const tool of options.toolkit ?? []) this.addTool(tool);
  }

  /** Resolves when the `sources` given to the constructor are loaded (rejects when one cannot be read). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** A box whose sources are loaded. */
  static async create(options: SkillBoxOptions = {}): Promise<SkillBox> {
    const box = new SkillBox(options);
    await box.ready();
    return box;
  }

  /** The registry behind provider skills, if any. */
  get registry(): SkillRegistry | undefined {
    return this.#registry;
  }

  /**
   * Skills the box's sources (or registry) hold but leave out of the prompt, the load tool and search — no description,
   * broken YAML, an unsafe name… — each with its source, id and reason. Check it after `create()`/`ready()`: a skill
   * is never left out silently (docs/decisions/0282).
   */
  get failures(): readonly RegistrationFailure[] {
    return this.#registry?.failures ?? [];
  }

  // ── skills ────────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers a skill built in code. Its id is `<name>_<source>`. Same content digest as the current version: nothing
   * happens. A new digest: a new version (the old one is kept until `clearSkillOldVersions()`), and the skill is
   * deactivated in every session (re-registration resets activation).
   */
  async registerSkill(skill: Skill): Promise<RegisterResult> {
    const name = skill.name;
    if (name.trim() === "") throw new AgentError("AGENT_CONFIG", "a skill needs a name to be registered");
    const id = skillIdOf(name, skill.source);
    const digest = await skill.digest();
    const versions = this.#registered.get(id) ?? [];
    const latest = versions.at(-1);
    if (latest?.digest === digest) return { skillId: id, status: "unchanged", version: latest.version };
    const version = (latest?.version ?? 0) + 1;
    this.#registered.set(id, [...versions, { version, digest, skill }]);
    this.#removed.delete(id);
    this.#reset(id);
    return { skillId: id, status: latest ? "updated" : "added", version };
  }

  /** `registration().skill(s).tool(t).apply()`: registers the skill and puts tools in its inactive group. */
  registration(): SkillRegistration {
    return new SkillRegistration(this);
  }

  /** The current version of a skill, or undefined. */
  getSkill(skillId: string): BoxSkill | undefined {
    return this.#index().get(skillId);
  }

  /** Every version kept for a registered skill, oldest first. */
  getSkillVersions(skillId: string): readonly SkillVersion[] {
    return [...(this.#registered.get(skillId) ?? [])];
  }

  /** Every skill the box serves, hidden ones included: registered skills first (in order), then registry skills. */
  listSkills(): readonly BoxSkill[] {
    return this.#list();
  }

  /** Removes a skill (every version of a registered one; a registry skill is hidden from this box). */
  removeSkill(skillId: string): boolean {
    const known = this.#index().has(skillId);
    if (this.#registered.delete(skillId) === false && known) this.#removed.add(skillId);
    if (!known) return false;
    this.#reset(skillId);
    for (const [name, entry] of this.#tools) {
      if (!entry.skills?.delete(skillId)) continue;
      if (entry.skills.size === 0 && !entry.everySkill) this.#tools.delete(name);
    }
    return true;
  }

  /** Drops every version of registered skills but the current one; returns how many were dropped. */
  clearSkillOldVersions(): number {
    let dropped = 0;
    for (const [id, versions] of this.#registered) {
      if (versions.length <= 1) continue;
      dropped += versions.length - 1;
      this.#registered.set(id, versions.slice(-1));
    }
    return dropped;
  }

  /**
   * Skills matching a query (core's BM25F search with calibrated confidence), best first; hidden skills never. Every
   * match by default; `minConfidence` leaves out weaker ones (abstention on request, decision 0265).
   */
  async searchSkills(query: string, limit = 5, options: { minConfidence?: number } = {}): Promise<Array<{ skill: BoxSkill; confidence: number }>> {
    const hits: Array<{ skill: BoxSkill; confidence: number }> = [];
    const index = this.#index();
    const minConfidence = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
    if (this.#registry) {
      for (const hit of await this.#registry.search(query, { limit: limit * 2, minConfidence })) {
        const entry = this.#registry.has(hit.id) ? this.#registry.get(hit.id) : undefined;
        const skill = entry ? index.get(this.#registryBoxId(entry)) : undefined;
        if (skill && !skill.hidden) hits.push({ skill, confidence: hit.confidence });
      }
    }
    this.#searchIndex ??= this.#buildRegisteredIndex();
    for (const hit of this.#searchIndex.search(query, { limit: limit * 2, minConfidence }) as SearchHit[]) {
      const skill = index.get(hit.id);
      if (skill && !skill.hidden) hits.push({ skill, confidence: hit.confidence });
    }
    return hits.sort((a, b) => b.confidence - a.confidence || (a.skill.id < b.skill.id ? -1 : 1)).slice(0, limit);
  }

  // ── tools ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Adds a tool the model always sees. A different tool under a name already used is refused. */
  addTool(tool: Tool): void {
    this.#putTool(tool, undefined);
  }

  /** Puts a tool in the group `<skillId>_skill_tools` of each given skill (a tool may be in several groups). */
  bindTool(tool: Tool, skillIds: readonly string[]): void {
    for (const id of skillIds) if (!this.#index().has(id)) throw new AgentError("AGENT_CONFIG", `cannot bind tool ${tool.name}: no skill ${JSON.stringify(id)}`);
    this.#putTool(tool, skillIds);
  }

  /** Puts a tool in the group of every skill, present and future: hidden until some skill is active in the session. */
  bindToolToEverySkill(tool: Tool): void {
    const entry = this.#putTool(tool, []);
    entry.everySkill = true;
  }

  /** Every tool the box may ever show (hidden group tools included), e.g. for APIs that take `activeTools`. */
  allTools(): Tool[] {
    const out: Tool[] = [this.#loadTool];
    if (this.#searchMode !== "never") out.push(this.#searchTool);
    if (this.#codeExec) out.push(...this.#codeExec.tools());
    for (const entry of this.#tools.values()) out.push(entry.tool);
    return out;
  }

  /** Removes a tool from the box (and every group). */
  removeTool(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The group name of a skill's tools, as upstream names it. */
  static groupName(skillId: string): string {
    return `${skillId}_skill_tools`;
  }

  /** The groups a tool belongs to (empty for an always-visible tool). */
  toolGroups(name: string): string[] {
    const entry = this.#tools.get(name);
    if (!entry?.skills) return [];
    return [...entry.skills].map((id) => SkillBox.groupName(id));
  }

  // ── sessions (the box's own methods act on the default session) ─────────────────────────────────────────────

  /** A session: its own activations, so two sessions (users, agents) never see each other's. */
  session(id: string = DEFAULT_SESSION): SkillBoxSession {
    if (typeof id !== "string" || id === "") throw new AgentError("AGENT_CONFIG", "a session id must be a non-empty string");
    let view = this.#sessionViews.get(id);
    if (!view) this.#sessionViews.set(id, (view = new SkillBoxSession(this, id)));
    return view;
  }

  /** Forgets a session's activations; its own work dir and sandbox (code execution) are removed in the background. */
  closeSession(id: string): void {
    this.#sessions.delete(id);
    this.#sessionViews.delete(id);
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

  /** Stops listening to the registry, stops the sandbox and removes a temporary work directory. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#codeExec?.close();
  }

  // ── internals shared with sessions and registration ──────────────────────────────────────────────────────────

  /** @internal */
  _state(sessionId: string): SessionState {
    let state = this.#sessions.get(sessionId);
    if (!state) this.#sessions.set(sessionId, (state = { active: new Map() }));
    return state;
  }

  /** @internal */
  _isActive(sessionId: string, skillId: string): boolean {
    const at = this.#sessions.get(sessionId)?.active.get(skillId);
    return at !== undefined && at === (this.#generation.get(skillId) ?? 0) && this.#index().has(skillId);
  }

  /** @internal */
  _activate(sessionId: string, skillId: string): void {
    if (!this.#index().has(skillId)) throw new AgentError("AGENT_CONFIG", `no skill ${JSON.stringify(skillId)}`);
    this._state(sessionId).active.set(skillId, this.#generation.get(skillId) ?? 0);
  }

  /** @internal */
  _visibleTools(sessionId: string): Tool[] {
    const out: Tool[] = [this.#loadTool];
    if (this.#searchVisible()) out.push(this.#searchTool);
    if (this.#codeExec) out.push(...this.#codeExec.tools());
    const state = this.#sessions.get(sessionId);
    const anyActive = state !== undefined && [...state.active.keys()].some((id) => this._isActive(sessionId, id));
    for (const entry of this.#tools.values()) {
      if (!entry.skills) out.push(entry.tool);
      else if ((entry.everySkill && anyActive) || [...entry.skills].some((id) => this._isActive(sessionId, id))) out.push(entry.tool);
    }
    return out;
  }

  /** @internal Runs a tool for a session; unknown and hidden tools are error results naming them. Never throws. */
  async _callTool(sessionId: string, name: string, args: unknown, signal: AbortSignal | undefined): Promise<ToolResult> {
    const visible = this._visibleTools(sessionId);
    const tool = visible.find((t) => t.name === name);
    if (!tool) {
      const entry = this.#tools.get(name);
      if (entry?.skills) {
        const groups = entry.everySkill ? "any skill" : [...entry.skills].map((id) => JSON.stringify(id)).join(" or ");
        return errorResult(`Error: tool ${JSON.stringify(name)} is not available yet: load ${groups} with ${LOAD_SKILL_TOOL} first (it belongs to ${entry.everySkill ? "every skill's tool group" : this.toolGroups(name).join(", ")}).`);
      }
      const names = visible.map((t) => t.name).join(", ");
      return errorResult(`Error: unknown tool ${JSON.stringify(name)}. Available tools: ${names}.`);
    }
    const context: ToolContext = signal ? { sessionId, signal } : { sessionId };
    try {
      return capResult(await tool.execute(args, context), this.maxToolResultChars);
    } catch (error) {
      return errorResult(`Error: ${name} failed: ${messageOf(error)}`);
    }
  }

  /** @internal */
  _deactivateAll(sessionId: string): void {
    this.#sessions.get(sessionId)?.active.clear();
  }

  /** @internal */
  _deactivate(sessionId: string, skillId: string): boolean {
    return this.#sessions.get(sessionId)?.active.delete(skillId) ?? false;
  }

  /** @internal */
  _activeSkills(sessionId: string): string[] {
    return [...(this.#sessions.get(sessionId)?.active.keys() ?? [])].filter((id) => this._isActive(sessionId, id));
  }

  // ── private ───────────────────────────────────────────────────────────────────────────────────────────────────

  #putTool(tool: Tool, skillIds: readonly string[] | undefined): ToolEntry {
    if (!TOOL_NAME_PATTERN.test(tool.name)) throw new AgentError("AGENT_CONFIG", `tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME_PATTERN}`);
    const reserved = [LOAD_SKILL_TOOL, SEARCH_SKILLS_TOOL, ...(this.#codeExec?.tools().map((t) => t.name) ?? [])];
    if (reserved.includes(tool.name)) throw new AgentError("TOOL_CONFLICT", `tool name ${JSON.stringify(tool.name)} is reserved by the skill box`);
    const existing = this.#tools.get(tool.name);
    if (existing && existing.tool !== tool) throw new AgentError("TOOL_CONFLICT", `another tool named ${JSON.stringify(tool.name)} is already registered`);
    if (existing) {
      if (skillIds === undefined || existing.skills === undefined) {
        if ((skillIds === undefined) !== (existing.skills === undefined)) {
          throw new AgentError("TOOL_CONFLICT", `tool ${JSON.stringify(tool.name)} cannot be both always visible and in a skill group`);
        }
        return existing;
      }
      for (const id of skillIds) existing.skills.add(id);
      return existing;
    }
    const entry: ToolEntry = { tool, skills: skillIds === undefined ? undefined : new Set(skillIds), everySkill: false };
    this.#tools.set(tool.name, entry);
    return entry;
  }

  #enableCodeExecution(exec: CodeExecution): void {
    for (const tool of exec.tools()) {
      if (this.#tools.has(tool.name)) throw new AgentError("TOOL_CONFLICT", `tool name ${JSON.stringify(tool.name)} is already used by another tool`);
    }
    const previous = this.#codeExec;
    if (previous?.scriptTool) this.#tools.delete(previous.scriptTool.name);
    this.#codeExec = exec;
    exec.host = {
      activeSkill: (sessionId, given) => {
        const found = this.#loadHost().resolve(given);
        return "id" in found && this._isActive(sessionId, found.id) ? found : undefined;
      },
    };
    if (exec.scriptTool) this.bindToolToEverySkill(exec.scriptTool);
    this.#prompt = undefined;
    void previous?.close();
  }

  #reset(skillId: string): void {
    this.#generation.set(skillId, (this.#generation.get(skillId) ?? 0) + 1);
    this.#skills = undefined;
    this.#byId = undefined;
    this.#prompt = undefined;
    this.#searchIndex = undefined;
  }

  #onRegistryChange(registryIds: readonly string[]): void {
    const affected = new Set(registryIds);
    const before = this.#list();
    this.#skills = undefined;
    this.#byId = undefined;
    this.#prompt = undefined;
    for (const skill of [...before, ...this.#list()]) if (skill.registryId !== undefined && affected.has(skill.registryId)) this.#reset(skill.id);
  }

  #list(): BoxSkill[] {
    if (this.#skills) return this.#skills;
    const out: BoxSkill[] = [];
    const seen = new Set<string>();
    for (const [id, versions] of this.#registered) {
      const current = versions.at(-1);
      if (!current) continue;
      out.push(registeredSkill(id, current));
      seen.add(id);
    }
    for (const entry of this.#registry?.list() ?? []) {
      const frontmatter = this.#metadataOf(entry);
      const id = this.#registryBoxId(entry, frontmatter);
      if (seen.has(id) || this.#removed.has(id)) continue;
      seen.add(id);
      out.push(registrySkill(id, entry, frontmatter));
    }
    this.#skills = out;
    return out;
  }

  #index(): Map<string, BoxSkill> {
    if (!this.#byId) this.#byId = new Map(this.#list().map((s) => [s.id, s]));
    return this.#byId;
  }

  #metadataOf(entry: RegistryEntry): Frontmatter {
    let metadata = this.#metadataCache.get(entry);
    if (!metadata) this.#metadataCache.set(entry, (metadata = entry.getMetadata()));
    return metadata;
  }

  #registryBoxId(entry: RegistryEntry, frontmatter = this.#metadataOf(entry)): string {
    return skillIdOf(skillFields(frontmatter).name || entry.id, entry.source);
  }

  #buildRegisteredIndex(): SkillSearchIndex {
    const index = new SkillSearchIndex();
    for (const skill of this.#list()) {
      if (skill.origin !== "registered") continue;
      const current = this.#registered.get(skill.id)?.at(-1);
      index.add({ id: skill.id, name: skill.name, description: skill.description, metadata: skill.frontmatter, body: current?.skill.body });
    }
    return index;
  }

  #visibleSkills(): BoxSkill[] {
    return this.#list().filter((s) => !s.hidden);
  }

  #renderPrompt(): { text: string; truncated: boolean } {
    if (this.#prompt) return this.#prompt;
    const visible = this.#visibleSkills();
    if (visible.length === 0) return (this.#prompt = { text: "", truncated: false });
    // The compact layout names a skill by its bare name when that is unique: the load tool resolves it (#loadHost).
    const nameCount = new Map<string, number>();
    for (const skill of visible) nameCount.set(skill.name, (nameCount.get(skill.name) ?? 0) + 1);
    const entries: CatalogEntry[] = visible.map((skill) => {
      const priority = catalogPriority(skill.frontmatter);
      const label = skill.name !== "" && nameCount.get(skill.name) === 1 ? skill.name : skill.id;
      return { id: skill.id, name: skill.name, description: skill.description, metadata: skill.frontmatter, source: skill.source, label, ...(priority !== undefined && { priority }) };
    });
    const budget = this.#budget;
    const catalog = renderCatalog(entries, {
      format: "agentscope",
      exposeAllMetadata: this.#exposeAll,
      ...(this.#layout === "compact" && { layout: "compact" as const }),
      ...(this.#instruction !== undefined && { instruction: this.#instruction }),
      ...(budget.maxChars !== undefined && { maxChars: budget.maxChars }),
      ...(budget.maxTokens !== undefined && { maxTokens: budget.maxTokens }),
      ...(budget.tokenCounter !== undefined && { tokenCounter: budget.tokenCounter }),
      ...(budget.pinned !== undefined && { pinned: budget.pinned }),
      ...(budget.priorities !== undefined && { priorities: budget.priorities }),
      ...(budget.maxEntryChars !== undefined && { maxEntryChars: budget.maxEntryChars }),
      searchTool: this.#searchMode === "never" ? false : SEARCH_SKILLS_TOOL,
    });
    const truncated = catalog.includes('<available_skills truncated="true"');
    const section = this.#codeExec?.promptSection();
    this.#prompt = { text: section ? `${catalog}\n\n${section}` : catalog, truncated };
    return this.#prompt;
  }

  #searchVisible(): boolean {
    if (this.#searchMode === "never") return false;
    if (this.#searchMode === "always") return this.#visibleSkills().length > 0;
    return this.#renderPrompt().truncated;
  }

  #loadHost(): LoadHost {
    return {
      box: this,
      /** The skill a `skillId` argument names: exact id, else a unique skill of that name or registry id. */
      resolve: (given: string): BoxSkill | { suggestions: string[] } => {
        const visible = this.#visibleSkills();
        const exact = this.#index().get(given);
        if (exact && !exact.hidden) return exact;
        const byName = visible.filter((s) => s.name === given || s.registryId === given);
        if (byName.length === 1) return byName[0] as BoxSkill;
        return { suggestions: byName.length > 1 ? byName.map((s) => s.id) : suggestionsFor(given, visible) };
      },
      enumIds: (): string[] | undefined => {
        const visible = this.#visibleSkills();
        return visible.length > 0 && visible.length <= this.#enumLimit ? visible.map((s) => s.id) : undefined;
      },
      activate: async (sessionId: string, skill: BoxSkill): Promise<string | undefined> => {
        const already = this._isActive(sessionId, skill.id);
        this._activate(sessionId, skill.id);
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

  constructor(box: SkillBox, id: string) {
    this.box = box;
    this.id = id;
  }

  /** The tools the model may see now: skill tools, code execution, always-on tools and the groups of active skills. */
  tools(): Tool[] {
    return this.box._visibleTools(this.id);
  }

  toolNames(): string[] {
    return this.tools().map((t) => t.name);
  }

  /** Runs a tool by name. A hidden or unknown tool, a bad argument or a failing tool is an error result, never a throw. */
  callTool(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    return this.box._callTool(this.id, name, args, options.signal);
  }

  isActive(skillId: string): boolean {
    return this.box._isActive(this.id, skillId);
  }

  /** Active skill ids. */
  activeSkills(): string[] {
    return this.box._activeSkills(this.id);
  }

  /** Activates a skill without the model loading it (e.g. the user invoked it). */
  activate(skillId: string): void {
    this.box._activate(this.id, skillId);
  }

  deactivate(skillId: string): boolean {
    return this.box._deactivate(this.id, skillId);
  }

  /** Deactivates every skill of this session: their tool groups are hidden again. */
  deactivateAll(): void {
    this.box._deactivateAll(this.id);
  }

  getSkillPrompt(): string {
    return this.box.getSkillPrompt();
  }
}

/** `registration().skill(s).tool(t).tool(u).apply()`. */
export class SkillRegistration {
  readonly #box: SkillBox;
  #skill: Skill | string | undefined;
  readonly #tools: Tool[] = [];

  constructor(box: SkillBox) {
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
    if (skill === undefined) throw new AgentError("AGENT_CONFIG", "registration needs a skill: registration().skill(s)");
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

function registeredSkill(id: string, version: SkillVersion): BoxSkill {
  const { skill } = version;
  const encoder = new TextEncoder();
  const resources = skill.resources;
  return Object.freeze({
    id,
    name: skill.name,
    description: skill.description,
    source: skill.source,
    frontmatter: skill.frontmatter,
    origin: "registered" as const,
    version: version.version,
    digest: version.digest,
    hidden: isHiddenFromModel(skill.frontmatter),
    registryId: undefined,
    reader: {
      body: async () => skill.body,
      listFiles: async () => ["SKILL.md", ...[...resources.keys()].filter((p) => p !== "SKILL.md").sort()],
      readFile: async (path: string) => {
        if (path === "SKILL.md") return encoder.encode(skill.toSkillMd());
        const content = resources.get(path);
        if (content === undefined) throw new ResourceNotFoundError(id, path);
        return typeof content === "string" ? encoder.encode(content) : content;
      },
    },
  });
}

function registrySkill(id: string, entry: RegistryEntry, frontmatter: Frontmatter): BoxSkill {
  return Object.freeze({
    id,
    name: skillFields(frontmatter).name || entry.id,
    description: skillFields(frontmatter).description ?? "",
    source: entry.source,
    frontmatter,
    origin: "registry" as const,
    version: 1,
    digest: undefined,
    hidden: isHiddenFromModel(frontmatter),
    registryId: entry.id,
    reader: {
      body: () => entry.getBody(),
      listFiles: async () => (await entry.listFiles()).map((f) => f.path),
      readFile: (path: string) => entry.readFile(path),
      linkTarget: async (path: string) => folderLinkTarget(await entry.getLocation().catch(() => undefined), path),
    },
  });
}

/** "Did you mean": core's suggestClosest over ids and names, plus skills whose id or name contains what was given. */
function suggestionsFor(given: string, skills: readonly BoxSkill[]): string[] {
  const out = new Set<string>();
  const closestId = suggestClosest(given, skills.map((s) => s.id));
  if (closestId) out.add(closestId);
  const closestName = suggestClosest(given, skills.map((s) => s.name));
  const named = closestName === undefined ? undefined : skills.find((s) => s.name === closestName);
  if (named) out.add(named.id);
  const lower = given.trim().toLowerCase();
  if (lower.length >= 3) for (const s of skills) if (s.name.toLowerCase().includes(lower) || lower.includes(s.name.toLowerCase())) out.add(s.id);
  return [...out].slice(0, 3);
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new AgentError("AGENT_CONFIG", `${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new AgentError("AGENT_CONFIG", `${name} must be a non-negative integer, got ${value}`);
  return value;
}
