import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  analyseSkill,
  DEFAULT_MIN_CONFIDENCE,
  SkillSearchIndex,
  searchTokens,
  type SearchDocument,
  type SearchHit,
} from "./index.js";

/** A threshold a caller asks for when it wants abstention (the default shows every ranked hit). */
const ASKED = 0.3;

// The regression set: 12 skills described the way authors write them.
const skills: SearchDocument[] = [
  {
    id: "pdf-tools",
    description: "Extract text and tables from PDF files, fill PDF forms, merge and split documents.",
    metadata: { tags: ["documents", "pdf"] },
  },
  {
    id: "spreadsheet",
    description: "Create, read and edit Excel spreadsheets and CSV files: formulas, pivot tables, charts.",
    metadata: { when_to_use: "The user works with xlsx or csv data." },
  },
  {
    id: "git-workflow",
    description: "Commit, branch, rebase and resolve merge conflicts in git repositories.",
    metadata: { tags: "git, version control" },
  },
  {
    id: "docker-deploy",
    description: "Build container images and deploy services with Docker and docker compose.",
    metadata: { tags: ["containers", "deployment"] },
  },
  {
    id: "sql-query",
    description: "Write and optimise SQL queries for PostgreSQL and MySQL databases; explain query plans.",
    metadata: {},
  },
  {
    id: "image-resize",
    description: "Resize, crop, rotate and convert images between PNG, JPEG and WebP.",
    metadata: { tags: ["images", "photos"] },
  },
  {
    id: "email-draft",
    description: "Draft professional emails and replies with the right tone.",
    metadata: { when_to_use: "Writing a message to send by mail." },
  },
  {
    id: "weather-brief",
    description: "Summarise weather forecasts for a city: temperature, rain and wind.",
    metadata: { metadata: { tags: "forecast, climate" } },
  },
  {
    id: "unit-tests",
    description: "Write unit tests with vitest or jest, mock modules and measure coverage.",
    metadata: { tags: ["testing"] },
  },
  {
    id: "translate",
    description: "Translate text between languages while keeping formatting and terminology.",
    metadata: { tags: ["i18n", "localisation"] },
  },
  {
    id: "slides",
    description: "Build presentation slide decks in PowerPoint format with speaker notes.",
    metadata: { tags: ["pptx", "presentations"] },
  },
  {
    id: "incident-response",
    description: "Triage production incidents: gather logs, find the root cause, write the postmortem.",
    metadata: {
      when_to_use: "A service is down or paging on-call.",
      when_not_to_use: "Routine deployment of services.",
    },
  },
];

// query → the skill that must be found.
const queries: Array<[string, string]> = [
  ["merge two pdf files into one", "pdf-tools"],
  ["fill in a PDF form", "pdf-tools"],
  ["make a pivot table from this csv", "spreadsheet"],
  ["resolve a rebase conflict", "git-workflow"],
  ["deploy my service in a docker container", "docker-deploy"],
  ["why is this postgres query slow, explain plan", "sql-query"],
  ["convert png photos to webp", "image-resize"],
  ["write a polite reply to this email", "email-draft"],
  ["will it rain in Paris tomorrow", "weather-brief"],
  ["add jest unit tests with coverage", "unit-tests"],
  ["translate this document to German", "translate"],
  ["create a powerpoint presentation", "slides"],
  ["the api is down, find the root cause in the logs", "incident-response"],
  ["crop an image", "image-resize"],
  ["excel formulas", "spreadsheet"],
];

describe("SkillSearchIndex regression set", () => {
  const index = new SkillSearchIndex(skills);
  const results = queries.map(([q]) => index.search(q, { limit: 3 }).map((h) => h.id));

  it("recall@3 is 1.0: every expected skill is in the top three", () => {
    expect(queries.map(([q, want], i) => [q, results[i]?.includes(want)])).toEqual(queries.map(([q]) => [q, true]));
  });

  it("recall@1 is at least 0.8, with the exact top hits pinned", () => {
    const top = results.map((r) => r[0]);
    expect(top).toEqual([
      "pdf-tools",
      "pdf-tools",
      "spreadsheet",
      "git-workflow",
      "docker-deploy",
      "sql-query",
      "image-resize",
      "email-draft",
      "weather-brief",
      "unit-tests",
      "translate",
      "slides",
      "incident-response",
      "image-resize",
      "spreadsheet",
    ]);
    const hits = top.filter((id, i) => id === queries[i]?.[1]).length;
    expect(hits / queries.length).toBeGreaterThanOrEqual(0.8);
  });
});

