import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateFrontmatter, validateSkillMd, type ProfileName } from "./validate.js";

const md = (frontmatter: string, body = "Body.\n") => `---\n${frontmatter}\n---\n${body}`;
const run = (text: string, profile: ProfileName, dirName?: string) =>
  validateSkillMd(text, { profile, lint: false, ...(dirName !== undefined && { dirName }) });
const errors = (text: string, profile: ProfileName, dirName?: string) =>
  run(text, profile, dirName)
    .diagnostics.filter((d) => d.severity === "error")
    .map((d) => d.code);
const warnings = (text: string, profile: ProfileName, dirName?: string) =>
  run(text, profile, dirName)
    .diagnostics.filter((d) => d.severity === "warning")
    .map((d) => d.code);

describe("spec profile: the skills-ref verdict and rule on every input", () => {
  const cases: Array<[string, string, string | undefined, string[]]> = [
    ["valid", "name: pdf-tools\ndescription: Handles PDFs.", "pdf-tools", []],
    ["valid without a directory", "name: pdf-tools\ndescription: d", undefined, []],
    [
      "all optional fields",
      "name: a\ndescription: d\nlicense: MIT\ncompatibility: node 20\nmetadata:\n  k: v\nallowed-tools: Bash(git:*) Read",
      "a",
      [],
    ],
    [
      "unexpected fields, each reported",
      "name: a\ndescription: d\nversion: 1\nhomepage: x",
      "a",
      ["field-unexpected", "field-unexpected"],
    ],
    ["name and description missing", "license: MIT", "a", ["name-missing", "description-missing"]],
    ["empty name", 'name: ""\ndescription: d', "a", ["name-empty"]],
    ["null-looking empty name", "name:\ndescription: d", "a", ["name-empty"]],
    ["blank name", "name: '  '\ndescription: d", "a", ["name-empty"]],
    ["name is a list", "name:\n  - a\ndescription: d", "a", ["name-not-string"]],
    ["numeric name is text", "name: 2048\ndescription: d", "2048", []],
    ["numeric name keeps its source text", "name: 1.0\ndescription: d", "1.0", ["name-invalid-chars"]],
    ["'null' is just text", "name: null\ndescription: d", "null", []],
    ["65 characters", `name: ${"a".repeat(65)}\ndescription: d`, "a".repeat(65), ["name-too-long"]],
    ["64 characters", `name: ${"a".repeat(64)}\ndescription: d`, "a".repeat(64), []],
    ["uppercase", "name: PDF\ndescription: d", "PDF", ["name-not-lowercase"]],
    ["leading hyphen", "name: -pdf\ndescription: d", "-pdf", ["name-hyphen-edge"]],
    ["trailing hyphen", "name: pdf-\ndescription: d", "pdf-", ["name-hyphen-edge"]],
    ["double hyphen", "name: a--b\ndescription: d", "a--b", ["name-consecutive-hyphens"]],
    ["underscore", "name: a_b\ndescription: d", "a_b", ["name-invalid-chars"]],
    [
      "every name rule, in order",
      "name: -A--b_\ndescription: d",
      "x",
      ["name-not-lowercase", "name-hyphen-edge", "name-consecutive-hyphens", "name-invalid-chars", "name-dir-mismatch"],
    ],
    ["directory mismatch", "name: pdf\ndescription: d", "pdf-tools", ["name-dir-mismatch"]],
    ["Chinese letters", "name: 技能\ndescription: d", "技能", []],
    ["Cyrillic lowercase", "name: мой-навык\ndescription: d", "мой-навык", []],
    ["Cyrillic uppercase", "name: НАВЫК\ndescription: d", "НАВЫК", ["name-not-lowercase"]],
    ["decomposed name matches composed directory", "name: cafe\u0301\ndescription: d", "café", []],
    ["fullwidth letters normalise", "name: ｐｄｆ\ndescription: d", "pdf", []],
    ["surrounding spaces are stripped", "name: ' pdf '\ndescription: d", "pdf", []],
    [
      "combining mark that does not compose",
      "name: \u0915\u093f\ndescription: d",
      "\u0915\u093f",
      ["name-invalid-chars"],
    ],
    ["description of 1024 code points", `name: a\ndescription: ${"😀".repeat(1024)}`, "a", []],
    ["description of 1025", `name: a\ndescription: ${"x".repeat(1025)}`, "a", ["description-too-long"]],
    ["blank description", "name: a\ndescription: ' '", "a", ["description-empty"]],
    ["numeric description is text", "name: a\ndescription: 5", "a", []],
    ["description is a map", "name: a\ndescription:\n  k: v", "a", ["description-not-string"]],
    ["compatibility of 500", `name: a\ndescription: d\ncompatibility: ${"c".repeat(500)}`, "a", []],
    [
      "compatibility of 501",
      `name: a\ndescription: d\ncompatibility: ${"c".repeat(501)}`,
      "a",
      ["compatibility-too-long"],
    ],
    ["empty compatibility is allowed", "name: a\ndescription: d\ncompatibility:", "a", []],
    ["compatibility is a list", "name: a\ndescription: d\ncompatibility:\n  - x", "a", ["compatibility-not-string"]],
    [
      "errors are collected across fields",
      `name: Bad_Name\ndescription: ${"x".repeat(1100)}\nextra: 1`,
      "Bad_Name",
      ["field-unexpected", "name-not-lowercase", "name-invalid-chars", "description-too-long"],
    ],
  ];
  it.each(cases)("%s", (_label, frontmatter, dirName, expected) => {
    expect(errors(md(frontmatter), "spec", dirName)).toEqual(expected);
  });

  const structural: Array<[string, string, string]> = [
    ["no frontmatter", "# hi\n", "frontmatter-missing"],
    ["unclosed", "---\nname: a\n", "frontmatter-unclosed"],
    ["invalid YAML", md("name: [a\ndescription: d"), "yaml-invalid"],
    ["not a mapping", md("- a"), "frontmatter-not-mapping"],
    ["duplicate key", md("name: a\nname: b\ndescription: d"), "yaml-duplicate-key"],
    ["flow collection (strict YAML)", md("name: a\ndescription: d\nallowed-tools: [Read]"), "yaml-strict"],
    ["anchor and alias (strict YAML)", md("name: &n a\ndescription: *n"), "yaml-strict"],
    ["tag (strict YAML)", md("name: !!str a\ndescription: d"), "yaml-strict"],
    ["unquoted colon", md("name: a\ndescription: Use when: asked"), "yaml-unquoted-colon"],
  ];
  it.each(structural)("stops at the structural problem: %s", (_label, text, code) => {
    const found = errors(text, "spec", "x");
    expect(found[0]).toBe(code);
    expect(found.every((c) => c === code)).toBe(true);
  });

  it("warns, without changing the verdict, on shapes the spec text asks for but skills-ref accepts", () => {
    const text = md("name: a\ndescription: d\nmetadata:\n  k:\n    deep: 1\nallowed-tools:\n  - Read");
    expect(run(text, "spec", "a").valid).toBe(true);
    expect(warnings(text, "spec", "a")).toEqual(["metadata-not-string-map", "allowed-tools-not-string"]);
  });

  it("lists at most 20 unexpected fields, then one summary", () => {
    const keys = Array.from({ length: 25 }, (_, i) => `extra${i}: x`).join("\n");
    const found = run(md(`name: a\ndescription: d\n${keys}`), "spec", "a").diagnostics;
    expect(found).toHaveLength(21);
    expect(found.every((d) => d.code === "field-unexpected")).toBe(true);
    expect(found[20]?.message).toBe("5 more unexpected fields not listed");
  });

  it("points each finding at its key and names the file", () => {
    const result = validateSkillMd(md("license: MIT\nname: Bad\nextra: x\ndescription: d"), {
      profile: "spec",
      lint: false,
      file: "s/SKILL.md",
      dirName: "Bad",
    });
    expect(result.diagnostics).toEqual([
      {
        code: "field-unexpected",
        severity: "error",
        message: expect.stringContaining("'extra'"),
        file: "s/SKILL.md",
        line: 4,
        column: 1,
      },
      {
        code: "name-not-lowercase",
        severity: "error",
        message: expect.stringContaining('"Bad"'),
        file: "s/SKILL.md",
        line: 3,
        column: 1,
      },
    ]);
    expect(result.valid).toBe(false);
  });
});

