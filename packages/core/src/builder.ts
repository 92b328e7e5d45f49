import type { Diagnostic } from "./diagnostics.js";
import { SkillValidationError } from "./errors.js";
import type { Frontmatter, FrontmatterValue } from "./types.js";
import { isSafeResourcePath } from "./safe-path.js";
import { Skill, type ResourceContent } from "./skill.js";
import { defineKey } from "./format/object.js";
import { validateSkillMd } from "./validate.js";

/** Builds a Skill in code, AgentScope style. `build()` checks the minimum a skill needs to be usable. */
export class SkillBuilder {
  #name = "";
  #description = "";
  #content = "";
  #source = "custom";
  readonly #metadata: Frontmatter = {};
  readonly #resources = new Map<string, ResourceContent>();

  name(name: string): this {
    this.#name = name;
    return this;
  }

  description(description: string): this {
    this.#description = description;
    return this;
  }

  /** The SKILL.md body. */
  skillContent(content: string): this {
    this.#content = content;
    return this;
  }

  /** A file of the skill at a relative POSIX path, e.g. `references/api.md`; the same path again replaces it. */
  addResource(path: string, content: ResourceContent): this {
    this.#resources.set(path, content);
    return this;
  }

  /** An extra frontmatter field, kept in insertion order after name and description. */
  putMetadata(key: string, value: FrontmatterValue): this {
    if (key === "name" || key === "description") throw new TypeError(`set '${key}' with .${key}(), not putMetadata`);
    defineKey(this.#metadata, key, value);
    return this;
  }

  source(source: string): this {
    this.#source = source;
    return this;
  }

  /** Throws SkillValidationError (with diagnostics) when name or description is blank or a resource path is unsafe. */
  build(): Skill {
    const problems: Diagnostic[] = [];
    if (this.#name.trim() === "") problems.push(problem("name-empty", "the skill needs a non-blank name"));
    if (this.#description.trim() === "") problems.push(problem("description-empty", "the skill needs a non-blank description"));
    problems.push(...resourcePathProblems(this.#resources.keys()));
    if (problems.length > 0) throw new SkillValidationError(`cannot build skill: ${problems.map((p) => p.message).join("; ")}`, problems);
    const frontmatter: Frontmatter = { name: this.#name, description: this.#description };
    for (const [key, value] of Object.entries(this.#metadata)) defineKey(frontmatter, key, value);
    return new Skill({ frontmatter, body: this.#content, resources: new Map(this.#resources), source: this.#source });
  }
}

/**
 * A Skill from SKILL.md text (AgentScope's `createFrom`): parsed and checked with the lenient profile.
 * Throws SkillValidationError with the diagnostics when the text is unusable (no frontmatter, bad YAML, no name
 * or description) or a resource path is unsafe.
 */
export function createSkillFrom(
  skillMd: string | Uint8Array,
  resources?: ReadonlyMap<string, ResourceContent> | Readonly<Record<string, ResourceContent>>,
  source = "custom",
): Skill {
  const { parsed, diagnostics } = validateSkillMd(skillMd, { profile: "lenient", lint: false, file: "SKILL.md" });
  const entries = resources === undefined ? [] : resources instanceof Map ? [...resources] : Object.entries(resources);
  const all = [...diagnostics, ...resourcePathProblems(entries.map(([path]) => path))];
  const firstError = all.find((d) => d.severity === "error");
  if (firstError || parsed.frontmatter === undefined) {
    throw new SkillValidationError(`cannot create a skill from this SKILL.md: ${firstError?.message ?? "no frontmatter"}`, all);
  }
  return new Skill({ frontmatter: parsed.frontmatter, body: parsed.body, resources: new Map(entries), source });
}

function resourcePathProblems(paths: Iterable<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const path of paths) {
    if (path === "SKILL.md") out.push(problem("resource-path-invalid", "'SKILL.md' is the skill itself, not a resource"));
    else if (!isSafeResourcePath(path)) out.push(problem("resource-path-invalid", `resource path ${JSON.stringify(path)} must be a relative POSIX path inside the skill`));
  }
  return out;
}

function problem(code: string, message: string): Diagnostic {
  return { code, severity: "error", message, line: 0, column: 0 };
}