describe("tokens", () => {
  it.each([
    ["Use the PDF-Tools for v2 OCR, and_then_more!", ["pdf", "tool", "v2", "ocr", "more"]],
    ["auditors audited the tests", ["auditor", "audit", "test"]],
    ["Résumé naïve café", ["resum", "naiv", "cafe"]],
    ["C++, C#, F# and .NET; not c or net", ["c++", "c#", "f#", ".net", "net", "not", "c", "net"]],
    ["数据清洗与去重", ["数据", "清洗", "去", "重"]],
    ["Ｃ＋＋ ＰＤＦ", ["c++", "pdf"]],
    ["clean_up-dates", ["clean", "up", "date"]],
    ["ASP.NET and node.js, e.g. here", ["asp", ".net", "net", "node", ".js", "js", "e", "g", "here"]],
  ])("%s", (text, tokens) => {
    expect(searchTokens(text)).toEqual(tokens);
  });

  it("property: tokens are non-empty, lowercase and contain no whitespace", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: "grapheme" }), (text) => {
        for (const t of searchTokens(text)) {
          expect(t).not.toBe("");
          expect(/\s/.test(t)).toBe(false);
          expect(t).toBe(t.toLowerCase());
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("SkillSearchIndex behaviour", () => {
  it("returns [] when nothing scores", () => {
    const index = new SkillSearchIndex(skills);
    expect(index.search("quantum chromodynamics")).toEqual([]);
    expect(index.search("the of and")).toEqual([]);
    expect(index.search("")).toEqual([]);
    expect(new SkillSearchIndex().search("pdf")).toEqual([]);
  });

  it("breaks ties by id and honours limit", () => {
    const index = new SkillSearchIndex([
      { id: "b", name: "skill", description: "alpha" },
      { id: "a", name: "skill", description: "alpha" },
      { id: "c", name: "skill", description: "alpha" },
    ]);
    const hits = index.search("alpha", { limit: 2 });
    expect(hits.map((h) => h.id)).toEqual(["a", "b"]);
    expect(hits[0]?.score).toBe(hits[1]?.score);
  });

  it("when_not_to_use text counts against a skill", () => {
    const index = new SkillSearchIndex(skills);
    const ids = index.search("deployment of services").map((h) => h.id);
    expect(ids[0]).toBe("docker-deploy");
    expect(ids).not.toContain("incident-response");
  });

  it("Chinese, accented and symbol-bearing queries find their skills", () => {
    const index = new SkillSearchIndex([
      ...skills,
      { id: "数据清洗", description: "清洗表格数据：去除重复行、统一日期格式、修剪空白字符。" },
      { id: "resume-writer", description: "Write a résumé and a cover letter tailored to a job posting." },
      { id: "cpp-review", description: "Review C++ code for undefined behaviour and memory errors." },
      { id: "csharp-api", description: "Build ASP.NET Core web APIs in C#." },
      { id: "c-tools", description: "Compile plain C programs with gcc and make." },
    ]);
    const top = (q: string) => index.search(q, { limit: 1, minConfidence: ASKED })[0]?.id;
    expect(top("数据清洗")).toBe("数据清洗");
    expect(top("帮我清洗一下表格里的重复数据")).toBe("数据清洗");
    expect(top("résumé")).toBe("resume-writer");
    expect(top("resume")).toBe("resume-writer");
    expect(top("C++")).toBe("cpp-review");
    expect(top("c#")).toBe("csharp-api");
    expect(top(".NET")).toBe("csharp-api");
    expect(index.search("C++").map((h) => h.id)).not.toContain("c-tools");
  });

  it("indexes triggers, tags, when_to_use, and the body's headings and start, and says which fields matched", () => {
    const index = new SkillSearchIndex([
      { id: "alpha", description: "Does alpha things.", metadata: { triggers: ["invoice reconciliation"] } },
      { id: "beta", description: "Does beta things.", body: "# Beta\n\n## Rotating TLS certificates\n\nSteps.\n" },
      {
        id: "gamma",
        description: "Does gamma things.",
        body: `${"filler words here. ".repeat(10)}Mentions kubernetes early.`,
      },
      {
        id: "delta",
        description: "Does delta things.",
        body: `${"filler words here. ".repeat(400)}Mentions terraform late.`,
      },
    ]);
    expect(index.search("invoice reconciliation")[0]).toMatchObject({ id: "alpha", matched: ["triggers"] });
    expect(index.search("rotate tls certificate")[0]).toMatchObject({ id: "beta", matched: ["headings"] });
    expect(index.search("kubernetes")[0]).toMatchObject({ id: "gamma", matched: ["body"] });
    expect(index.search("terraform")).toEqual([]); // beyond the first 4096 characters of the body
    expect(
      new SkillSearchIndex([{ id: "delta", body: "x ".repeat(3000) + "terraform" }], { bodyChars: 10_000 }).search(
        "terraform",
      )[0]?.id,
    ).toBe("delta");
  });

  it("skills hidden from models are found only with includeHidden", () => {
    const index = new SkillSearchIndex([
      { id: "deploy-prod", description: "Deploy to production.", metadata: { "disable-model-invocation": true } },
      { id: "deploy-docs", description: "Deploy the documentation site." },
    ]);
    expect(index.search("deploy production").map((h) => h.id)).toEqual(["deploy-docs"]);
    expect(index.search("deploy production", { includeHidden: true }).map((h) => h.id)).toEqual([
      "deploy-prod",
      "deploy-docs",
    ]);
  });

  it("confidence is in [0,1], highest for the best hit, and minConfidence abstains when nothing fits", () => {
    const index = new SkillSearchIndex(skills);
    const hits = index.search("merge two pdf files into one", { limit: 5, explain: true });
    expect(hits[0]?.id).toBe("pdf-tools");
    for (const h of hits) {
      expect(h.confidence).toBeGreaterThanOrEqual(0);
      expect(h.confidence).toBeLessThanOrEqual(1);
      expect(h.features?.relativeScore).toBeLessThanOrEqual(1);
    }
    expect(hits[0]?.confidence).toBeGreaterThan(ASKED);
    // A query that shares one weak word with a skill: it scores, and is shown by default (DEFAULT_MIN_CONFIDENCE is
    // 0, decision 0265), but a caller asking for abstention gets nothing.
    expect(DEFAULT_MIN_CONFIDENCE).toBe(0);
    expect(
      index.search("book a table at a restaurant in Paris tomorrow", { minConfidence: DEFAULT_MIN_CONFIDENCE }).length,
    ).toBeGreaterThan(0);
    expect(index.search("book a table at a restaurant in Paris tomorrow", { minConfidence: ASKED })).toEqual([]);
    expect(index.search("merge pdf", { minConfidence: 1 })).toEqual([]);
  });

  it("analysed skills survive JSON and give the same results (what caches store)", () => {
    const fresh = new SkillSearchIndex(skills);
    const restored = new SkillSearchIndex();
    for (const s of skills) restored.addAnalysed(JSON.parse(JSON.stringify(analyseSkill(s))));
    for (const [q] of queries) expect(restored.search(q)).toEqual(fresh.search(q));
  });

  it("add replaces and remove deletes", () => {
    const index = new SkillSearchIndex([{ id: "a", description: "pdf" }]);
    expect(index.search("pdf").map((h) => h.id)).toEqual(["a"]);
    index.add({ id: "a", description: "images" });
    expect(index.search("pdf")).toEqual([]);
    expect(index.remove("a")).toBe(true);
    expect(index.remove("a")).toBe(false);
    expect(index.size).toBe(0);
  });

  it("property: results are sorted, positive, unique, within limits and deterministic", () => {
    const index = new SkillSearchIndex(skills);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (q, minConfidence) => {
        const hits = index.search(q, { limit: 50, minConfidence });
        expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
        for (let i = 1; i < hits.length; i++) {
          const [p, c] = [hits[i - 1]!, hits[i]!];
          expect(p.score > c.score || (p.score === c.score && p.id < c.id)).toBe(true);
        }
        for (const h of hits) {
          expect(h.score).toBeGreaterThan(0);
          expect(h.confidence).toBeGreaterThanOrEqual(minConfidence);
          expect(h.confidence).toBeLessThanOrEqual(1);
        }
        expect(index.search(q, { limit: 50, minConfidence })).toEqual(hits);
      }),
      { numRuns: 300 },
    );
  });
});

describe('mode "scan" (one search per process) and loaded exports', () => {
  const word = fc.constantFrom(
    "pdf",
    "merge",
    "merger",
    "split",
    "table",
    "chart",
    "art",
    "deploy",
    "review",
    "c++",
    "数据",
    "清洗",
    "résumé",
    "audit",
  );
  const text = fc.array(word, { maxLength: 12 }).map((w) => w.join(" "));
  const doc = fc.record({
    description: text,
    when: text,
    not: fc.option(text, { nil: undefined }),
    tags: fc.array(word, { maxLength: 3 }),
    body: text.map((t) => `# ${t.split(" ")[0] ?? ""}\n\n${t}\n`),
    hidden: fc.boolean(),
  });
  it("gives exactly the hits, scores and confidences of the inverted index", () => {
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 12 }),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (specs, queries) => {
          const docs: SearchDocument[] = specs.map((s, i) => ({
            id: `skill-${i}`,
            description: s.description,
            metadata: {
              when_to_use: s.when,
              tags: s.tags,
              ...(s.not !== undefined && { when_not_to_use: s.not }),
              "disable-model-invocation": s.hidden,
            },
            body: s.body,
          }));
          const postings = new SkillSearchIndex(docs);
          const scan = new SkillSearchIndex(docs, { mode: "scan" });
          const loaded = SkillSearchIndex.load(new SkillSearchIndex(docs, { mode: "scan" }).export());
          for (const query of [...queries, ...queries]) {
            for (const options of [{}, { includeHidden: true, limit: 3, minConfidence: 0.2 }]) {
              const want = postings.search(query, options);
              expect(scan.search(query, options)).toEqual(want);
              expect(loaded.search(query, options)).toEqual(want);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("sees adds and removes like the inverted index", () => {
    const index = new SkillSearchIndex([{ id: "a", description: "merge pdf files" }], { mode: "scan" });
    expect(index.search("pdf").map((h) => h.id)).toEqual(["a"]);
    index.add({ id: "b", description: "split pdf pages" });
    expect(
      index
        .search("pdf")
        .map((h) => h.id)
        .sort(),
    ).toEqual(["a", "b"]);
    index.remove("a");
    expect(index.search("pdf").map((h) => h.id)).toEqual(["b"]);
    expect(index.search("zebra")).toEqual([]);
  });
});

describe("SkillSearchIndex.export / load", () => {
  const docs = [
    { id: "a", description: "merge pdf files" },
    { id: "b", description: "split pdf pages", metadata: { when_not_to_use: "merge" } },
  ];
  it("survives a structured clone (what a cache writes and reads back)", () => {
    const loaded = SkillSearchIndex.load(structuredClone(new SkillSearchIndex(docs).export()));
    expect(loaded.search("merge pdf")).toEqual(new SkillSearchIndex(docs).search("merge pdf"));
    expect(loaded.size).toBe(2);
  });

  it("is read-only, and refuses other field weights or inconsistent arrays", () => {
    const data = new SkillSearchIndex(docs).export();
    const loaded = SkillSearchIndex.load(data);
    expect(() => loaded.add({ id: "c", description: "x" })).toThrow(/read-only/);
    expect(() => loaded.remove("a")).toThrow(/read-only/);
    expect(() => SkillSearchIndex.load(data, { fields: { name: { weight: 9 } } })).toThrow(/other field weights/);
    expect(() => SkillSearchIndex.load({ ...data, starts: data.starts.subarray(1) })).toThrow(/inconsistent/);
  });
});

describe("searchPage: a page of the ranking and the number of matches", () => {
  const word = fc.constantFrom("pdf", "merge", "split", "table", "chart", "deploy", "review", "audit");
  const text = fc.array(word, { maxLength: 6 }).map((w) => w.join(" "));
  // Few texts and many skills, so equal scores (ties) are common; ids in no particular order, some non-ASCII.
  const corpus = fc
    .tuple(
      fc.array(text, { minLength: 1, maxLength: 4 }),
      fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 40 }),
      fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    )
    .map(([texts, ids, hidden]) =>
      ids.map((id, i): SearchDocument => ({
        id,
        description: texts[i % texts.length] ?? "",
        metadata: { "disable-model-invocation": hidden[i] ?? false },
      })),
    );
  const byRank = (a: SearchHit, b: SearchHit) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  it("property: the page is that slice of a full sort (ties by id), and total counts every match among the ids asked for", () => {
    fc.assert(
      fc.property(
        corpus,
        text,
        fc.nat(45),
        fc.nat(45),
        fc.boolean(),
        fc.option(fc.nat(3), { nil: undefined }),
        fc.boolean(),
        (docs, query, offset, limit, includeHidden, every, loaded) => {
          const built = new SkillSearchIndex(docs);
          const index = loaded ? SkillSearchIndex.load(built.export()) : built;
          // A caller's filter: every (n+1)-th id in code-unit order, or none.
          const ids = docs.map((d) => d.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          const among = every === undefined ? undefined : new Set(ids.filter((_, i) => i % (every + 1) === 0));
          const all = index.searchPage(query, { limit: docs.length, includeHidden, ...(among && { among }) });
          const shuffled = [...all.hits].reverse();
          expect(shuffled.sort(byRank)).toEqual(all.hits);
          expect(all.total).toBe(all.hits.length);
          for (const h of all.hits) {
            expect(h.score).toBeGreaterThan(0);
            if (among) expect(among.has(h.id)).toBe(true);
            if (!includeHidden)
              expect(docs.find((d) => d.id === h.id)?.metadata?.["disable-model-invocation"]).toBe(false);
          }
          const page = index.searchPage(query, { offset, limit, includeHidden, ...(among && { among }) });
          expect(page.total).toBe(all.total);
          expect(page.hits).toEqual(all.hits.slice(offset, offset + limit));
          if (!among && offset === 0) expect(index.search(query, { limit, includeHidden })).toEqual(page.hits);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("counts matches beyond the page and keeps confidences relative to the best hit", () => {
    const index = new SkillSearchIndex([
      { id: "c", name: "report", description: "chart report" },
      { id: "a", name: "table", description: "table report" },
      { id: "b", name: "report", description: "report" },
    ]);
    const first = index.searchPage("report", { limit: 1 });
    const second = index.searchPage("report", { offset: 1, limit: 5 });
    expect(first.total).toBe(3);
    expect(second.total).toBe(3);
    expect([...first.hits, ...second.hits]).toEqual(index.search("report", { limit: 3 }));
    expect(index.searchPage("report", { among: new Set(["a", "c"]) }).hits.map((h) => h.id)).toEqual(
      index
        .search("report", { limit: 3 })
        .map((h) => h.id)
        .filter((id) => id !== "b"),
    );
    expect(index.searchPage("zebra")).toEqual({ total: 0, hits: [] });
  });

  it("a loaded export must list its skills in id order (ties are broken by position)", () => {
    const data = new SkillSearchIndex([
      { id: "a", description: "pdf" },
      { id: "b", description: "pdf" },
    ]).export();
    expect(() => SkillSearchIndex.load({ ...data, docs: [...data.docs].reverse() })).toThrow(/inconsistent/);
  });
});
