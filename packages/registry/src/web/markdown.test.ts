// The SKILL.md renderer against a table of attacks: nothing that runs, restyles or navigates to script survives.
import { describe, expect, it } from "vitest";
import { renderMarkdown, sanitize } from "./markdown.js";

const ATTACKS: Array<[string, string]> = [
  ["script tag", "<script>alert(1)</script>"],
  ["img onerror", '<img src=x onerror="alert(1)">'],
  ["svg onload", "<svg onload=alert(1)></svg>"],
  ["javascript link (markdown)", "[click](javascript:alert(1))"],
  ["javascript link, mixed case and entities", "[click](JaVa&#115;cript:alert(1))"],
  ["javascript link with a tab", "[click](java\tscript:alert(1))"],
  ["data: link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
  ["data: image", "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)"],
  ["vbscript link", "[x](vbscript:msgbox(1))"],
  ["raw anchor with a javascript href", '<a href="javascript:alert(1)">x</a>'],
  ["raw image with a data src", '<img src="data:image/svg+xml,<svg onload=alert(1)>">'],
  ["style injection", "<style>body{display:none}</style>"],
  ["inline style attribute", '<p style="position:fixed;inset:0">x</p>'],
  ["iframe", '<iframe src="https://evil.example"></iframe>'],
  ["form", '<form action="https://evil.example"><input name=a></form>'],
  ["autolink javascript", "<javascript:alert(1)>"],
  ["reference link to javascript", "[a][1]\n\n[1]: javascript:alert(1)"],
  ["html comment breakout", "<!-- --><script>alert(1)</script> -->"],
  ["meta refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
];

describe("renderMarkdown", () => {
  it.each(ATTACKS)("%s renders inert", async (_, source) => {
    const { html } = await renderMarkdown(`# Title\n\n${source}\n`);
    expect(html).not.toMatch(/<script|<style|<iframe|<form|<svg|<meta|<input/i);
    expect(html).not.toMatch(/<[^>]+\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/<[^>]+\sstyle\s*=/i);
    expect(html).not.toMatch(/<[^>]*\s(href|src)\s*=\s*"(?:javascript|data|vbscript):/i);
    expect(html).not.toMatch(/<[^>]*\s(href|src)\s*=\s*"[^"]*script:/i);
  });

  it("keeps ordinary Markdown and marks links nofollow", async () => {
    const { html } = await renderMarkdown(
      "# Hi\n\nSome *text* and [a link](https://example.com/x).\n\n```sh\necho hi\n```\n",
    );
    expect(html).toContain("<h3>Hi</h3>");
    expect(html).toContain("<em>text</em>");
    expect(html).toContain('<a href="https://example.com/x" rel="nofollow noopener noreferrer">a link</a>');
    expect(html).toContain("echo hi");
  });

  it("shows raw HTML as text instead of dropping what the author wrote", async () => {
    expect((await renderMarkdown("<b>bold</b>")).html).toContain("&lt;b&gt;bold&lt;/b&gt;");
  });

  it("points relative links at the skill's file view and leaves ../ alone", async () => {
    expect((await renderMarkdown("[ref](references/a.md)", { fileBase: "/ui/skills/s/files" })).html).toContain(
      'href="/ui/skills/s/files/references/a.md"',
    );
    expect((await renderMarkdown("[up](../../admin)", { fileBase: "/ui/skills/s/files" })).html).not.toContain(
      "/ui/skills/s/files/../",
    );
  });

  it("cuts input over the cap at a line end", async () => {
    const big = "para line\n".repeat(50_000);
    const { html, truncated } = await renderMarkdown(big, { maxBytes: 10_000 });
    expect(truncated).toBe(true);
    expect(html.length).toBeLessThan(20_000);
    expect((await renderMarkdown("small")).truncated).toBe(false);
  });

  it("sanitises HTML given directly (the allow-list on its own)", async () => {
    const out = await sanitize(
      '<a href="javascript:x" onclick="y">a</a><img src="https://x/y.png" onerror="z"><div class="c" style="s">d</div>',
    );
    expect(out).toBe('<a rel="nofollow noopener noreferrer">a</a><img src="https://x/y.png" />d');
  });
});
