import { describe, expect, it } from "vitest";
import { createSkillFrom } from "./create-from.js";
import { SkillValidationError } from "./errors.js";
import { parseSkillMd } from "./parse.js";
import { Skill } from "./skill.js";

const catchError = (fn: () => unknown): SkillValidationError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SkillValidationError) return e;
    throw e;
  }
  throw new Error("expected a SkillValidationError");
};

describe("Skill.builder()", () => {
  it("builds a skill AgentScope style", () => {
    const bytes = Uint8Array.from([0, 255, 1]);
    const skill = Skill.builder()
      .name("data_analysis")
      .description("Use when analyzing data")
      .putMetadata("homepage", "https://example.com/docs")
      .putMetadata("tags", ["a", "b"])
      .skillContent("# Data Analysis\n")
      .addResource("references/formulas.md", "# Formulas\n")
      .addResource("assets/logo.bin", bytes)
      .source("custom")
      .build();
    expect(skill.name).toBe("data_analysis");
    expect(skill.description).toBe("Use when analyzing data");
    expect(skill.skillContent).toBe("# Data Analysis\n");
    expect(skill.source).toBe("custom");
    expect(skill.metadata).toEqual({ homepage: "https://example.com/docs", tags: ["a", "b"] });
    expect(Object.keys(skill.frontmatter)).toEqual(["name", "description", "homepage", "tags"]);
    expect([...skill.resources.keys()]).toEqual(["references/formulas.md", "assets/logo.bin"]);
    expect(skill.resources.get("assets/logo.bin")).toBe(bytes);
  });

  it("takes the chain exactly as the issue writes it", () => {
    const skill = Skill.builder()
      .name("pdf-tools")
      .description("Fill PDF forms. Use when the user asks to fill a PDF.")
      .skillContent("# PDF tools\n\nSee references/forms.md.\n")
      .addResource("references/forms.md", "# Forms\n")
      .putMetadata("license", "MIT")
      .source("project")
      .build();
    expect(skill).toBeInstanceOf(Skill);
    expect(skill.frontmatter).toEqual({
      name: "pdf-tools",
      description: "Fill PDF forms. Use when the user asks to fill a PDF.",
      license: "MIT",
    });
    expect(skill.body).toBe("# PDF tools\n\nSee references/forms.md.\n");
    expect([...skill.resources]).toEqual([["references/forms.md", "# Forms\n"]]);
    expect(skill.source).toBe("project");
    expect(skill.toSkillMd()).toBe(
      "---\nname: pdf-tools\ndescription: Fill PDF forms. Use when the user asks to fill a PDF.\nlicense: MIT\n---\n# PDF tools\n\nSee references/forms.md.\n",
    );
  });

  it("defaults the source to custom", () => {
    expect(Skill.builder().name("a").description("d").skillContent("B").build().source).toBe("custom");
  });

  it("refuses blank name, description or content and unsafe resource paths, listing every problem", () => {
    const error = catchError(() =>
      Skill.builder()
        .name(" ")
        .description("")
        .addResource("../etc/passwd", "x")
        .addResource("/abs", "x")
        .addResource("ok/file.md", "x")
        .build(),
    );
    expect(error.code).toBe("SKILL_VALIDATION");
    expect(error.diagnostics.map((d) => d.code)).toEqual([
      "name-empty",
      "description-empty",
      "body-empty",
      "resource-path-invalid",
      "resource-path-invalid",
    ]);
    expect(error.message).toContain('"../etc/passwd"');
  });

  it("keeps name and description out of putMetadata", () => {
    expect(() => Skill.builder().putMetadata("name", "x")).toThrow(TypeError);
  });

  it("stores a __proto__ metadata key as data", () => {
    const skill = Skill.builder().name("a").description("d").skillContent("B").putMetadata("__proto__", "x").build();
    expect(Object.keys(skill.metadata)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(skill.frontmatter)).toBe(Object.prototype);
  });
});