describe("spec name rules agree with Python's Unicode behaviour", () => {
  // Generated by __fixtures__/skills-ref-names.py: skills-ref's name checks evaluated by Python itself
  // (str.strip, NFKC, len in code points, str.lower, str.isalnum) over names mixing scripts, marks and spaces.
  const cases = JSON.parse(
    readFileSync(new URL("./__fixtures__/skills-ref-names.json", import.meta.url), "utf8"),
  ) as Array<{ name: string; dir: string; problems: string[] }>;
  const codeOf: Record<string, string> = {
    empty: "name-empty",
    "too-long": "name-too-long",
    lowercase: "name-not-lowercase",
    "hyphen-edge": "name-hyphen-edge",
    consecutive: "name-consecutive-hyphens",
    chars: "name-invalid-chars",
    dir: "name-dir-mismatch",
  };

  it(`gives the same rules, in the same order, on ${cases.length} generated names`, () => {
    expect(cases.length).toBeGreaterThan(500);
    const mismatches = cases.filter(({ name, dir, problems }) => {
      const found = validateFrontmatter({ name, description: "d" }, { profile: "spec", dirName: dir, lint: false }).map(
        (d) => d.code,
      );
      return JSON.stringify(found) !== JSON.stringify(problems.map((p) => codeOf[p]));
    });
    expect(mismatches).toEqual([]);
  });
});

