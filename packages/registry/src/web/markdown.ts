import type { default as MarkdownItClass } from "markdown-it";
import type sanitizeHtml from "sanitize-html";
import { importOptional } from "@skillport/core/internal";

/** Bytes of Markdown rendered; the rest is cut and the page says so. Default 256 KiB. */
export const DEFAULT_MAX_MARKDOWN_BYTES = 256 * 1024;

interface Renderer {
  md: InstanceType<typeof MarkdownItClass>;
  sanitizeHtml: typeof sanitizeHtml;
}

let renderer: Promise<Renderer> | undefined;

/** markdown-it and sanitize-html are optional peers (decision 0295): loaded on the first page that renders. */
function loadRenderer(): Promise<Renderer> {
  renderer ??= (async () => {
    const feature = "rendering SKILL.md in the registry's web UI";
    const { default: MarkdownIt } = await importOptional("markdown-it", feature, () => import("markdown-it"));
    const { default: sanitizeHtml } = await importOptional("sanitize-html", feature, () => import("sanitize-html"));
    return { md: new MarkdownIt({ html: false, linkify: false, typographer: false }), sanitizeHtml };
  })();
  renderer.catch(() => (renderer = undefined));
  return renderer;
}

const ALLOWED_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "br",
  "hr",
  "blockquote",
  "pre",
  "code",
  "em",
  "strong",
  "s",
  "del",
  "ul",
  "ol",
  "li",
  "a",
  "img",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
];

/**
 * A SKILL.md body as HTML that cannot run or restyle anything: markdown-it with raw HTML off (tags come out as text),
 * then an allow-list sanitiser (sanitize-html): only the tags above (headings moved down two levels), only `href`/`src`/`alt`/`title`/`start`, only
 * http, https and mailto URLs (relative links are rewritten to the skill's file view under `fileBase`), no `style`,
 * no `class`, no event handler. Input over `maxBytes` is cut at a line end before rendering.
 */
export async function renderMarkdown(
  text: string,
  options: { fileBase?: string; maxBytes?: number } = {},
): Promise<{ html: string; truncated: boolean }> {
  const max = options.maxBytes ?? DEFAULT_MAX_MARKDOWN_BYTES;
  const bytes = Buffer.from(text, "utf8");
  let source = text;
  const truncated = bytes.length > max;
  if (truncated) {
    source = bytes
      .subarray(0, max)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    const cut = source.lastIndexOf("\n");
    if (cut > 0) source = source.slice(0, cut);
  }
  const { md } = await loadRenderer();
  return { html: await sanitize(md.render(source), options.fileBase), truncated };
}

/** The allow-list sanitiser on its own (exported for its table of attacks). */
export async function sanitize(html: string, fileBase?: string): Promise<string> {
  const { sanitizeHtml } = await loadRenderer();
  return sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: { a: ["href", "title", "rel"], img: ["src", "alt", "title"], ol: ["start"] },
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: ["http", "https"] },
    allowProtocolRelative: false,
    disallowedTagsMode: "discard",
    nestingLimit: 64,
    // The page has its own h1 and h2s: the readme's headings start at h3 (one outline for screen readers).
    transformTags: {
      h1: "h3",
      h2: "h4",
      h3: "h5",
      h4: "h6",
      h5: "h6",
      a: (tagName, attribs) => {
        const href = attribs.href;
        const out: Record<string, string> = { ...attribs, rel: "nofollow noopener noreferrer" };
        if (href !== undefined && fileBase !== undefined && isRelative(href))
          out.href = `${fileBase}/${href.replace(/^\.\//, "")}`;
        return { tagName, attribs: out };
      },
    },
  });
}

function isRelative(href: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith("/") && !href.startsWith("#") && !href.includes("..");
}