describe("Skill", () => {
  const skill = Skill.builder()
    .name("pdf")
    .description("Use when: PDFs")
    .putMetadata("metadata", { k: "v" })
    .skillContent("Body\n")
    .build();

  it("gives a fresh metadata copy each time", () => {
    const first = skill.metadata;
    (first.metadata as { k: string }).k = "changed";
    expect(skill.metadata).toEqual({ metadata: { k: "v" } });
  });

  it("serialises to SKILL.md that parses back to the same skill", () => {
    const text = skill.toSkillMd();
    expect(text).toBe('---\nname: pdf\ndescription: "Use when: PDFs"\nmetadata:\n  k: v\n---\nBody\n');
    const parsed = parseSkillMd(text);
    expect(parsed.frontmatter).toEqual(skill.frontmatter);
    expect(parsed.body).toBe(skill.body);
  });

  it("reads unquoted numbers and booleans in name/description as text", () => {
    expect(new Skill({ frontmatter: { name: 2048, description: true }, body: "B" })).toMatchObject({
      name: "2048",
      description: "true",
    });
  });

  // AgentScope's AgentSkill constructor throws on a blank name, description or content; so does this one.
  it.each([
    ["a blank name", { name: " ", description: "d" }, "B", ["name-empty"]],
    ["a missing description", { name: "a" }, "B", ["description-empty"]],
    ["a name that is not text", { name: ["x"], description: "d" }, "B", ["name-empty"]],
    ["an empty body", { name: "a", description: "d" }, "", ["body-empty"]],
    ["a whitespace body", { name: "a", description: "d" }, " \n\t", ["body-empty"]],
    ["everything blank", {}, "", ["name-empty", "description-empty", "body-empty"]],
  ])("new Skill refuses %s", (_label, frontmatter, body, codes) => {
    const error = catchError(() => new Skill({ frontmatter, body }));
    expect(error.code).toBe("SKILL_VALIDATION");
    expect(error.diagnostics.map((d) => d.code)).toEqual(codes);
  });
});

describe("Skill.digest()", () => {
  const base = () =>
    Skill.builder().name("a").description("d").skillContent("B").addResource("b.md", "2").addResource("a.md", "1");

  it("is sha256 of the canonical content, independent of resource order, text/bytes form and source", async () => {
    const one = await base().build().digest();
    expect(one).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = Skill.builder()
      .name("a")
      .description("d")
      .skillContent("B")
      .addResource("a.md", new TextEncoder().encode("1"))
      .addResource("b.md", "2")
      .source("elsewhere")
      .build();
    expect(await reordered.digest()).toBe(one);
  });

  it("changes when any content changes", async () => {
    const one = await base().build().digest();
    expect(await base().skillContent("C").build().digest()).not.toBe(one);
    expect(await base().addResource("a.md", "x").build().digest()).not.toBe(one);
    expect(await base().putMetadata("k", "v").build().digest()).not.toBe(one);
    // Length prefixes keep a path/content boundary from shifting unnoticed.
    const shifted = Skill.builder()
      .name("a")
      .description("d")
      .skillContent("B")
      .addResource("b.md", "2")
      .addResource("a.m", "d1")
      .build();
    expect(await shifted.digest()).not.toBe(one);
  });
});

describe("createSkillFrom", () => {
  it("parses SKILL.md text with resources and a source", () => {
    const skill = createSkillFrom(
      "---\nname: data_analysis\ndescription: Use when analyzing data\nhomepage: x\n---\n# Skill\n",
      { "references/formulas.md": "# F\n" },
      "filesystem-skills_data",
    );
    expect(skill.name).toBe("data_analysis");
    expect(skill.body).toBe("# Skill\n");
    expect(skill.metadata).toEqual({ homepage: "x" });
    expect(skill.source).toBe("filesystem-skills_data");
    expect([...skill.resources]).toEqual([["references/formulas.md", "# F\n"]]);
  });

  it("accepts bytes and a Map of resources, and recovers an unquoted colon", () => {
    const skill = createSkillFrom(
      new TextEncoder().encode("---\nname: a\ndescription: Use when: asked\n---\nB"),
      new Map([["scripts/x.sh", "echo"]]),
    );
    expect(skill.description).toBe("Use when: asked");
    expect(skill.resources.get("scripts/x.sh")).toBe("echo");
  });

  it.each([
    ["no frontmatter", "# hi", "frontmatter-missing"],
    ["invalid YAML", "---\nname: [\n---\n", "yaml-invalid"],
    ["no name", "---\ndescription: d\n---\n", "name-missing"],
    ["no description", "---\nname: a\n---\n", "description-missing"],
    ["a blank description", "---\nname: a\ndescription: '  '\n---\nBody\n", "description-empty"],
    ["no content", "---\nname: a\ndescription: d\n---\n", "body-empty"],
    ["blank content", "---\nname: a\ndescription: d\n---\n \n\t\n", "body-empty"],
  ])("throws SkillValidationError with diagnostics: %s", (_label, text, code) => {
    const error = catchError(() => createSkillFrom(text));
    expect(error.diagnostics.map((d) => d.code)).toContain(code);
    expect(error.diagnostics[0]?.file).toBe("SKILL.md");
  });

  it("refuses unsafe resource paths", () => {
    const error = catchError(() =>
      createSkillFrom("---\nname: a\ndescription: d\n---\nBody\n", { "a/../../x": "y", "SKILL.md": "z" }),
    );
    expect(error.diagnostics.map((d) => d.code)).toEqual(["resource-path-invalid", "resource-path-invalid"]);
  });
});