describe("lenient profile (loading)", () => {
  const cases: Array<[string, string, string | undefined, string[], string[]]> = [
    ["valid", "name: a\ndescription: d", "a", [], []],
    ["missing name uses the directory", "description: d", "a", [], ["name-missing"]],
    ["missing name and no directory", "description: d", undefined, ["name-missing"], []],
    ["name/directory mismatch", "name: a\ndescription: d", "b", [], ["name-dir-mismatch"]],
    ["long name", `name: ${"a".repeat(70)}\ndescription: d`, "a".repeat(70), [], ["name-too-long"]],
    ["uppercase name", "name: A\ndescription: d", "A", [], ["name-not-lowercase"]],
    ["missing description", "name: a", "a", ["description-missing"], []],
    ["empty description", "name: a\ndescription: ''", "a", ["description-empty"], []],
    ["long description", `name: a\ndescription: ${"x".repeat(1100)}`, "a", [], ["description-too-long"]],
    ["unknown fields are fine", "name: a\ndescription: d\nhomepage: x\ndisable-model-invocation: true", "a", [], []],
    ["unquoted colon is recovered", "name: a\ndescription: Use when: asked", "a", [], ["yaml-unquoted-colon"]],
    ["unparseable YAML", "name: a\ndescription: [", "a", ["yaml-invalid"], []],
  ];
  it.each(cases)("%s", (_label, frontmatter, dirName, errs, warns) => {
    expect(errors(md(frontmatter), "lenient", dirName)).toEqual(errs);
    expect(warnings(md(frontmatter), "lenient", dirName)).toEqual(warns);
  });

  it("is the default profile", () => {
    expect(
      validateSkillMd(md("description: d"), { lint: false, dirName: "x" }).diagnostics.map((d) => [d.code, d.severity]),
    ).toEqual([["name-missing", "warning"]]);
  });
});

describe("fastgpt profile (publishing)", () => {
  const cases: Array<[string, string, string[]]> = [
    ["valid", "name: my-skill-2\ndescription: d", []],
    ["underscore", "name: my_skill\ndescription: d", ["name-pattern"]],
    ["trailing hyphen", "name: a-\ndescription: d", ["name-pattern"]],
    ["unicode", "name: 技能\ndescription: d", ["name-pattern"]],
    ["51 characters", `name: ${"a".repeat(51)}\ndescription: d`, ["name-too-long"]],
    ["50 characters", `name: ${"a".repeat(50)}\ndescription: d`, []],
    ["description of 501", `name: a\ndescription: ${"x".repeat(501)}`, ["description-too-long"]],
    ["missing name", "description: d", ["name-missing"]],
  ];
  it.each(cases)("%s", (_label, frontmatter, expected) => {
    expect(errors(md(frontmatter), "fastgpt")).toEqual(expected);
  });
  it("only warns on a missing description", () => {
    expect(warnings(md("name: a"), "fastgpt")).toEqual(["description-missing"]);
  });
});

