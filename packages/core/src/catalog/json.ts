import { omittedNotice } from "./text.js";
import type { CatalogCounts, CatalogEntry, Frame, Renderer } from "./types.js";

/**
 * `{"total":M,"shown":N,"truncated":bool,"skills":[…]}` with one skill object per line. Always valid JSON, so "no
 * skills" is `"skills": []`, not an empty string.
 */
export function jsonRenderer(options: { exposeAllMetadata?: boolean }): Renderer {
  const exposeAll = options.exposeAllMetadata ?? false;
  return {
    entry(entry: CatalogEntry): string {
      return JSON.stringify({
        id: entry.id,
        name: entry.name,
        description: entry.description,
        ...(entry.location !== undefined && { location: entry.location }),
        source: entry.source,
        ...(exposeAll && { metadata: entry.metadata }),
      });
    },
    frame(counts: CatalogCounts): Frame {
      const head = `{\n  "total": ${counts.total},\n  "shown": ${counts.shown},\n  "truncated": ${counts.truncated},\n  "skills": [`;
      // When skills were left out, the last member says how to find them (JSON's own last line is its brace).
      const tail = counts.truncated
        ? `,\n  "searchTool": ${JSON.stringify(counts.searchTool === false ? null : counts.searchTool)},\n  "note": ${JSON.stringify(omittedNotice(counts))}\n}`
        : "\n}";
      return { prefix: `${head}\n    `, separator: ",\n    ", suffix: `\n  ]${tail}`, empty: `${head}]${tail}` };
    },
  };
}
