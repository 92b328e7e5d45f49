import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { findFileMentions, followReferences } from "./references.js";

describe("findFileMentions", () => {
  it.each([
    ["a Markdown link", "See [guide](references/guide.md#setup).", [["references/guide.md", 1, 13, "link"]]],
    ["an image", "![d](assets/d%20x.png)", [["assets/d x.png", 1, 6, "link"]]],
    ["a path in code", "Run `python scripts/fill.py --in x`.", [["scripts/fill.py", 1, 13, "path"]]],
    ["a path at the end of a sentence", "Read references/api.md.", [["references/api.md", 1, 6, "path"]]],
    ["a bare Markdown name", "Open FORMS.md now", [["FORMS.md", 1, 6, "name"]]],
    ["URLs, anchors and absolute paths", "[a](https://x/a.md) [b](#b) [c](/etc/c.md) mailto:x", []],
    ["patterns", "scripts/<tool>.sh assets/*.png references/${name}.md scripts/… references/...", []],
    ["a second line", "x\n  see scripts/a.sh", [["scripts/a.sh", 2, 7, "path"]]],
  ] as Array<[string, string, Array<[string, number, number, string]>]>)("%s", (_label, text, expected) => {
    expect(findFileMentions(text).map((m) => [m.target, m.line, m.column, m.how])).toEqual(expected);
  });

  it("property: never throws, and each path or name mention is found where it says", () => {
    const piece = fc.constantFrom(
      "scripts/",
      "references/",
      "a.md",
      "B.MD",
      "[x](",
      ")",
      "`",
      " ",
      "\n",
      ".",
      "/",
      "..",
      "#",
      "*",
      "<",
      "é",
      "技",
      "https://",
      "x",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        const lines = text.split("\n");
        for (const m of findFileMentions(text)) {
          if (m.how === "link") continue;
          expect((lines[m.line - 1] ?? "").slice(m.column - 1).startsWith(m.target)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * The scan without its shortcuts (each pattern run over the whole text, every line indexed up front): the oracle the
 * prefilters in findFileMentions must agree with on every text.
 */
function unfilteredMentions(text: string): Array<[string, number, number, string]> {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const at = (offset: number): [number, number] => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line++;
    return [line + 1, offset - starts[line]! + 1];
  };
  const out: Array<[string, number, number, string]> = [];
  const linked = new Set<number>();
  for (const m of text.matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)\n]*)?\)/g)) {
    const raw = m[1] ?? "";
    if (raw === "" || raw.startsWith("#") || raw.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(raw)) continue;
    let target = raw.replace(/[#?].*$/, "");
    try {
      target = decodeURIComponent(target);
    } catch {
      // kept as written
    }
    if (target === "") continue;
    const offset = m.index + m[0].indexOf(raw);
    linked.add(offset);
    out.push([target, ...at(offset), "link"]);
  }
  for (const m of text.matchAll(/(?<![\w./-])(?:\.\/)?(?:scripts|references|assets)\/[^\s`'"()[\]<>{},;|*$…]*/g)) {
    if (linked.has(m.index) || /[<>{}*$…]/.test(text[m.index + m[0].length] ?? "") || m[0].includes("...")) continue;
    out.push([m[0].replace(/[.,:;!?]+$/, ""), ...at(m.index), "path"]);
  }
  for (const m of text.matchAll(/(?<![\w./-])[\w][\w.-]*\.md\b(?![\w/-])/gi)) {
    if (!linked.has(m.index)) out.push([m[0], ...at(m.index), "name"]);
  }
  return out.sort((a, b) => a[1] - b[1] || a[2] - b[2]);
}

describe("findFileMentions shortcuts", () => {
  it("property: finds exactly what the unfiltered scan finds, in every letter case and with the fixed parts split up", () => {
    const piece = fc.constantFrom(
      "scripts",
      "references",
      "assets",
      "/",
      "./",
      "x.md",
      "GUIDE.MD",
      "a.Md",
      "b.mD",
      ".m",
      "d",
      "M",
      "D",
      ".",
      "md",
      "[t](",
      "](",
      "]",
      "(",
      ")",
      "![i](",
      "#",
      "?",
      "<",
      ">",
      "*",
      "...",
      "`",
      " ",
      "\n",
      "\r\n",
      "é",
      "技",
      "%20",
      "https://",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(findFileMentions(text).map((m) => [m.target, m.line, m.column, m.how])).toEqual(
          unfilteredMentions(text),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

describe("followReferences", () => {
  it("reads each Markdown file once even when files point at each other, and stops at the limit", () => {
    const texts: Record<string, string> = { "a.md": "see b.md", "b.md": "see a.md and c.md", "c.md": "" };
    const reads: string[] = [];
    const graph = followReferences({
      body: "start at a.md",
      files: ["SKILL.md", "a.md", "b.md", "c.md"],
      readText: (p) => (reads.push(p), texts[p]),
    });
    expect(reads).toEqual(["a.md", "b.md", "c.md"]);
    expect([...graph.reached].sort()).toEqual(["a.md", "b.md", "c.md"]);
    const limited: string[] = [];
    followReferences({
      body: "start at a.md",
      files: ["SKILL.md", "a.md", "b.md", "c.md"],
      readText: (p) => (limited.push(p), texts[p]),
      maxFollowed: 2,
    });
    expect(limited).toEqual(["a.md"]);
  });

  it("a directory mention reaches every file inside it; a path leaving the skill is not judged", () => {
    const graph = followReferences({
      body: "Schemas live in assets/schemas/. See ../other/x.md.",
      files: ["SKILL.md", "assets/schemas/a.xsd", "assets/schemas/b.xsd"],
    });
    expect([...graph.reached].sort()).toEqual(["assets/schemas/a.xsd", "assets/schemas/b.xsd"]);
    expect(graph.broken).toEqual([]);
  });
});
