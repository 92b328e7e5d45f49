import { SkillValidationError } from "./errors.js";
import { Skill, type ResourceContent } from "./skill.js";
import { problem, resourcePathProblems } from "./resource-problems.js";
import { validateSkillMd } from "./validate.js";

/**
 * A Skill from SKILL.md text (AgentScope's `createFrom`): parsed and checked with the lenient profile.
 * Throws SkillValidationError with the diagnostics when the text is unusable (no frontmatter, bad YAML, a blank
 * name, description or body — AgentScope's rule) or a resource path is unsafe.
 */
export function createSkillFrom(
  skillMd: string | Uint8Array,
  resources?: ReadonlyMap<string, ResourceContent> | Readonly<Record<string, ResourceContent>>,
  source = "custom",
): Skill {
  const { parsed, diagnostics } = validateSkillMd(skillMd, { profile: "lenient", lint: false, file: "SKILL.md" });
  const entries = resources === undefined ? [] : resources instanceof Map ? [...resources] : Object.entries(resources);
  const all = [...diagnostics, ...resourcePathProblems(entries.map(([path]) => path))];
  if (parsed.body.trim() === "")
    all.push({ ...problem("body-empty", "the skill needs non-blank content (the SKILL.md body)"), file: "SKILL.md" });
  const firstError = all.find((d) => d.severity === "error");
  if (firstError || parsed.frontmatter === undefined) {
    throw new SkillValidationError(
      `cannot create a skill from this SKILL.md: ${firstError?.message ?? "no frontmatter"}`,
      all,
    );
  }
  return new Skill({ frontmatter: parsed.frontmatter, body: parsed.body, resources: new Map(entries), source });
}
