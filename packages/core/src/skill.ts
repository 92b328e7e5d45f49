import type { Frontmatter } from "./types.js";

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

  get name(): string {
    return typeof this.frontmatter.name === "string" ? this.frontmatter.name : "";
  }

  get description(): string {
    return typeof this.frontmatter.description === "string" ? this.frontmatter.description : "";
  }
}
