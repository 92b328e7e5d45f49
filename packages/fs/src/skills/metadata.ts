import { parseFrontmatter, SkillValidationError, type Frontmatter, type ParseLimits } from "@skillport/core";

/**
 * Parses the frontmatter at the start of `head` (the SKILL.md text up to at least the closing `---`) with core's
 * metadata-only parser (flat frontmatter takes its fast path). Throws SkillValidationError, with the parser's
 * diagnostics, when there is no usable frontmatter.
 */
export function parseMetadata(
  skillId: string,
  file: string,
  head: string,
  limits: Partial<ParseLimits> | undefined,
): Frontmatter {
  const parsed = parseFrontmatter(head, limits === undefined ? { file } : { file, limits });
  if (parsed.frontmatter === undefined) {
    const first = parsed.diagnostics.find((d) => d.severity === "error") ?? parsed.diagnostics[0];
    throw new SkillValidationError(
      `skill ${JSON.stringify(skillId)}: ${file}: ${first?.message ?? "no usable frontmatter"}`,
      parsed.diagnostics,
    );
  }
  return parsed.frontmatter;
}
