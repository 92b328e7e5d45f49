import { agentscopeRenderer } from "./agentscope.js";
import { jsonRenderer } from "./json.js";
import { markdownRenderer } from "./markdown.js";
import { isHiddenFromModel, isPinned, skillTags, truncate } from "./text.js";
import { approximateTokenCounter } from "./tokens.js";
import type { CatalogEntry, CatalogOptions, RenderedCatalog, Renderer } from "./types.js";
import { indentedXml, skillsRefXml } from "./xml.js";

export type { CatalogCounts, CatalogEntry, CatalogFormat, CatalogOptions, RenderedCatalog } from "./types.js";
export {
  DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION,
  DEFAULT_AGENTSCOPE_INSTRUCTION,
  LOAD_SKILL_TOOL_NAME,
} from "./agentscope.js";
export { catalogPriority } from "./text.js";
export {
  approximateTokenCounter,
  loadTokenCounter,
  TOKEN_ENCODINGS,
  type TokenCounter,
  type TokenEncoding,
} from "./tokens.js";

/** The search tool a budgeted catalog points the model to when it leaves skills out. */
export const DEFAULT_SEARCH_TOOL = "search_skills";

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

/** Entries in the order a budget keeps them: pinned first, then by priority, then round-robin across sources. */
export function catalogKeepOrder(
  entries: readonly CatalogEntry[],
  options: Pick<CatalogOptions, "pinned" | "priorities"> = {},
): number[] {
  const pinnedRank = new Map((options.pinned ?? []).map((id, i) => [id, i]));
  const pinned = (e: CatalogEntry) => pinnedRank.get(e.id) ?? (isPinned(e.metadata) ? pinnedRank.size : Infinity);
  const priority = (e: CatalogEntry) => options.priorities?.[e.id] ?? e.priority ?? 0;
  // Round-robin: the k-th entry of each source (in input order) comes before any source's (k+1)-th.
  const turn = new Map<number, number>();
  const seen = new Map<string, number>();
  const sourceRank = new Map<string, number>();
  entries.forEach((e, i) => {
    if (!sourceRank.has(e.source)) sourceRank.set(e.source, sourceRank.size);
    const k = seen.get(e.source) ?? 0;
    seen.set(e.source, k + 1);
    turn.set(i, k);
  });
  return entries
    .map((_, i) => i)
    .sort((a, b) => {
      const [x, y] = [entries[a] as CatalogEntry, entries[b] as CatalogEntry];
      return (
        pinned(x) - pinned(y) ||
        priority(y) - priority(x) ||
        (turn.get(a) ?? 0) - (turn.get(b) ?? 0) ||
        (sourceRank.get(x.source) ?? 0) - (sourceRank.get(y.source) ?? 0) ||
        a - b
      );
    });
}

function checkBudget(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new RangeError(`${name} must be a non-negative number, got ${value}`);
}

/**
 * Renders a catalog. Pure and deterministic: the same entries and options always give the same text, so prompts
 * can be cached. Shown entries keep their input order (pass them in precedence order).
 *
 * Under a budget (`maxChars`; `maxTokens` as `tokenCounter` counts, characters ÷ 4 by default) the catalog chooses
 * what to keep: pinned skills first, then higher `priority`, then round-robin across sources so that no source
 * vanishes; an entry that does not fit is skipped and smaller ones after it may still fit. The final text is counted
 * whole, so it is within the budget by the named tokenizer. When skills were left out, the output says how many
 * and its last line names the search tool that finds them (`searchTool`, default `search_skills`). That notice is
 * never dropped, even when the budget is smaller than it.
 */
export function renderCatalog(entries: readonly CatalogEntry[], options: CatalogOptions = {}): string {
  return renderCatalogWithCounts(entries, options).text;
}

/**
 * `renderCatalog` with what the budget decided: how many entries the text shows of how many it could show (hidden and
 * filtered-out skills not counted), so a caller knows whether skills were left out without reading the text back.
 */
export function renderCatalogWithCounts(
  entries: readonly CatalogEntry[],
  options: CatalogOptions = {},
): RenderedCatalog {
  checkBudget("maxChars", options.maxChars);
  checkBudget("maxTokens", options.maxTokens);
  checkBudget("maxEntryChars", options.maxEntryChars);
  const renderer = rendererFor(options);
  const selected = selectCatalogEntries(entries, options);
  const counter = options.tokenCounter ?? approximateTokenCounter;
  const searchTool = options.searchTool === undefined ? DEFAULT_SEARCH_TOOL : options.searchTool;
  const chunks = selected.map((e) => renderEntry(renderer, e, options.maxEntryChars));
  const total = selected.length;
  const render = (kept: readonly boolean[], shown: number): string => {
    const frame = renderer.frame({ shown, total, truncated: shown < total, searchTool });
    if (shown === 0) return frame.empty;
    return frame.prefix + chunks.filter((_, i) => kept[i]).join(frame.separator) + frame.suffix;
  };
  const maxChars = options.maxChars ?? Infinity;
  const maxTokens = options.maxTokens ?? Infinity;
  const fits = (text: string) =>
    text.length <= maxChars && (maxTokens === Infinity || counter.count(text) <= maxTokens);
  const all = chunks.map(() => true);
  const whole = render(all, total);
  if (fits(whole)) return { text: whole, shown: total, total };

  // Greedy choice by estimate (parts counted separately), then exact trimming of the real text.
  const tokens = maxTokens === Infinity ? undefined : chunks.map((c) => counter.count(c));
  const frameCost = (shown: number) => {
    const frame = renderer.frame({ shown, total, truncated: true, searchTool });
    return {
      chars: frame.prefix.length + frame.suffix.length,
      sepChars: frame.separator.length,
      tokens: tokens ? counter.count(frame.prefix + frame.suffix) + 1 : 0,
      sepTokens: tokens ? counter.count(frame.separator) : 0,
    };
  };
  const kept = chunks.map(() => false);
  const order: number[] = [];
  let chars = 0;
  let tokenSum = 0;
  for (const index of catalogKeepOrder(selected, options)) {
    const shown = order.length + 1;
    const cost = frameCost(shown);
    const nextChars = chars + (chunks[index]?.length ?? 0);
    const nextTokens = tokenSum + (tokens?.[index] ?? 0);
    if (cost.chars + nextChars + cost.sepChars * (shown - 1) > maxChars) continue;
    if (tokens && cost.tokens + nextTokens + cost.sepTokens * (shown - 1) > maxTokens) continue;
    kept[index] = true;
    order.push(index);
    chars = nextChars;
    tokenSum = nextTokens;
  }
  let text = render(kept, order.length);
  while (order.length > 0 && !fits(text)) {
    kept[order.pop() as number] = false; // the estimate missed by a few tokens: drop the last one chosen
    text = render(kept, order.length);
  }
  return { text, shown: order.length, total };
}
