import { agentscopeRenderer } from "./agentscope.js";
import { jsonRenderer } from "./json.js";
import { markdownRenderer } from "./markdown.js";
import { isHiddenFromModel, skillTags, truncate } from "./text.js";
import type { CatalogCounts, CatalogEntry, CatalogOptions, Renderer } from "./types.js";
import { indentedXml, skillsRefXml } from "./xml.js";

export type { CatalogCounts, CatalogEntry, CatalogFormat, CatalogOptions } from "./types.js";
export { DEFAULT_AGENTSCOPE_INSTRUCTION, LOAD_SKILL_TOOL_NAME } from "./agentscope.js";
export { escapeHtml, escapeXml, isHiddenFromModel, skillTags } from "./text.js";

export const CATALOG_FORMATS = ["xml", "agentscope", "markdown", "json"] as const;

function rendererFor(options: CatalogOptions): Renderer {
  const format = options.format ?? "xml";
  switch (format) {
    case "xml":
      return options.layout === "indented" ? indentedXml : skillsRefXml;
    case "agentscope":
      return agentscopeRenderer(options);
    case "markdown":
      return markdownRenderer;
    case "json":
      return jsonRenderer(options);
    default:
      throw new TypeError(`unknown catalog format ${JSON.stringify(format)}; use one of ${CATALOG_FORMATS.join(", ")}`);
  }
}

/** The entries a catalog may show: hidden skills and filtered-out ids/tags removed, input order kept. */
export function selectCatalogEntries(entries: readonly CatalogEntry[], options: CatalogOptions = {}): CatalogEntry[] {
  const include = options.include ? new Set(options.include) : undefined;
  const exclude = new Set(options.exclude ?? []);
  const tags = options.tags?.map((t) => t.trim().toLowerCase());
  return entries.filter(
    (e) =>
      (options.includeHidden || !isHiddenFromModel(e.metadata)) &&
      (!include || include.has(e.id)) &&
      !exclude.has(e.id) &&
      (!tags || tags.length === 0 || skillTags(e.metadata).some((t) => tags.includes(t))),
  );
}

/** One entry's text within `maxEntryChars`: extra metadata goes first, then the description is shortened. */
function renderEntry(renderer: Renderer, entry: CatalogEntry, maxEntryChars: number | undefined): string {
  const full = renderer.entry(entry);
  if (maxEntryChars === undefined || full.length <= maxEntryChars) return full;
  const lean: CatalogEntry = { ...entry, metadata: { name: entry.name, description: entry.description } };
  const leanFull = renderer.entry(lean);
  if (leanFull.length <= maxEntryChars) return leanFull;
  const points = Array.from(entry.description).length;
  let best = renderer.entry({ ...lean, description: truncate(entry.description, 1) });
  let low = 1;
  let high = points - 1; // the longest shortened description that fits (binary search: escaping changes lengths)
  while (low <= high) {
    const mid = (low + high) >> 1;
    const text = renderer.entry({ ...lean, description: truncate(entry.description, mid) });
    if (text.length <= maxEntryChars) {
      best = text;
      low = mid + 1;
    } else high = mid - 1;
  }
  return best;
}

/**
 * Renders a catalog. Pure and deterministic: the same entries and options always give the same text, so prompts
 * can be cached. Entries keep their input order (pass them in precedence order).
 *
 * Budget (`maxChars`, `maxTokens` × 4): whole entries are dropped, lowest `priority` first and, among equals, the
 * last in input order first, until the output fits; the output then says how many it shows of how many
 * (`truncated="true" shown="N" total="M"` in XML, a note in Markdown, fields in JSON). The notice itself is never
 * dropped, even when the budget is smaller than it.
 */
export function renderCatalog(entries: readonly CatalogEntry[], options: CatalogOptions = {}): string {
  const renderer = rendererFor(options);
  const selected = selectCatalogEntries(entries, options);
  const budget = Math.min(options.maxChars ?? Infinity, options.maxTokens === undefined ? Infinity : options.maxTokens * 4);
  for (const [name, value] of [["maxChars", options.maxChars], ["maxTokens", options.maxTokens], ["maxEntryChars", options.maxEntryChars]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  const chunks = selected.map((e) => renderEntry(renderer, e, options.maxEntryChars));
  const total = selected.length;
  const kept = chunks.map(() => true);
  let shown = total;
  let sum = chunks.reduce((n, c) => n + c.length, 0);
  const lengthWith = (counts: CatalogCounts): number => {
    const frame = renderer.frame(counts);
    if (counts.shown === 0) return frame.empty.length;
    return frame.prefix.length + sum + frame.separator.length * (counts.shown - 1) + frame.suffix.length;
  };
  if (lengthWith({ shown, total, truncated: false }) > budget) {
    const dropOrder = selected
      .map((e, index) => ({ index, priority: e.priority ?? 0 }))
      .sort((a, b) => a.priority - b.priority || b.index - a.index);
    for (const { index } of dropOrder) {
      // Nothing dropped yet means nothing truncated: the untruncated length is what counts (it was over budget), even
      // when the truncated frame would be shorter (JSON's `false` → `true`).
      if (shown < total && lengthWith({ shown, total, truncated: true }) <= budget) break;
      kept[index] = false;
      shown--;
      sum -= chunks[index]?.length ?? 0;
    }
  }
  const counts: CatalogCounts = { shown, total, truncated: shown < total };
  const frame = renderer.frame(counts);
  if (shown === 0) return frame.empty;
  return frame.prefix + chunks.filter((_, i) => kept[i]).join(frame.separator) + frame.suffix;
}
