import type { Diagnostic } from "./diagnostics.js";
import { SkillValidationError } from "./errors.js";
import type { Frontmatter, FrontmatterValue } from "./skill-data.js";
import { problem, resourcePathProblems } from "./resource-problems.js";
import { serializeSkillMd } from "./serialize.js";
import { copyValue, defineKey } from "./format/object.js";
import { scalarText } from "./fields.js";

/** Resource content: text as given, or exact bytes. */
export type ResourceContent = string | Uint8Array;

/**
 * What AgentScope's `AgentSkill` constructor refuses: a blank name, a blank description, blank content. A skill
 * without them renders as `<description></description>` and cannot be chosen, so it is never made at all.
 */
function blankFieldProblems(name: string, description: string, body: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  if (name.trim() === "") problems.push(problem("name-empty", "the skill needs a non-blank name"));
  if (description.trim() === "") problems.push(problem("description-empty", "the skill needs a non-blank description"));
  if (body.trim() === "") problems.push(problem("body-empty", "the skill needs non-blank content (the SKILL.md body)"));
  return problems;
}

function refuse(problems: readonly Diagnostic[]): never {
  throw new SkillValidationError(`cannot build skill: ${problems.map((p) => p.message).join("; ")}`, [...problems]);
}

/**
 * A skill held in memory: frontmatter (verbatim, ordered), body, resources by relative POSIX path. The constructor
 * throws SkillValidationError on a blank name, description or body (AgentScope's rule), so every Skill is usable.
 */
export class Skill {
  readonly frontmatter: Frontmatter;
  readonly body: string;
  readonly resources: ReadonlyMap<string, ResourceContent>;
  readonly source: string;

  constructor(init: {
    frontmatter: Frontmatter;
    body: string;
    resources?: ReadonlyMap<string, ResourceContent>;
    source?: string;
  }) {
    const problems = blankFieldProblems(
      scalarText(init.frontmatter.name) ?? "",
      scalarText(init.frontmatter.description) ?? "",
      init.body,
    );
    if (problems.length > 0) refuse(problems);
    this.frontmatter = init.frontmatter;
    this.body = init.body;
    this.resources = init.resources ?? new Map();
    this.source = init.source ?? "custom";
  }

  /** `Skill.builder().name(…).description(…).skillContent(…).addResource(…).putMetadata(…).source(…).build()`. */
  static builder(): SkillBuilder {
    return new SkillBuilder();
  }

  get name(): string {
    return scalarText(this.frontmatter.name) ?? "";
  }

  get description(): string {
    return scalarText(this.frontmatter.description) ?? "";
  }

  /** The SKILL.md body (AgentScope's name for it). */
  get skillContent(): string {
    return this.body;
  }

  /** Every frontmatter key except name and description, in order, as a fresh copy. */
  get metadata(): Frontmatter {
    const out: Frontmatter = {};
    for (const [key, value] of Object.entries(this.frontmatter)) {
      if (key !== "name" && key !== "description") defineKey(out, key, copyValue(value));
    }
    return out;
  }

  /** The SKILL.md text for this skill. */
  toSkillMd(): string {
    return serializeSkillMd(this.frontmatter, this.body);
  }

  /**
   * `sha256:<hex>` of the skill's content: its SKILL.md text and every resource (sorted by path, text as UTF-8).
   * The source is not part of it, so the same skill from two places has one digest. Uses WebCrypto (async).
   */
  async digest(): Promise<string> {
    const encoder = new TextEncoder();
    const parts: Uint8Array[] = [encoder.encode("skillport-skill-digest-v1\n")];
    const add = (path: string, content: ResourceContent): void => {
      const bytes = typeof content === "string" ? encoder.encode(content) : content;
      parts.push(encoder.encode(`${path}\u0000${bytes.byteLength}\u0000`), bytes);
    };
    add("SKILL.md", this.toSkillMd());
    for (const path of [...this.resources.keys()].sort()) add(path, this.resources.get(path) ?? "");
    const total = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let offset = 0;
    for (const p of parts) {
      total.set(p, offset);
      offset += p.byteLength;
    }
    const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", total));
    return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  }
}

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

  /** Throws SkillValidationError (with diagnostics) when name, description or content is blank or a resource path is unsafe. */
  build(): Skill {
    const problems = [
      ...blankFieldProblems(this.#name, this.#description, this.#content),
      ...resourcePathProblems(this.#resources.keys()),
    ];
    if (problems.length > 0) refuse(problems);
    const frontmatter: Frontmatter = { name: this.#name, description: this.#description };
    for (const [key, value] of Object.entries(this.#metadata)) defineKey(frontmatter, key, value);
    return new Skill({ frontmatter, body: this.#content, resources: new Map(this.#resources), source: this.#source });
  }
}
