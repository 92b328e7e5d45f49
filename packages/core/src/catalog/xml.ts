import type { CatalogCounts, CatalogEntry, Frame, Renderer } from "./types.js";
import { escapeHtml, omittedNotice } from "./text.js";

function openTag(counts: CatalogCounts): string {
  return counts.truncated
    ? `<available_skills truncated="true" shown="${counts.shown}" total="${counts.total}">`
    : "<available_skills>";
}

/**
 * skills-ref `to-prompt`: every tag and every value on its own line, unindented; name and description HTML-escaped,
 * location verbatim. With no skills: empty, like every text format (skills-ref itself prints the two root tags;
 * docs/decisions/0080-empty-catalog-is-empty.md says why Skillport does not).
 */
export const skillsRefXml: Renderer = {
  entry(entry: CatalogEntry): string {
    const lines = [
      "<skill>",
      "<name>",
      escapeHtml(entry.name),
      "</name>",
      "<description>",
      escapeHtml(entry.description),
      "</description>",
    ];
    if (entry.location !== undefined) lines.push("<location>", entry.location, "</location>");
    lines.push("</skill>");
    return lines.join("\n");
  },
  frame: xmlFrame,
};

/** The client guide's layout: the same elements, two-space indented, one element per line. No skills: empty. */
export const indentedXml: Renderer = {
  entry(entry: CatalogEntry): string {
    const lines = [
      "  <skill>",
      `    <name>${escapeHtml(entry.name)}</name>`,
      `    <description>${escapeHtml(entry.description)}</description>`,
    ];
    if (entry.location !== undefined) lines.push(`    <location>${entry.location}</location>`);
    lines.push("  </skill>");
    return lines.join("\n");
  },
  frame: xmlFrame,
};

/** Both layouts: the root element, then, when skills were left out, one line saying how to find them. */
function xmlFrame(counts: CatalogCounts): Frame {
  const open = openTag(counts);
  const close = counts.truncated ? `</available_skills>\n${omittedNotice(counts)}` : "</available_skills>";
  return {
    prefix: `${open}\n`,
    separator: "\n",
    suffix: `\n${close}`,
    empty: counts.total === 0 ? "" : `${open}\n${close}`,
  };
}