describe("agentscope profile", () => {
  const cases: Array<[string, string, string, string[]]> = [
    ["valid with extra metadata", "name: data_analysis\ndescription: d\nhomepage: x\nmetadata:\n  a: [1]", "Body", []],
    ["hyphens tolerated", "name: data-analysis\ndescription: d", "Body", []],
    ["uppercase", "name: Data\ndescription: d", "Body", ["name-pattern"]],
    ["blank name", "name: ' '\ndescription: d", "Body", ["name-empty"]],
    ["blank description", "name: a\ndescription: ' '", "Body", ["description-empty"]],
    ["empty body", "name: a\ndescription: d", "\n  \n", ["body-empty"]],
  ];
  it.each(cases)("%s", (_label, frontmatter, body, expected) => {
    expect(errors(md(frontmatter, body), "agentscope")).toEqual(expected);
  });
});

describe("key typos", () => {
  it.each([
    [
      "spec",
      "name: a\ndescripton: Does a. Use when asked to do a.",
      ["field-unexpected", "description-missing"],
      "unexpected field 'descripton': did you mean 'description'?",
    ],
    [
      "lenient",
      "name: a\ndescripton: Does a. Use when asked to do a.",
      ["field-typo", "description-missing"],
      "unknown field 'descripton': did you mean 'description'?",
    ],
    [
      "fastgpt",
      "name: a\ndescription: Does a. Use when asked.\nlicence: MIT",
      ["field-typo"],
      "unknown field 'licence': did you mean 'license'?",
    ],
    [
      "agentscope",
      "name: a\ndescription: Does a. Use when asked.\nmetdata:\n  k: v",
      ["field-typo"],
      "unknown field 'metdata': did you mean 'metadata'?",
    ],
    ["lenient", "name: a\ndescription: Does a. Use when asked to do a.\nversion: 2\ntags: x", [], undefined],
    [
      "spec",
      "name: a\ndescription: Does a. Use when asked to do a.\nhomepage: x",
      ["field-unexpected"],
      "unexpected field 'homepage': the spec allows only name, description, license, compatibility, metadata, allowed-tools",
    ],
  ] as const)("%s: %s", (profile, yaml, codes, message) => {
    const found = validateSkillMd(`---\n${yaml}\n---\nBody.\n`, { profile, dirName: "a", lint: false }).diagnostics;
    expect(found.map((d) => d.code)).toEqual(codes);
    if (message !== undefined) expect(found[0]?.message).toBe(message);
  });
});

