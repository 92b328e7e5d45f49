import type { Frontmatter } from "./types.js";
import { serializeSkillMd } from "./serialize.js";
import { SkillBuilder } from "./builder.js";
import { copyValue, defineKey } from "./format/object.js";
import { scalarText } from "./fields.js";

/** Resource content: text as given, or exact bytes. */
export type ResourceContent = string | Uint8Array;

/** A skill held in memory: frontmatter (verbatim, ordered), body, resources by relative POSIX path. */
export class Skill {
  readonly frontmatter: Frontmatter;
  readonly body: string;
  readonly resources: ReadonlyMap<string, ResourceContent>;
  readonly source: string;

  constructor(init: { frontmatter: Frontmatter; body: string; resources?: ReadonlyMap<string, ResourceContent>; source?: string }) {
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

/** Numbers and booleans written unquoted (`name: 2048`) still read as their text. */
