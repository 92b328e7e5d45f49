import type { Frontmatter, FrontmatterValue } from "./skill-data.js";
import { pyStrip } from "./names.js";

/**
 * A frontmatter scalar as text, the way the reference validator reads it: strings stripped (Python's whitespace
 * set), numbers and booleans as their text (`description: 42` is "42"), anything else undefined.
 */
export function scalarText(value: FrontmatterValue | undefined): string | undefined {
  if (typeof value === "string") return pyStrip(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** The spec's fields, typed: what a caller wants from `getMetadata()` without casts. */
export interface SkillFields {
  /** Stripped; undefined when absent or not a scalar. */
  name: string | undefined;
  description: string | undefined;
  license: string | undefined;
  compatibility: string | undefined;
  /** `metadata` as a string map (nested values as JSON text, as skills-ref stringifies them); {} when absent. */
  metadata: Record<string, string>;
  /** `allowed-tools` split on whitespace (a YAML list is accepted too); [] when absent. */
  allowedTools: string[];
}

export function skillFields(frontmatter: Frontmatter): SkillFields {
  const metadata: Record<string, string> = {};
  const raw = frontmatter.metadata;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      Object.defineProperty(metadata, key, {
        value: typeof value === "string" ? value : JSON.stringify(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  const tools = frontmatter["allowed-tools"];
  const allowedTools = Array.isArray(tools)
    ? tools.map((t) => scalarText(t)).filter((t): t is string => t !== undefined && t !== "")
    : (scalarText(tools) ?? "").split(/\s+/).filter((t) => t !== "");
  return {
    name: scalarText(frontmatter.name),
    description: scalarText(frontmatter.description),
    license: scalarText(frontmatter.license),
    compatibility: scalarText(frontmatter.compatibility),
    metadata,
    allowedTools,
  };
}