describe("best-practice lint", () => {
  const good = "Extracts text and tables from PDF files. Use when the user asks to read, summarise or fill a PDF.";
  const lintCodes = (fm: object, options: { body?: string; files?: string[] } = {}) =>
    validateFrontmatter({ name: "a", ...fm }, { profile: "lenient", dirName: "a", ...options }).map((d) => d.code);

  it.each([
    ["a good description", { description: good }, {}, []],
    ["too short", { description: "PDF tools" }, {}, ["description-vague"]],
    ["too short, though it has a trigger", { description: "Use when asked." }, {}, ["description-vague"]],
    [
      "no trigger",
      { description: "A collection of utilities for the portable document format and its many variants." },
      {},
      ["description-vague"],
    ],
    [
      "long for a catalog",
      { description: `${good} ${"More detail. ".repeat(30)}` },
      {},
      ["description-long-for-catalog"],
    ],
    ["angle brackets", { description: `${good} Input <file>.` }, {}, ["description-angle-brackets"]],
    ["body of 501 lines", { description: good }, { body: "line\n".repeat(501) }, ["body-too-long"]],
    ["body of 500 lines", { description: good }, { body: "line\n".repeat(500) }, []],
    ["body of ~5,001 tokens", { description: good }, { body: "x".repeat(20_004) }, ["body-too-many-tokens"]],
    [
      "unreferenced resources are not reported by default",
      { description: good },
      {
        body: "Run scripts/run.sh first.",
        files: ["SKILL.md", "scripts/run.sh", "references/api.md", "assets/logo.png", "notes.txt"],
      },
      [],
    ],
    [
      "a referenced file that is missing",
      { description: good },
      { body: "Read references/missing.md first.", files: ["SKILL.md", "references/api.md"] },
      ["reference-missing"],
    ],
    [
      "a link to a file in another letter case",
      { description: good },
      { body: "See [the forms](FORMS.md).", files: ["SKILL.md", "forms.md"] },
      ["reference-case-mismatch"],
    ],
    [
      "a bare name in another letter case",
      { description: good },
      { body: "Read FORMS.md when filling forms.", files: ["SKILL.md", "forms.md"] },
      ["reference-case-mismatch"],
    ],
    [
      "a bare name of no file (prose names many files)",
      { description: good },
      { body: "Update CHANGELOG.md in the user's repository.", files: ["SKILL.md"] },
      [],
    ],
    [
      "patterns and URLs are not files",
      { description: good },
      {
        body: "Write scripts/<name>.py; see [docs](https://x.org/a.md) and assets/*.png and [top](#usage).",
        files: ["SKILL.md"],
      },
      [],
    ],
  ] as Array<[string, object, { body?: string; files?: string[] }, string[]]>)(
    "%s",
    (_label, fm, options, expected) => {
      expect(lintCodes(fm, options)).toEqual(expected);
    },
  );

  it("lists at most 20 unreferenced resources when asked, then one summary", () => {
    const files = Array.from({ length: 23 }, (_, i) => `references/r${i}.md`);
    const found = validateFrontmatter(
      { name: "a", description: good },
      { dirName: "a", body: "", files, reportUnreferenced: true },
    );
    expect(found).toHaveLength(21);
    expect(found[20]?.message).toBe("3 more resources are never mentioned");
  });

  it("names the unreferenced files (info) when asked, and lint can be switched off", () => {
    const found = validateFrontmatter(
      { name: "a", description: good },
      { dirName: "a", body: "", files: ["references/api.md"], reportUnreferenced: true },
    );
    expect(found.map((d) => [d.code, d.severity, d.message.startsWith("references/api.md")])).toEqual([
      ["resource-unreferenced", "info", true],
    ]);
    expect(
      validateFrontmatter(
        { name: "a", description: "x" },
        { dirName: "a", lint: false, body: "", files: ["references/api.md"] },
      ),
    ).toEqual([]);
  });

  it("follows references through the Markdown files the body points to", () => {
    const texts: Record<string, string> = {
      "references/forms.md":
        "Fill with `scripts/fill.py`; schemas in [the schema](../assets/schema.xsd) and references/missing.xsd.",
      "references/guide.md": "See [forms](forms.md).",
    };
    const files = [
      "SKILL.md",
      "references/guide.md",
      "references/forms.md",
      "scripts/fill.py",
      "assets/schema.xsd",
      "assets/unused.png",
    ];
    const read: string[] = [];
    const found = validateFrontmatter(
      { name: "a", description: good },
      {
        dirName: "a",
        file: "skills/a/SKILL.md",
        body: "Start with references/guide.md.\n",
        bodyLine: 5,
        files,
        reportUnreferenced: true,
        readText: (p) => (read.push(p), texts[p]),
      },
    );
    expect(found.map((d) => [d.code, d.severity, d.file, d.line, d.column])).toEqual([
      ["reference-missing", "error", "skills/a/references/forms.md", 1, 80],
      ["resource-unreferenced", "info", "skills/a/SKILL.md", 5, 1],
    ]);
    expect(found[1]?.message).toMatch(/^assets\/unused.png /);
    expect(read).toEqual(["references/guide.md", "references/forms.md"]);
  });

  it("points a broken reference in the body at its file line and column", () => {
    const found = validateFrontmatter(
      { name: "a", description: good },
      { dirName: "a", file: "a/SKILL.md", body: "# A\n\nRun `scripts/go.sh`.\n", bodyLine: 4, files: ["SKILL.md"] },
    );
    expect(found.map((d) => [d.code, d.line, d.column, d.message])).toEqual([
      ["reference-missing", 6, 6, '"scripts/go.sh" is referenced but the skill has no such file'],
    ]);
  });

  it("runs through validateSkillMd at the description's line", () => {
    const result = validateSkillMd(md("name: a\ndescription: PDF tools"), { dirName: "a" });
    expect(result.valid).toBe(true);
    expect(result.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["description-vague", 3, 1]]);
  });

  it("rejects an unknown profile as a programmer error", () => {
    expect(() => validateFrontmatter({}, { profile: "nope" as ProfileName })).toThrow(/unknown validation profile/);
  });
});
