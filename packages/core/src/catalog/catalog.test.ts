import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  approximateTokenCounter,
  DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION,
  catalogKeepOrder,
  renderCatalog,
  renderCatalogWithCounts,
  selectCatalogEntries,
  type CatalogEntry,
  type CatalogOptions,
} from "./index.js";

const pdf: CatalogEntry = {
  id: "pdf",
  name: "pdf",
  description: "Extract text & tables from <PDF> files; say \"hi\" to 'forms'.",
  location: "/skills/pdf/SKILL.md",
  metadata: { name: "pdf", description: "x", license: "MIT" },
  source: "fs",
};
const git: CatalogEntry = {
  id: "git",
  name: "git",
  description: "Work with git repositories.",
  metadata: { name: "git", description: "y" },
  source: "fs",
};

describe("xml, skills-ref layout", () => {
  it("puts every tag and value on its own line, escapes name and description but not the location", () => {
    expect(renderCatalog([pdf, git])).toBe(
      [
        "<available_skills>",
        "<skill>",
        "<name>",
        "pdf",
        "</name>",
        "<description>",
        "Extract text &amp; tables from &lt;PDF&gt; files; say &quot;hi&quot; to &#x27;forms&#x27;.",
        "</description>",
        "<location>",
        "/skills/pdf/SKILL.md",
        "</location>",
        "</skill>",
        "<skill>",
        "<name>",
        "git",
        "</name>",
        "<description>",
        "Work with git repositories.",
        "</description>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("with no skills: empty (no catalog at all, as the client guide asks)", () => {
    expect(renderCatalog([])).toBe("");
    expect(renderCatalog([{ ...git, metadata: { "disable-model-invocation": true } }])).toBe("");
    expect(renderCatalog([git], { exclude: ["git"] })).toBe("");
  });

  it("does not escape a location", () => {
    expect(renderCatalog([{ ...git, location: "/a&b/<x>/SKILL.md" }])).toContain("\n/a&b/<x>/SKILL.md\n");
  });
});

describe("xml, indented layout", () => {
  it("indents by two spaces with one element per line", () => {
    expect(renderCatalog([pdf], { layout: "indented" })).toBe(
      [
        "<available_skills>",
        "  <skill>",
        "    <name>pdf</name>",
        "    <description>Extract text &amp; tables from &lt;PDF&gt; files; say &quot;hi&quot; to &#x27;forms&#x27;.</description>",
        "    <location>/skills/pdf/SKILL.md</location>",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });
  it("with no skills: empty", () => expect(renderCatalog([], { layout: "indented" })).toBe(""));
});

describe("agentscope", () => {
  const weather: CatalogEntry = {
    id: "weather_custom",
    name: "weather",
    description: "Forecasts <daily>.",
    metadata: {
      name: "weather",
      description: "ignored here",
      version: 2,
      owner: { team: "geo", "on call": "ana & bo", empty: null },
      tags: ["rain", null, "sun"],
      "9lives": true,
      nothing: null,
      "skill-id": "spoofed",
    },
    source: "custom",
  };

  it("renders the header, then metadata as nested XML in insertion order with <skill-id> last", () => {
    const text = renderCatalog([weather], { format: "agentscope" });
    const [header, rest] = text.split("\n\n<available_skills>\n");
    expect(header).toMatch(/^## Available Skills\n/);
    expect(header).toContain("load_skill_through_path");
    expect(rest).toBe(
      [
        "<skill>",
        "  <name>weather</name>",
        "  <description>Forecasts &lt;daily&gt;.</description>",
        "  <version>2</version>",
        "  <owner>",
        "    <team>geo</team>",
        '    <entry key="on call">ana &amp; bo</entry>',
        "  </owner>",
        "  <tags>",
        "    <item>rain</item>",
        "    <item>sun</item>",
        "  </tags>",
        '  <entry key="9lives">true</entry>',
        "  <skill-id>weather_custom</skill-id>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("exposeAllMetadata: false keeps name, description and skill-id", () => {
    expect(
      renderCatalog([weather], { format: "agentscope", exposeAllMetadata: false, instruction: "Use skills." }),
    ).toBe(
      [
        "Use skills.",
        "",
        "<available_skills>",
        "<skill>",
        "  <name>weather</name>",
        "  <description>Forecasts &lt;daily&gt;.</description>",
        "  <skill-id>weather_custom</skill-id>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("layout compact: one '- id (name): description' line per skill, escaped, whitespace folded, no metadata", () => {
    const same: CatalogEntry = { ...weather, id: "weather", description: "Forecasts\n  the   weather." };
    const text = renderCatalog([weather, same], { format: "agentscope", layout: "compact" });
    expect(text).toBe(
      [
        DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION,
        "",
        "<available_skills>",
        "- weather_custom (weather): Forecasts &lt;daily&gt;.",
        "- weather: Forecasts the weather.",
        "</available_skills>",
      ].join("\n"),
    );
    expect(DEFAULT_AGENTSCOPE_COMPACT_INSTRUCTION).toContain("the id before the colon");
    expect(
      renderCatalog([{ ...weather, label: "weather", description: 'Say "hi" & go' }], {
        format: "agentscope",
        layout: "compact",
      }),
    ).toContain('\n- weather: Say "hi" &amp; go\n');
    expect(
      renderCatalog([weather], { format: "agentscope", layout: "compact", instruction: "Use skills." }).startsWith(
        "Use skills.\n\n<available_skills>\n- ",
      ),
    ).toBe(true);
    // Budgets apply as in the element layout: past one, the tag says so and the last line points to search.
    const many = Array.from({ length: 30 }, (_, i) => ({ ...weather, id: `s${i}`, name: `s${i}` }));
    expect(renderCatalog(many, { format: "agentscope", layout: "compact", maxChars: 900 })).toMatch(
      /<available_skills truncated="true" shown="\d+" total="30">[\s\S]*search_skills/,
    );
  });

  it("a blank instruction means the default header; no skills means empty", () => {
    expect(renderCatalog([git], { format: "agentscope", instruction: "  " })).toBe(
      renderCatalog([git], { format: "agentscope" }),
    );
    expect(renderCatalog([], { format: "agentscope" })).toBe("");
  });
});

describe("markdown and json", () => {
  it("markdown: one bullet per skill, id shown when it differs from the name, location indented", () => {
    expect(renderCatalog([pdf, { ...git, id: "git_fs", description: "Work\nwith git." }], { format: "markdown" })).toBe(
      [
        "## Available skills",
        "",
        "- **pdf**: Extract text & tables from <PDF> files; say \"hi\" to 'forms'.",
        "  Location: /skills/pdf/SKILL.md",
        "- **git** (id: `git_fs`): Work with git.",
      ].join("\n"),
    );
    expect(renderCatalog([], { format: "markdown" })).toBe("");
  });

  it("json: always valid JSON with counts", () => {
    const parsed = JSON.parse(renderCatalog([pdf, git], { format: "json" })) as unknown;
    expect(parsed).toEqual({
      total: 2,
      shown: 2,
      truncated: false,
      skills: [
        { id: "pdf", name: "pdf", description: pdf.description, location: "/skills/pdf/SKILL.md", source: "fs" },
        { id: "git", name: "git", description: "Work with git repositories.", source: "fs" },
      ],
    });
    expect(JSON.parse(renderCatalog([], { format: "json" }))).toEqual({
      total: 0,
      shown: 0,
      truncated: false,
      skills: [],
    });
    expect(JSON.parse(renderCatalog([git], { format: "json", exposeAllMetadata: true }))).toMatchObject({
      skills: [{ metadata: { name: "git", description: "y" } }],
    });
  });
});

describe("selection", () => {
  const hidden: CatalogEntry = { ...git, id: "secret", name: "secret", metadata: { "disable-model-invocation": true } };
  const tagged: CatalogEntry = { ...git, id: "t", name: "t", metadata: { metadata: { tags: "Data, pdf" } } };
  const listed: CatalogEntry = { ...git, id: "l", name: "l", metadata: { tags: ["ops"] } };

  it.each<[string, CatalogOptions, string[]]>([
    ["hides disable-model-invocation", {}, ["pdf", "t", "l"]],
    ["includeHidden shows it", { includeHidden: true }, ["pdf", "secret", "t", "l"]],
    ["include", { include: ["l", "pdf"] }, ["pdf", "l"]],
    ["exclude", { exclude: ["pdf"] }, ["t", "l"]],
    ["tags (comma string, case-insensitive)", { tags: ["DATA"] }, ["t"]],
    ["tags (list)", { tags: ["ops", "pdf"] }, ["t", "l"]],
  ])("%s", (_label, options, ids) => {
    expect(selectCatalogEntries([pdf, hidden, tagged, listed], options).map((e) => e.id)).toEqual(ids);
  });
});

describe("budgets", () => {
  const many: CatalogEntry[] = Array.from({ length: 10 }, (_, i) => ({
    id: `skill-${i}`,
    name: `skill-${i}`,
    description: `Does thing number ${i}.`,
    metadata: {},
    source: "m",
  }));

  const notice = (left: number, shown: number, total: number) =>
    `${left} more skills are not listed here (${shown} of ${total} shown); call search_skills to find them by what they do.`;

  it("keeps whole entries that fit, and its last line says how many were left out and which tool finds them", () => {
    const full = renderCatalog(many, { layout: "indented" });
    const text = renderCatalog(many, { layout: "indented", maxChars: 500 });
    expect(text.length).toBeLessThanOrEqual(500);
    expect(full.length).toBeGreaterThan(500);
    const shown = (text.match(/<skill>/g) ?? []).length;
    expect(shown).toBeGreaterThan(0);
    expect(text.startsWith(`<available_skills truncated="true" shown="${shown}" total="10">`)).toBe(true);
    expect(text.split("\n").at(-1)).toBe(notice(10 - shown, shown, 10));
    expect(text).toContain("skill-0"); // one source: kept in input order
    expect(text).not.toContain("skill-9");
  });

  it("maxTokens without a tokenizer counts characters ÷ 4, rounded up", () => {
    const text = renderCatalog(many, { format: "markdown", maxTokens: 50 });
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toContain("skill-0");
    expect(approximateTokenCounter.count("abcde")).toBe(2);
  });

  it("markdown and json state the drop too", () => {
    const markdown = renderCatalog(many, { format: "markdown", maxChars: 300 });
    const [, left, shown] =
      /_(\d+) more skills are not listed here \((\d+) of 10 shown\); call search_skills to find them by what they do\._$/.exec(
        markdown,
      ) ?? [];
    expect(Number(left) + Number(shown)).toBe(10);
    expect(Number(shown)).toBeGreaterThan(0);
    const json = JSON.parse(renderCatalog(many, { format: "json", maxChars: 500 })) as {
      shown: number;
      total: number;
      truncated: boolean;
      skills: unknown[];
      searchTool: string;
      note: string;
    };
    expect({ shown: json.shown, total: json.total, truncated: json.truncated, searchTool: json.searchTool }).toEqual({
      shown: json.skills.length,
      total: 10,
      truncated: true,
      searchTool: "search_skills",
    });
    expect(json.note).toBe(notice(10 - json.shown, json.shown, 10));
  });

  it("names another search tool, or none", () => {
    expect(renderCatalog(many, { maxChars: 400, searchTool: "find_skill" })).toMatch(
      /; call find_skill to find them by what they do\.$/,
    );
    expect(renderCatalog(many, { maxChars: 400, searchTool: false })).toMatch(
      /\n\d+ more skills are not listed here \(\d+ of 10 shown\)\.$/,
    );
    expect(renderCatalog(many, { maxChars: 100_000 })).not.toContain("not listed");
  });

  it("priority decides what is kept; output keeps input order", () => {
    const prioritised = many
      .slice(0, 3)
      .map((e, i) => ({ ...e, description: `${e.description} ${"long ".repeat(30)}`, priority: [5, 0, 9][i] }));
    const budget = renderCatalog(prioritised, { format: "markdown", maxChars: 10_000 }).length - 20;
    const text = renderCatalog(prioritised, { format: "markdown", maxChars: budget });
    expect(text).toContain("(2 of 3 shown)");
    expect(text).toContain("skill-0");
    expect(text).toContain("skill-2");
    expect(text).not.toContain("skill-1");
    expect(text.indexOf("skill-0")).toBeLessThan(text.indexOf("skill-2"));
    // The caller's priorities override the entries' own.
    const flipped = renderCatalog(prioritised, { format: "markdown", maxChars: budget, priorities: { "skill-1": 10 } });
    expect(flipped).toContain("skill-1");
    expect(flipped).not.toContain("skill-0");
  });

  it("pinned skills are kept first: by option, then by frontmatter", () => {
    const budget = renderCatalog(many.slice(0, 2), { format: "markdown", maxChars: 10_000 }).length + 120;
    const pinned = renderCatalog(many, { format: "markdown", maxChars: budget, pinned: ["skill-9", "skill-7"] });
    expect(pinned).toContain("skill-9");
    expect(pinned).toContain("skill-7");
    expect(pinned).not.toContain("skill-0");
    const flagged = many.map((e) => (e.id === "skill-5" ? { ...e, metadata: { metadata: { pinned: "true" } } } : e));
    const text = renderCatalog(flagged, { format: "markdown", maxChars: budget });
    expect(text).toContain("skill-5");
    expect(text).toContain("skill-0");
    expect(text).not.toContain("skill-1");
  });

  it("takes skills from every source in turn, so no source vanishes", () => {
    const sources = ["alpha", "beta", "gamma", "delta"];
    const entries: CatalogEntry[] = sources.flatMap((source, s) =>
      Array.from({ length: s === 3 ? 2 : 20 }, (_, i) => ({
        id: `${source}-${i}`,
        name: `${source}-${i}`,
        description: `Skill ${i} of ${source}.`,
        metadata: {},
        source,
      })),
    );
    for (const maxChars of [400, 600, 1200]) {
      const text = renderCatalog(entries, { format: "markdown", maxChars });
      const shown = sources.filter((source) => text.includes(`**${source}-`));
      expect(shown, String(maxChars)).toEqual(sources);
      expect(text.length).toBeLessThanOrEqual(maxChars);
    }
    expect(
      catalogKeepOrder(entries)
        .slice(0, 5)
        .map((i) => entries[i]?.id),
    ).toEqual(["alpha-0", "beta-0", "gamma-0", "delta-0", "alpha-1"]);
  });

  it("json: a budget one character short of the full output leaves an entry out", () => {
    const full = renderCatalog(many, { format: "json" });
    const text = renderCatalog(many, { format: "json", maxChars: full.length - 1 });
    expect(text.length).toBeLessThan(full.length);
    const parsed = JSON.parse(text) as { shown: number; truncated: boolean };
    expect(parsed.truncated).toBe(true);
    expect(parsed.shown).toBeLessThan(10);
  });

  it("a budget smaller than anything keeps only the notice", () => {
    expect(renderCatalog(many, { maxChars: 5 })).toBe(
      `<available_skills truncated="true" shown="0" total="10">\n</available_skills>\n${notice(10, 0, 10)}`,
    );
  });

  it("maxEntryChars shortens descriptions with an ellipsis", () => {
    const long: CatalogEntry = { ...git, description: "word ".repeat(100).trim() };
    const text = renderCatalog([long], { layout: "indented", maxEntryChars: 120 });
    const entry = text.split("\n").slice(1, -1).join("\n");
    expect(entry.length).toBeLessThanOrEqual(120);
    expect(entry).toMatch(/<description>word word .*…<\/description>/);
    expect(text.startsWith("<available_skills>\n")).toBe(true);
  });

  it("the counts leave hidden skills out of the total", () => {
    const hidden: CatalogEntry = {
      id: "h",
      name: "h",
      description: "Hidden.",
      metadata: { "disable-model-invocation": true },
      source: "m",
    };
    expect(renderCatalogWithCounts([...many, hidden], { layout: "indented" })).toMatchObject({ shown: 10, total: 10 });
    expect(renderCatalogWithCounts([hidden])).toEqual({ text: "", shown: 0, total: 0 });
  });

  it("rejects nonsense limits", () => {
    expect(() => renderCatalog(many, { maxChars: -1 })).toThrow(RangeError);
    expect(() => renderCatalog(many, { format: "yaml" as never })).toThrow(/unknown catalog format/);
  });

  it("property: output never exceeds the budget (unless only the notice remains) and counts are true", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1500 }),
        fc.constantFrom("xml", "agentscope", "markdown", "json"),
        (maxChars, format) => {
          const options: CatalogOptions = { format: format as CatalogOptions["format"], maxChars };
          const text = renderCatalog(many, options);
          const shownCount = many.filter(
            (e) => text.includes(`skill-${e.id.slice(6)}`) && text.includes(`number ${e.id.slice(6)}.`),
          ).length;
          if (shownCount > 0) expect(text.length).toBeLessThanOrEqual(maxChars);
          if (format === "json") expect((JSON.parse(text) as { shown: number }).shown).toBe(shownCount);
          expect(renderCatalog(many, options)).toBe(text);
          // The counts come with the text: nobody reads them back out of it.
          expect(renderCatalogWithCounts(many, options)).toEqual({ text, shown: shownCount, total: many.length });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("maxEntryChars with metadata", () => {
  it("drops extra metadata before shortening the description", () => {
    const entry: CatalogEntry = {
      id: "m",
      name: "m",
      description: "Short.",
      metadata: { name: "m", description: "Short.", owner: { team: "a-very-long-team-name" } },
      source: "s",
    };
    const full = renderCatalog([entry], { format: "agentscope", instruction: "H" });
    expect(full).toContain("<owner>");
    const capped = renderCatalog([entry], { format: "agentscope", instruction: "H", maxEntryChars: 95 }); // the lean entry is 91 chars;
    expect(capped).toBe(
      [
        "H",
        "",
        "<available_skills>",
        "<skill>",
        "  <name>m</name>",
        "  <description>Short.</description>",
        "  <skill-id>m</skill-id>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });
});
