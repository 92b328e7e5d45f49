import type { Frontmatter, FrontmatterValue } from "../types.js";
import type { CatalogCounts } from "./types.js";

/** HTML escaping as skills-ref does it (Python's html.escape): & < > " '. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}
const HTML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/** The five predefined XML entities. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
}
const XML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text content (not an attribute): only the markup characters; quotes stay, they cost tokens and mean nothing there. */
export function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => XML_ENTITIES[c] ?? c);
}

/** Shortens to at most `max` code points, ending in `…` when cut (never splits a surrogate pair). */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  if (max <= 0) return "";
  return `${points
    .slice(0, max - 1)
    .join("")
    .trimEnd()}…`;
}

/** Tags from `tags` or `metadata.tags`, as a list or a comma-separated string; lowercased, trimmed. */
export function skillTags(frontmatter: Frontmatter): string[] {
  const nested = frontmatter.metadata;
  const raw: FrontmatterValue | undefined =
    frontmatter.tags ??
    (nested !== null && typeof nested === "object" && !Array.isArray(nested) ? nested.tags : undefined);
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [];
  return list
    .filter((t): t is string | number => typeof t === "string" || typeof t === "number")
    .map((t) => String(t).trim().toLowerCase())
    .filter((t) => t !== "");
}

/** `disable-model-invocation: true` (or the string "true") hides a skill from the model's catalog. */
export function isHiddenFromModel(frontmatter: Frontmatter): boolean {
  const flag = frontmatter["disable-model-invocation"];
  return flag === true || (typeof flag === "string" && flag.trim().toLowerCase() === "true");
}

/** The last line of a catalog that left skills out: how many, and which tool finds them. */
export function omittedNotice(counts: CatalogCounts): string {
  const left = counts.total - counts.shown;
  const what = `${left} more skill${left === 1 ? " is" : "s are"} not listed here (${counts.shown} of ${counts.total} shown)`;
  return counts.searchTool === false ? `${what}.` : `${what}; call ${counts.searchTool} to find them by what they do.`;
}

/** `true`, `"true"` (any case) or `"yes"` in the frontmatter or its `metadata` map. */
function flag(frontmatter: Frontmatter, key: string): FrontmatterValue | undefined {
  const nested = frontmatter.metadata;
  return (
    frontmatter[key] ??
    (nested !== null && typeof nested === "object" && !Array.isArray(nested) ? nested[key] : undefined)
  );
}

/** `pinned: true` in a skill's frontmatter or metadata keeps it first in a budgeted catalog. */
export function isPinned(frontmatter: Frontmatter): boolean {
  const value = flag(frontmatter, "pinned");
  return value === true || (typeof value === "string" && ["true", "yes"].includes(value.trim().toLowerCase()));
}

/** `priority` in a skill's frontmatter or metadata (a number, or a string holding one); undefined otherwise. */
export function catalogPriority(frontmatter: Frontmatter): number | undefined {
  const value = flag(frontmatter, "priority");
  const number =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
}
