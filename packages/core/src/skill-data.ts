// The plain values a skill is made of. The Skill model and the source contracts (types.ts) both build on them; this
// module imports nothing, so neither reaches the other through it.

/** A YAML value as Skillport keeps it: JSON-shaped, key order preserved. */
export type FrontmatterValue =
  string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

/** SKILL.md frontmatter: keys, order and nesting exactly as written. */
export type Frontmatter = { [key: string]: FrontmatterValue };

/** The three conventional resource folders of a skill. */
export type ResourceKind = "references" | "scripts" | "assets";
export const RESOURCE_KINDS: readonly ResourceKind[] = ["references", "scripts", "assets"];
