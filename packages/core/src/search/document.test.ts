import { describe, expect, it } from "vitest";
import { skillEmbeddingText } from "./document.js";

describe("skillEmbeddingText", () => {
  it("is `name: description` when the skill has nothing else", () => {
    expect(
      skillEmbeddingText({ id: "pdf", metadata: { name: "pdf", description: "Merge and\n  split PDF files." } }),
    ).toBe("pdf: Merge and split PDF files.");
    expect(skillEmbeddingText({ id: "bare" })).toBe("bare:");
  });

  it("adds when_to_use and triggers/keywords/tags under any spelling, top level or in metadata", () => {
    const text = skillEmbeddingText({
      id: "supply-chain",
      metadata: {
        name: "supply-chain",
        description: "Audit dependencies.",
        "when-to-use": "A package was reported as malicious.",
        metadata: { triggers: ["malware", "typosquatting"], tags: ["security"] },
      },
    });
    expect(text).toBe(
      "supply-chain: Audit dependencies.\nWhen to use: A package was reported as malicious.\nKeywords: malware typosquatting security",
    );
  });

  it("reads the body's headings only when asked, skipping code blocks", () => {
    const doc = {
      id: "x",
      metadata: { name: "x", description: "D." },
      body: "# Setup\ntext\n```\n# not a heading\n```\n## Usage\n",
    };
    expect(skillEmbeddingText(doc)).toBe("x: D.");
    expect(skillEmbeddingText(doc, { headings: true })).toBe("x: D.\nSections: Setup; Usage");
  });
});
