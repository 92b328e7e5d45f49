import { yamlLibrary } from "#yaml-library";
import type { Frontmatter } from "./skill-data.js";

/**
 * Frontmatter → YAML text (ending in a newline): keys in order, nothing folded (`lineWidth: 0`), no anchors,
 * strings quoted whenever YAML would read them as something else. An empty mapping is written `{}` so it still
 * parses as a mapping.
 */
export function serializeFrontmatter(frontmatter: Frontmatter): string {
  if (Object.keys(frontmatter).length === 0) return "{}\n";
  return yamlLibrary().stringify(frontmatter, {
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
    version: "1.2",
  });
}

/** Frontmatter and body → SKILL.md text; the body follows the closing `---` line verbatim. */
export function serializeSkillMd(frontmatter: Frontmatter, body: string): string {
  return `---\n${serializeFrontmatter(frontmatter)}---\n${body}`;
}
