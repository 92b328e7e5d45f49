import { omittedNotice } from "./text.js";
import type { CatalogCounts, CatalogEntry, Frame, Renderer } from "./types.js";

/** Keeps a value on one Markdown list line. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/**
 * A Markdown section: `## Available skills`, then one bullet per skill (`**name**`, the id when it differs, the
 * description, and the location on an indented line). Truncation is stated in an italic line. No skills: empty.
 */
export const markdownRenderer: Renderer = {
  entry(entry: CatalogEntry): string {
    const id = entry.id === entry.name ? "" : ` (id: \`${entry.id}\`)`;
    const line = `- **${oneLine(entry.name)}**${id}: ${oneLine(entry.description)}`;
    return entry.location === undefined ? line : `${line}\n  Location: ${entry.location}`;
  },
  frame(counts: CatalogCounts): Frame {
    const note = counts.truncated ? `\n\n_${omittedNotice(counts)}_` : "";
    return {
      prefix: "## Available skills\n\n",
      separator: "\n",
      suffix: note,
      empty: counts.total === 0 ? "" : `## Available skills${note}`,
    };
  },
};
