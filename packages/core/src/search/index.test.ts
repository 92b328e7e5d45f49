import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SkillSearchIndex, searchTokens, type SearchDocument } from "./search.js";

// The regression set: 12 skills described the way authors write them.
const skills: SearchDocument[] = [
  { id: "pdf-tools", description: "Extract text and tables from PDF files, fill PDF forms, merge and split documents.", metadata: { tags: ["documents", "pdf"] } },
  { id: "spreadsheet", description: "Create, read and edit Excel spreadsheets and CSV files: formulas, pivot tables, charts.", metadata: { when_to_use: "The user works with xlsx or csv data." } },
  { id: "git-workflow", description: "Commit, branch, rebase and resolve merge conflicts in git repositories.", metadata: { tags: "git, version control" } },
  { id: "docker-deploy", description: "Build container images and deploy services with Docker and docker compose.", metadata: { tags: ["containers", "deployment"] } },
  { id: "sql-query", description: "Write and optimise SQL queries for PostgreSQL and MySQL databases; explain query plans.", metadata: {} },
  { id: "image-resize", description: "Resize, crop, rotate and convert images between PNG, JPEG and WebP.", metadata: { tags: ["images", "photos"] } },
  { id: "email-draft", description: "Draft professional emails and replies with the right tone.", metadata: { when_to_use: "Writing a message to send by mail." } },
  { id: "weather-brief", description: "Summarise weather forecasts for a city: temperature, rain and wind.", metadata: { metadata: { tags: "forecast, climate" } } },
  { id: "unit-tests", description: "Write unit tests with vitest or jest, mock modules and measure coverage.", metadata: { tags: ["testing"] } },
  { id: "translate", description: "Translate text between languages while keeping formatting and terminology.", metadata: { tags: ["i18n", "localisation"] } },
  { id: "slides", description: "Build presentation slide decks in PowerPoint format with speaker notes.", metadata: { tags: ["pptx", "presentations"] } },
  { id: "incident-response", description: "Triage production incidents: gather logs, find the root cause, write the postmortem.", metadata: { when_to_use: "A service is down or paging on-call.", when_not_to_use: "Routine deployment of services." } },
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

describe("SkillSearchIndex behaviour", () => {
  it("tokenizes to lowercase [a-z0-9]+ without stopwords", () => {
    expect(searchTokens("Use the PDF-Tools for v2 OCR, and_then_more!")).toEqual(["pdf", "tools", "v2", "ocr", "more"]);
  });

  it("returns [] when nothing scores (callers fall back to the full catalog)", () => {
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

  it("scores with BM25 (k1 1.5, b 0.75): exact value for a two-document corpus", () => {
    const index = new SkillSearchIndex([
      { id: "x", name: "x", description: "pdf pdf tools" },
      { id: "y", name: "y", description: "images" },
    ]);
    // doc x: tokens [x, pdf, pdf, tools] (length 4), y: [y, images] (2); avgdl 3; df(pdf) = 1, N = 2
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 2 * 2.5) / (2 + 1.5 * (1 - 0.75 + (0.75 * 4) / 3));
    expect(index.search("pdf")).toEqual([{ id: "x", score: expected }]);
  });

  it("add replaces and remove deletes", () => {
    const index = new SkillSearchIndex([{ id: "a", description: "pdf" }]);
    index.add({ id: "a", description: "images" });
    expect(index.search("pdf")).toEqual([]);
    expect(index.remove("a")).toBe(true);
    expect(index.remove("a")).toBe(false);
    expect(index.size).toBe(0);
  });

  it("property: results are sorted, positive, unique and deterministic", () => {
    const index = new SkillSearchIndex(skills);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (q) => {
        const hits = index.search(q, { limit: 50 });
        expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
        for (let i = 1; i < hits.length; i++) {
          const [p, c] = [hits[i - 1]!, hits[i]!];
          expect(p.score > c.score || (p.score === c.score && p.id < c.id)).toBe(true);
        }
        for (const h of hits) expect(h.score).toBeGreaterThan(0);
        expect(index.search(q, { limit: 50 })).toEqual(hits);
      }),
      { numRuns: 300 },
    );
  });
});
