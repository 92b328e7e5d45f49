import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse as yamlParse } from "yaml";
import { DEFAULT_PARSE_LIMITS, findFrontmatterEnd, parseFrontmatter, parseSkillMd } from "./parse.js";
import { parseFlatFrontmatter } from "./format/fast-path.js";
import { yamlPassWork } from "./format/yaml-full.js";

const codes = (text: string | Uint8Array) => parseSkillMd(text).diagnostics.map((d) => d.code);
const both = [true, false] as const;

describe("parseSkillMd: well-formed input", () => {
  const text = "---\nname: pdf\ndescription: Use when the user asks about PDFs\nlicense: MIT\n---\n# PDF\n\nBody.\n";

  it.each(both)("reads frontmatter, body, body line and key positions (fastPath=%s)", (fastPath) => {
    const parsed = parseSkillMd(text, { fastPath });
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.frontmatter).toEqual({
      name: "pdf",
      description: "Use when the user asks about PDFs",
      license: "MIT",
    });
    expect(Object.keys(parsed.frontmatter ?? {})).toEqual(["name", "description", "license"]);
    expect(parsed.body).toBe("# PDF\n\nBody.\n");
    expect(parsed.bodyLine).toBe(6);
    expect(parsed.bodyOffset).toBe(text.indexOf("# PDF"));
    expect([...parsed.positions]).toEqual([
      ["name", { line: 2, column: 1 }],
      ["description", { line: 3, column: 1 }],
      ["license", { line: 4, column: 1 }],
    ]);
  });

  it.each(both)("tolerates CRLF line endings (fastPath=%s)", (fastPath) => {
    const parsed = parseSkillMd(text.replaceAll("\n", "\r\n"), { fastPath });
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.frontmatter).toEqual({
      name: "pdf",
      description: "Use when the user asks about PDFs",
      license: "MIT",
    });
    expect(parsed.body).toBe("# PDF\r\n\r\nBody.\r\n");
  });

  it("tolerates a BOM in text and in bytes; bodyOffset counts the BOM in the input's own units", () => {
    const fromText = parseSkillMd(`\uFEFF${text}`);
    expect(fromText.frontmatter?.name).toBe("pdf");
    expect(fromText.bodyOffset).toBe(text.indexOf("# PDF") + 1);
    const bytes = new TextEncoder().encode(`\uFEFF---\nname: café\ndescription: d\n---\nbody`);
    const fromBytes = parseSkillMd(bytes);
    expect(fromBytes.frontmatter).toEqual({ name: "café", description: "d" });
    expect(fromBytes.body).toBe("body");
    expect(new TextDecoder().decode(bytes.subarray(fromBytes.bodyOffset))).toBe("body");
  });

  it("accepts a closing line with trailing spaces and end of file right after it", () => {
    const parsed = parseSkillMd("---\nname: a\ndescription: b\n---   ");
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.body).toBe("");
    expect(parsed.bodyLine).toBe(5);
  });

  it("does not close at '---' inside a value or cut a body horizontal rule", () => {
    const md =
      "---\nname: a\ndescription: before --- after\nnote: |\n  ---\n  still note\n---\nintro\n\n---\n\nafter rule\n";
    const parsed = parseSkillMd(md);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.frontmatter).toEqual({ name: "a", description: "before --- after", note: "---\nstill note\n" });
    expect(parsed.body).toBe("intro\n\n---\n\nafter rule\n");
  });

  it("keeps block scalars, nesting, order and scalar types verbatim", () => {
    const md = [
      "---",
      "name: a",
      "description: >",
      "  Folded text",
      "  on two lines.",
      "literal: |",
      "  keep",
      "  lines",
      "count: 3",
      "ratio: 1.5",
      "flag: true",
      "nothing:",
      "version: '1.0'",
      "metadata:",
      "  z: 1",
      "  a: [x, {y: z}]",
      "---",
      "",
    ].join("\n");
    const fm = parseSkillMd(md).frontmatter;
    expect(fm).toEqual({
      name: "a",
      description: "Folded text on two lines.\n",
      literal: "keep\nlines\n",
      count: 3,
      ratio: 1.5,
      flag: true,
      nothing: null,
      version: "1.0",
      metadata: { z: 1, a: ["x", { y: "z" }] },
    });
    expect(Object.keys(fm ?? {})).toEqual([
      "name",
      "description",
      "literal",
      "count",
      "ratio",
      "flag",
      "nothing",
      "version",
      "metadata",
    ]);
    expect(Object.keys((fm?.metadata ?? {}) as object)).toEqual(["z", "a"]);
  });

  it("records the source text of non-string top-level scalars", () => {
    const parsed = parseSkillMd("---\nname: 2048\ndescription: d\nflag: True\nempty:\nv: 1.0\n---\n");
    expect(Object.fromEntries(parsed.scalarSources)).toEqual({ name: "2048", flag: "True", empty: "", v: "1.0" });
  });

  it("positions keys in file coordinates when the full parser runs", () => {
    const parsed = parseSkillMd("---\n# comment\nname: a\n\n  # another\ndescription: >-\n  x\nlicense: MIT\n---\n");
    expect(parsed.diagnostics).toEqual([]);
    expect(Object.fromEntries(parsed.positions)).toEqual({
      name: { line: 3, column: 1 },
      description: { line: 6, column: 1 },
      license: { line: 8, column: 1 },
    });
  });

  it("treats a file without frontmatter as all body", () => {
    const parsed = parseSkillMd("# Just markdown\n");
    expect(parsed.frontmatter).toBeUndefined();
    expect(parsed.body).toBe("# Just markdown\n");
    expect(parsed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["frontmatter-missing", 1, 1]]);
  });

  it("puts the file name in diagnostics", () => {
    expect(parseSkillMd("nope", { file: "skills/x/SKILL.md" }).diagnostics[0]?.file).toBe("skills/x/SKILL.md");
  });
});

describe("parseSkillMd: bad input never throws and says what is wrong", () => {
  const aliasBomb = [
    "---",
    "a: &a [x,x,x,x,x,x,x,x,x,x]",
    ..."bcdefghi".split("").map((c, i) => `${c}: &${c} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(",")}]`),
    "---",
    "",
  ].join("\n");
  const huge = `---\nname: a\ndescription: ${"x".repeat(10 * 1024 * 1024)}\n---\nbody`;
  const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256);
  const cases: Array<[string, string | Uint8Array, string, number, number]> = [
    ["empty file", "", "frontmatter-missing", 1, 1],
    ["no frontmatter", "# Title\n", "frontmatter-missing", 1, 1],
    ["opener not alone", "--- name: a\n---\n", "frontmatter-missing", 1, 1],
    ["unclosed", "---\nname: a\ndescription: b\n", "frontmatter-unclosed", 1, 1],
    ["closed only by '----'", "---\nname: a\n----\nbody", "frontmatter-unclosed", 1, 1],
    ["invalid YAML", "---\nname: a\ndescription: 'open\n---\n", "yaml-invalid", 4, 1],
    ["not a mapping", "---\n- a\n- b\n---\n", "frontmatter-not-mapping", 2, 1],
    ["scalar frontmatter", "---\njust text\n---\n", "frontmatter-not-mapping", 2, 1],
    ["empty frontmatter", "---\n---\nbody", "frontmatter-not-mapping", 2, 1],
    ["duplicate key", "---\nname: a\ndescription: b\nname: c\n---\n", "yaml-duplicate-key", 4, 1],
    ["tab indentation", "---\nname: a\nmetadata:\n\tk: v\n---\n", "yaml-invalid", 4, 1],
    ["alias bomb", aliasBomb, "yaml-too-many-aliases", 2, 1],
    ["self-referencing alias", "---\na: &a [*a, *a, *a]\n---\n", "yaml-alias-cycle", 2, 8],
    ["alias cycle through a map", "---\na: &a\n  b:\n    c: *a\n---\n", "yaml-alias-cycle", 4, 8],
    ["10 MB frontmatter", huge, "frontmatter-too-large", 2, 1],
    ["deep flow nesting", `---\nx: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n---\n`, "yaml-too-deep", 2, 1],
    ["deep block nesting", `---\nx:\n${"- ".repeat(50_000)}a\n---\n`, "yaml-too-deep", 2, 1],
    ["NUL in text", "---\nname: a\u0000b\n---\n", "content-binary", 2, 8],
    ["binary garbage", garbage, "encoding-invalid", 1, 1],
    ["non-UTF-8 bytes", Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]), "encoding-invalid", 1, 1],
  ];

  it.each(cases)("%s", (_label, input, code, line, column) => {
    const parsed = parseSkillMd(input);
    expect(parsed.frontmatter).toBeUndefined();
    expect(parsed.diagnostics[0]).toMatchObject({ code, severity: "error", line, column });
    expect(parsed.diagnostics[0]?.message.length).toBeGreaterThan(10);
  });

  it("enforces maxDepth exactly: 64 levels pass, 65 fail", () => {
    const nested = (n: number) => `---\nx: ${"[".repeat(n - 1)}${"]".repeat(n - 1)}\n---\n`;
    expect(codes(nested(64))).toEqual([]);
    expect(codes(nested(65))).toEqual(["yaml-too-deep"]);
  });

  it("makes every limit an option", () => {
    const md = "---\nname: a\ndescription: b\nlist: &l [1]\nother: *l\n---\n";
    expect(parseSkillMd(md).frontmatter).toEqual({ name: "a", description: "b", list: [1], other: [1] });
    expect(parseSkillMd(md, { limits: { maxAliases: 0 } }).diagnostics.map((d) => d.code)).toEqual([
      "yaml-too-many-aliases",
    ]);
    expect(parseSkillMd(md, { limits: { maxFrontmatterBytes: 10 } }).diagnostics.map((d) => d.code)).toEqual([
      "frontmatter-too-large",
    ]);
    expect(parseSkillMd(md, { limits: { maxDepth: 1 } }).diagnostics.map((d) => d.code)).toEqual(["yaml-too-deep"]);
    expect(parseSkillMd(md, { limits: { maxFrontmatterLines: 3 } }).diagnostics.map((d) => d.code)).toEqual([
      "frontmatter-too-large",
    ]);
    expect(parseSkillMd(md, { limits: { maxFrontmatterLines: 4 } }).diagnostics).toEqual([]);
    expect(DEFAULT_PARSE_LIMITS).toEqual({
      maxFrontmatterBytes: 262144,
      maxAliases: 100,
      maxDepth: 64,
      maxFrontmatterLines: Number.POSITIVE_INFINITY,
    });
  });
});

describe("frontmatter size: only the byte limit refuses (issue 20 item 5, decision 0257)", () => {
  const withMetadataKeys = (n: number) =>
    `---\nname: many-keys\ndescription: A skill with many metadata keys.\nmetadata:\n${Array.from({ length: n }, (_, i) => `  key${i}: value ${i}`).join("\n")}\n---\n# Body\n`;

  it.each([2_000, 10_000])("%i metadata keys below the byte limit are a valid skill (skills-ref accepts them)", (n) => {
    const md = withMetadataKeys(n);
    expect(new TextEncoder().encode(md).byteLength).toBeLessThan(DEFAULT_PARSE_LIMITS.maxFrontmatterBytes);
    const parsed = parseSkillMd(md);
    expect(parsed.diagnostics).toEqual([]);
    expect(Object.keys(parsed.frontmatter?.metadata as object)).toHaveLength(n);
    expect(parsed.body).toBe("# Body\n");
  });

  it("a frontmatter over the byte limit is still refused, before any YAML work", () => {
    const before = yamlPassWork.steps;
    const parsed = parseSkillMd(withMetadataKeys(30_000));
    expect(parsed.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["frontmatter-too-large", "the frontmatter is larger than the limit of 262144 bytes"],
    ]);
    expect(yamlPassWork.steps).toBe(before);
  });

  // Shapes a hostile frontmatter can take: many keys at the top, under one key, sequences, flow maps, comments,
  // invalid lines (tabs) that send the parser down its error and repair paths.
  const SHAPES: Array<[string, string, (i: number) => string]> = [
    ["top-level keys", "", (i) => `k${i}: v`],
    ["metadata keys", "metadata:", (i) => `  k${i}: v`],
    ["a sequence of maps", "list:", (i) => `- k${i}: v`],
    ["flow maps", "metadata:", (i) => `  k${i}: {a: [1, 2], b: c}`],
    ["comments", "", (i) => `# note ${i}`],
    ["tab-indented keys (invalid)", "metadata:", (i) => `\tk${i}: v`],
    ["unquoted colons (repaired)", "", (i) => `k${i}: Use when: x`],
  ];
  const frontmatterOf = (head: string, line: (i: number) => string, bytes: number) => {
    const lines = ["name: a", "description: b", ...(head ? [head] : [])];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
      const next = line(i);
      lines.push(next);
      size += next.length + 1;
    }
    return `---\n${lines.join("\n")}\n---\n`;
  };
  const stepsFor = (md: string) => {
    const before = yamlPassWork.steps;
    parseSkillMd(md, { fastPath: false });
    return yamlPassWork.steps - before;
  };

  it.each(SHAPES)("the parser's own passes are linear in the input: %s", (_label, head, line) => {
    const small = frontmatterOf(head, line, 16 * 1024);
    const large = frontmatterOf(head, line, 64 * 1024);
    const [a, b] = [stepsFor(small), stepsFor(large)];
    expect(a).toBeGreaterThan(0);
    // 4x the input may cost at most ~4x the steps (quadratic would be 16x), and never more than a few per character.
    expect(b / a).toBeLessThan(4.5);
    expect(b).toBeLessThan(large.length * 4);
  });

  it("finds duplicate keys in nested maps itself (the library's own check is quadratic and turned off)", () => {
    const nested = parseSkillMd("---\nname: a\ndescription: b\nmetadata:\n  x: 1\n  y: 2\n  x: 3\n---\n");
    expect(nested.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["yaml-duplicate-key", 7, 3]]);
    expect(nested.frontmatter).toBeUndefined();
    // Different scalar types are different keys; the same text twice is not.
    expect(parseSkillMd("---\nname: a\ndescription: b\nm:\n  1: a\n  '1': b\n---\n").diagnostics).toEqual([]);
    const flowKeys = parseSkillMd("---\nname: a\ndescription: b\nm: {a: 1, a: 2}\n---\n");
    expect(flowKeys.diagnostics.map((d) => d.code)).toEqual(["yaml-duplicate-key"]);
  });

  it.each([
    ["keys after '...'", "---\nname: a\ndescription: b\n...\nlicense: MIT\n---\n", ["yaml-multiple-documents"], 5],
    ["a '...' with a comment after", "---\nname: a\ndescription: b\n... # end\n\n# note\n---\n", [], 0],
    ["a '...' at the end", "---\nname: a\ndescription: b\n...\n---\n", [], 0],
  ])("a YAML document end marker: %s", (_label, md, codes, line) => {
    const result = parseSkillMd(md);
    expect(result.diagnostics.map((d) => d.code)).toEqual(codes);
    if (line > 0) expect(result.diagnostics[0]?.line).toBe(line);
    if (codes.length === 0) expect(result.frontmatter).toEqual({ name: "a", description: "b" });
  });

  it("reads classic-Mac files with bare CR line ends, as the reference validator does", () => {
    const md = "---\rname: a\rdescription: b\rmetadata:\r  k: v\r---\r# Body\rtext\r";
    const result = parseSkillMd(md);
    expect(result.diagnostics).toEqual([]);
    expect(result.frontmatter).toEqual({ name: "a", description: "b", metadata: { k: "v" } });
    expect(result.body).toBe("# Body\rtext\r");
    expect(result.positions.get("description")).toEqual({ line: 3, column: 1 });
    expect(parseSkillMd(md, { fastPath: false }).frontmatter).toEqual(result.frontmatter);
    // Mixed endings: a bare CR among LFs ends its line too.
    expect(parseSkillMd("---\nname: a\rdescription: b\r\n---\nbody").frontmatter).toEqual({
      name: "a",
      description: "b",
    });
  });

  it("gives aliased values as independent copies", () => {
    const fm = parseSkillMd("---\na: &x {k: v}\nb: *x\n---\n").frontmatter;
    expect(fm?.a).toEqual({ k: "v" });
    expect(fm?.a).not.toBe(fm?.b);
  });

  it("words YAML errors without the YAML parser's own (frontmatter-relative) coordinates", () => {
    const [d] = parseSkillMd("---\nname: a\ndescription: 'open\n---\n").diagnostics;
    expect(d?.message).toMatch(/^invalid YAML: /);
    expect(d?.message).not.toMatch(/line \d+/);
  });

  it("keeps the body when the YAML is invalid", () => {
    const parsed = parseSkillMd("---\na: [\n---\nthe body");
    expect(parsed.frontmatter).toBeUndefined();
    expect(parsed.body).toBe("the body");
  });

  it("throws only for programmer errors", () => {
    expect(() => parseSkillMd(42 as unknown as string)).toThrow(TypeError);
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ maxLength: 200 }), (prefix, rest) => {
        for (const input of [prefix, `---\n${prefix}\n---\n${rest}`, `---\n${rest}`]) {
          const parsed = parseSkillMd(input);
          expect(Array.isArray(parsed.diagnostics)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on YAML-shaped soup (anchors, aliases, flows, tags, block scalars)", () => {
    const token = fc.constantFrom(
      "a",
      "b",
      ": ",
      ":",
      "&a ",
      "&b ",
      "*a",
      "*b",
      "[",
      "]",
      "{",
      "}",
      ", ",
      "- ",
      "? ",
      "!!str ",
      "!x ",
      "|",
      ">-",
      "'",
      '"',
      "#",
      " ",
      "  ",
      "\n",
      "\n  ",
      "\n    ",
      "\t",
      "<<: ",
      "~",
      "1e3",
      "\\",
      "k: &a [*a]\n",
      "x: &b\n  y: *b\n",
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
        const md = `---\n${tokens.join("")}\n---\nbody`;
        for (const fastPath of [true, false]) {
          const parsed = parseSkillMd(md, { fastPath });
          expect(parsed.body).toBe("body");
          if (parsed.frontmatter !== undefined) expect(() => JSON.stringify(parsed.frontmatter)).not.toThrow();
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const withHeader = new Uint8Array([...new TextEncoder().encode("---\n"), ...bytes]);
        parseSkillMd(bytes);
        parseSkillMd(withHeader);
      }),
      { numRuns: 300 },
    );
  });

  it("preserves any body verbatim", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 300 }).filter((s) => !s.includes("\u0000")),
        (body) => {
          const parsed = parseSkillMd(`---\nname: a\ndescription: b\n---\n${body}`);
          expect(parsed.body).toBe(body);
          expect(parsed.frontmatter).toEqual({ name: "a", description: "b" });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("unquoted ': ' recovery", () => {
  it("reads the value as meant and warns at the colon with the fix", () => {
    const parsed = parseSkillMd("---\nname: pdf\ndescription: Use when: the user asks\n---\nbody\n");
    expect(parsed.frontmatter).toEqual({ name: "pdf", description: "Use when: the user asks" });
    expect(parsed.diagnostics).toHaveLength(1);
    expect(parsed.diagnostics[0]).toMatchObject({
      code: "yaml-unquoted-colon",
      severity: "warning",
      line: 3,
      column: 22,
    });
    expect(parsed.diagnostics[0]?.message).toContain('description: "Use when: the user asks"');
    expect(parsed.body).toBe("body\n");
  });

  it("handles other keys, trailing colons, comments, CRLF and continuation lines without moving positions", () => {
    const md =
      "---\r\nname: a\r\ndescription: Note: read\r\n  this first\r\nwhen: always: yes # why\r\nlabel: Ends:\r\nok: plain\r\n---\r\n";
    const parsed = parseSkillMd(md);
    expect(parsed.frontmatter).toEqual({
      name: "a",
      description: "Note: read this first",
      when: "always: yes",
      label: "Ends:",
      ok: "plain",
    });
    expect(parsed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ["yaml-unquoted-colon", 3, 18],
      ["yaml-unquoted-colon", 5, 13],
      ["yaml-unquoted-colon", 6, 12],
    ]);
    expect(parsed.positions.get("ok")).toEqual({ line: 7, column: 1 });
  });

  it("recovers any plain value with ': ' to exactly the text written", () => {
    const word = fc.string({
      unit: fc.constantFrom("a", "Z", "é", "1", ".", ",", "'", '"', "(", ")", "/", "?", "技"),
      minLength: 1,
      maxLength: 6,
    });
    const value = fc
      .array(fc.tuple(word, fc.constantFrom(" ", ": ", " - ", "  ")), { minLength: 1, maxLength: 5 })
      .map((parts) =>
        parts
          .map(([w, sep]) => w + sep)
          .join("")
          .trim(),
      )
      .filter((v) => v.includes(": ") && /^[a-zA-Z0-9é技.(/)]/.test(v) && !v.startsWith("..."));
    fc.assert(
      fc.property(value, (v) => {
        const parsed = parseSkillMd(`---\nname: a\ndescription: ${v}\n---\nbody`);
        expect(parsed.frontmatter).toEqual({ name: "a", description: v });
        expect(parsed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
          ["yaml-unquoted-colon", 3, 14 + v.indexOf(": ")],
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it("still reports real YAML errors next to a recovered line", () => {
    const parsed = parseSkillMd("---\ndescription: a: b\nother: [\n---\n");
    expect(parsed.frontmatter).toBeUndefined();
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(["yaml-unquoted-colon", "yaml-invalid"]);
  });
});

describe("findFrontmatterEnd", () => {
  const cases: Array<[string, string, ReturnType<typeof findFrontmatterEnd>]> = [
    ["closed", "---\na: 1\n---\nbody", { status: "closed", yamlStart: 4, yamlEnd: 9, bodyOffset: 13, bodyLine: 4 }],
    ["closed at EOF", "---\na: 1\n---", { status: "closed", yamlStart: 4, yamlEnd: 9, bodyOffset: 12, bodyLine: 4 }],
    ["CRLF", "---\r\na: 1\r\n---\r\nb", { status: "closed", yamlStart: 5, yamlEnd: 11, bodyOffset: 16, bodyLine: 4 }],
    ["BOM", "\uFEFF---\n---\n", { status: "closed", yamlStart: 5, yamlEnd: 5, bodyOffset: 9, bodyLine: 3 }],
    [
      "trailing blanks",
      "--- \t\na\n---  \nb",
      { status: "closed", yamlStart: 6, yamlEnd: 8, bodyOffset: 14, bodyLine: 4 },
    ],
    ["unclosed", "---\na: 1\n", { status: "unclosed" }],
    ["indented close", "---\na: 1\n ---\n", { status: "unclosed" }],
    ["missing", "a: 1\n---\n", { status: "missing" }],
    ["empty", "", { status: "missing" }],
  ];
  it.each(cases)("%s", (_label, text, expected) => {
    expect(findFrontmatterEnd(text)).toEqual(expected);
  });

  it("on a first chunk, trusts only complete lines", () => {
    expect(findFrontmatterEnd("---\na: 1\n---", { complete: false })).toEqual({ status: "unclosed" });
    expect(findFrontmatterEnd("---\na: 1\n---\n", { complete: false })).toMatchObject({
      status: "closed",
      bodyOffset: 13,
    });
    expect(findFrontmatterEnd("--", { complete: false })).toEqual({ status: "unclosed" });
    expect(findFrontmatterEnd("# x", { complete: false })).toEqual({ status: "missing" });
  });

  it("property: finds what a plain split into lines finds, for whole texts and first chunks", () => {
    // The oracle: lines cut by a regular expression, each judged on its own slice.
    const oracle = (text: string, complete: boolean): ReturnType<typeof findFrontmatterEnd> => {
      const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
      const lines: Array<[from: number, end: number, next: number, terminated: boolean]> = [];
      const breaks = /\r\n|\r|\n/g;
      breaks.lastIndex = start;
      let from = start;
      for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
        // A CR that ends the text may be the first half of a CRLF not read yet: the line is not known to be complete.
        const last = m[0] === "\r" && m.index + 1 === text.length;
        lines.push([from, m.index, m.index + m[0].length, !last]);
        from = m.index + m[0].length;
      }
      if (from < text.length || lines.length === 0) lines.push([from, text.length, text.length, false]);
      const delimiter = (f: number, e: number) => /^---[ \t]*$/.test(text.slice(f, e));
      const [oFrom, oEnd, oNext, oTerminated] = lines[0]!;
      if (!oTerminated && !complete)
        return "---".startsWith(text.slice(oFrom, oEnd).replace(/[ \t]+$/, ""))
          ? { status: "unclosed" }
          : { status: "missing" };
      if (!delimiter(oFrom, oEnd)) return { status: "missing" };
      for (let i = 1; i < lines.length; i++) {
        const [f, e, n, terminated] = lines[i]!;
        if (!terminated && !complete) break;
        if (delimiter(f, e)) return { status: "closed", yamlStart: oNext, yamlEnd: f, bodyOffset: n, bodyLine: i + 2 };
      }
      return { status: "unclosed" };
    };
    const piece = fc.constantFrom("---", "--", "-", " ", "\t", "\r", "\n", "\r\n", "a", "\uFEFF", "x: 1", "----");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.boolean(), (pieces, complete) => {
        const text = pieces.join("");
        expect(findFrontmatterEnd(text, { complete })).toEqual(oracle(text, complete));
      }),
      { numRuns: 5000 },
    );
  });

  it("agrees with parseSkillMd on where the body starts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("---", "--- ", "a: 1", "----", "", " ---", "x\r"), { maxLength: 8 }),
        fc.constantFrom("\n", "\r\n"),
        (lines, eol) => {
          const text = lines.join(eol);
          const bounds = findFrontmatterEnd(text);
          const parsed = parseSkillMd(text);
          if (bounds.status === "closed") expect(parsed.body).toBe(text.slice(bounds.bodyOffset));
          else
            expect(parsed.diagnostics[0]?.code).toBe(
              bounds.status === "missing" ? "frontmatter-missing" : "frontmatter-unclosed",
            );
        },
      ),
    );
  });
});

describe("parseFrontmatter fast path", () => {
  it("handles the common flat shape, with one level of metadata", () => {
    const yamlText =
      "name: pdf\ndescription: 'Use when it''s a PDF'\nlicense: \"MIT\"\nmetadata:\n  author: me\n  version: 2\nempty:\n";
    expect(parseFlatFrontmatter(yamlText)?.frontmatter).toEqual({
      name: "pdf",
      description: "Use when it's a PDF",
      license: "MIT",
      metadata: { author: "me", version: 2 },
      empty: null,
    });
    for (const fallback of [
      "a:\n \tb: 1\n",
      "a: yes # c\n",
      "a: |+\n  x\n",
      "a: [1]\n",
      "a: &x 1\n",
      "a: ~\n",
      "a: 1e3\n",
      "a: 'x\n",
      "  a: 1\n",
      "a:\n    b: 1\n  c: 2\n",
    ]) {
      expect(parseFlatFrontmatter(fallback)).toBeUndefined();
    }
  });

  it("leaves a value that is blank only to JavaScript (no-break space, BOM, U+3000) to the full parser, which reads text", () => {
    for (const blank of ["\u00a0", "\ufeff", "\u3000", " \u00a0 ", "\t\u00a0"]) {
      const yamlText = `name: ${blank}\n`;
      expect(parseFlatFrontmatter(yamlText), JSON.stringify(blank)).toBeUndefined();
      const md = `---\n${yamlText}---\n`;
      expect(parseFrontmatter(md).frontmatter).toEqual(yamlParse(yamlText, { version: "1.2", logLevel: "silent" }));
    }
    // Spaces and tabs are YAML's white space: blank, so null, on the fast path.
    expect(parseFlatFrontmatter("name: \t \n")?.frontmatter).toEqual({ name: null });
  });

  it("returns metadata and the body offset without the body", () => {
    const result = parseFrontmatter("---\nname: a\ndescription: b\n---\nBODY");
    expect(result).toMatchObject({
      frontmatter: { name: "a", description: "b" },
      bodyOffset: 31,
      bodyLine: 5,
      diagnostics: [],
    });
    expect("body" in result).toBe(false);
  });

  // Tokens chosen to sit on every edge of the fast path: YAML 1.2 core-schema scalars, quoting, comments, colons.
  const valueToken = fc.constantFrom(
    "plain",
    "two words",
    "Use when the user asks",
    "C#",
    "a#b",
    "x:y",
    "http://e.com/a?b=c",
    "yes",
    "no",
    "on",
    "off",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "False",
    "TRUE",
    "1",
    "-1",
    "+1",
    "007",
    "-0",
    "1.5",
    "1.0",
    "1.",
    ".5",
    "1e3",
    "0x1F",
    "0o17",
    "1_000",
    ".inf",
    "-.Inf",
    ".nan",
    "2001-12-14",
    "12:30",
    "'single'",
    "'it''s'",
    "'a' 'b'",
    '"double"',
    '"esc\\n"',
    '"a"b"',
    "''",
    '""',
    "[a, b]",
    "{k: v}",
    "&anchor x",
    "*alias",
    "!tag x",
    "|",
    ">",
    "- item",
    "? q",
    "% x",
    "@x",
    "`x`",
    "a: b",
    "end:",
    "a #c",
    "trail  ",
    "tab\there",
    "ünïcödé",
    "日本語",
    "emoji 😀",
    "x'y",
    '"q\'"',
    "'q\"'",
    ",lead",
    "lead,",
    "a ,b",
    "-dash",
    "--",
    "---x",
    "...x",
    "a\u0085b",
    "9999999999999999999",
    "1e",
  );
  // Random short strings over the characters that matter to YAML, to find edges the list above misses.
  const charSoup = fc.string({
    unit: fc.constantFrom("a", "Z", "1", "0", " ", ":", "#", "'", '"', ".", "-", "e", "x", "~", "\\", ",", "é"),
    maxLength: 8,
  });
  // Double-quoted values with escapes, the simple ones the fast path reads and every other kind YAML knows.
  const escape = fc.constantFrom(
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\u00e9",
    "\\u6280",
    "\\U0001F600",
    "\\ud83d",
    "\\uDC00",
    "\\u12",
    "\\x41",
    "\\0",
    "\\ ",
    "\\N",
    "\\_",
    "\\r",
    "\\e",
    "\\q",
    "\\",
  );
  const quoted = fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom("a", "Use when", " ", "é", "技", "'", "#", ":", '"'), weight: 3 },
        { arbitrary: escape, weight: 2 },
      ),
      { maxLength: 6 },
    )
    .map((parts) => `"${parts.join("")}"`);
  const value = fc.oneof(
    { arbitrary: fc.constantFrom("plain", "Use when x", "1", "2.5", "true", "'q'", '"d"', "a-b c"), weight: 10 },
    { arbitrary: valueToken, weight: 2 },
    { arbitrary: charSoup, weight: 2 },
    { arbitrary: quoted, weight: 3 },
  );
  const keyToken = fc.oneof(
    {
      arbitrary: fc.constantFrom("name", "description", "license", "allowed-tools", "metadata", "x_y", "a1", "Key"),
      weight: 5,
    },
    { arbitrary: fc.constantFrom("true", "null", "1", "-k", "__proto__", "k k", "k:", "é"), weight: 1 },
  );
  const line = fc.oneof(
    { arbitrary: fc.tuple(keyToken, value).map(([k, v]) => `${k}: ${v}`), weight: 6 },
    { arbitrary: fc.tuple(keyToken, value).map(([k, v]) => `  ${k}: ${v}`), weight: 2 },
    { arbitrary: fc.tuple(keyToken, value).map(([k, v]) => `    ${k}: ${v}`), weight: 1 },
    { arbitrary: keyToken.map((k) => `${k}:`), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        "",
        "# comment",
        "  ",
        "\t",
        "...",
        " - x",
        "key:value",
        "metadata:",
        "  nested:",
        " \tk: v",
        "  k:\tv",
        "k: v\r",
      ),
      weight: 1,
    },
  );

  // Block scalars: the four headers the fast path reads, and near misses (keep chomping, indentation indicators,
  // comments, tabs) that must fall back; content lines that are plain, empty, more or less indented, or dirty.
  const blockHeader = fc.oneof(
    { arbitrary: fc.constantFrom("|", ">", "|-", ">-"), weight: 8 },
    { arbitrary: fc.constantFrom("|+", ">+", ">2", "|1", "|2-", ">-2", "| # c", "|\t", "|x", "> x"), weight: 2 },
  );
  const blockText = fc.oneof(
    {
      arbitrary: fc.constantFrom("Summarise a CSV file:", "row and column counts", "x", "Use when the user asks"),
      weight: 8,
    },
    {
      arbitrary: fc.constantFrom(
        "# not a comment",
        "k: v",
        "- item",
        "'q'",
        '"d"',
        "a  b",
        "ünïcödé 日本語",
        "---",
        "...",
        "[a]",
        "{k}",
        "&a *b",
        "|",
        ">",
        "trailing ",
        "tab\there",
        "\ttab",
        "a\u0085b",
        "x\ry",
      ),
      weight: 3,
    },
    { arbitrary: charSoup.filter((t) => t !== ""), weight: 2 },
  );
  type BlockLine = { text: string; shift: number } | "empty" | "blank";
  const blockLine: fc.Arbitrary<BlockLine> = fc.oneof(
    { arbitrary: blockText.map((text) => ({ text, shift: 0 })), weight: 10 },
    { arbitrary: fc.constant("empty" as const), weight: 3 },
    { arbitrary: fc.tuple(blockText, fc.constantFrom(1, 2)).map(([text, shift]) => ({ text, shift })), weight: 1 },
    { arbitrary: blockText.map((text) => ({ text, shift: -1 })), weight: 1 },
    { arbitrary: fc.constant("blank" as const), weight: 1 },
  );
  const renderBlock = (key: string, header: string, indent: number, content: readonly BlockLine[]): string[] => [
    `${key}: ${header}`,
    ...content.map((l) =>
      l === "empty" ? "" : l === "blank" ? " ".repeat(indent) : " ".repeat(indent + l.shift) + l.text,
    ),
  ];
  const block = fc
    .tuple(keyToken, blockHeader, fc.constantFrom(1, 2, 2, 4), fc.array(blockLine, { minLength: 0, maxLength: 5 }))
    .map(([k, header, indent, content]) => renderBlock(k, header, indent, content));
  const lineGroup = fc.oneof({ arbitrary: line.map((l) => [l]), weight: 4 }, { arbitrary: block, weight: 2 });

  it("gives exactly what the yaml package gives, or falls back", () => {
    let fastHits = 0;
    let blockHits = 0;
    fc.assert(
      fc.property(fc.array(lineGroup, { minLength: 1, maxLength: 6 }), fc.constantFrom("\n", "\r\n"), (groups, eol) => {
        const yamlText = groups.flat().join(eol) + eol;
        const md = `---\n${yamlText}---\nbody`;
        const fast = parseFrontmatter(md, { fastPath: true });
        const full = parseFrontmatter(md, { fastPath: false });
        expect(fast).toEqual(full);
        const flat = parseFlatFrontmatter(yamlText);
        if (flat) {
          fastHits++;
          if (/: [|>]-?\r?$/m.test(yamlText)) blockHits++;
          const reference: unknown = yamlParse(yamlText, { version: "1.2", logLevel: "silent" });
          expect(flat.frontmatter).toEqual(reference);
          expect(JSON.stringify(flat.frontmatter)).toBe(JSON.stringify(reference));
          expect(full.diagnostics).toEqual([]);
        }
      }),
      { numRuns: 1000 },
    );
    // The generator must exercise the fast path, not only the fallback.
    expect(fastHits).toBeGreaterThan(80);
    expect(blockHits).toBeGreaterThan(15);
  });

  // The split of a line into key and value (one regular expression since decision 0215): keys next to the edge of
  // the plain-key rule, every separator the colon may meet, values with edge whitespace (Unicode spaces that `trim`
  // removes and YAML does not, long runs of spaces), and the characters that end or comment a plain scalar.
  it("splits `key: value` lines exactly as yaml does, or falls back", () => {
    const key = fc.constantFrom(
      "name",
      "a",
      "Z9",
      "a-b_c",
      "description",
      "k k",
      "k ",
      " k",
      "-k",
      "_k",
      "9k",
      "é",
      "kë",
      "k.k",
      "null",
      "True",
      "constructor",
      "__proto__",
    );
    const separator = fc.constantFrom(
      ":",
      ": ",
      ":  ",
      ":\t",
      ": \t",
      " :",
      "::",
      ":\u00a0",
      ": \u3000",
      ": \ufeff",
      ": \u2028",
      ": " + " ".repeat(40),
    );
    const valueText = fc.constantFrom(
      "",
      "x",
      "two words",
      "a:b",
      "a: b",
      "a:",
      "a #b",
      "a#b",
      "#c",
      "1",
      "-2.5",
      "true",
      "null",
      "'q'",
      '"d"',
      "\u00a0",
      "\u3000x",
      "x\u00a0",
      "é",
      "技術",
    );
    const trailing = fc.constantFrom("", " ", "   ", "\t", "\u00a0", " ".repeat(40));
    const pairLine = fc.tuple(key, separator, valueText, trailing).map(([k, sep, v, t]) => `${k}${sep}${v}${t}`);
    fc.assert(
      fc.property(fc.array(pairLine, { minLength: 1, maxLength: 4 }), fc.boolean(), (lines, nested) => {
        const yamlText = (nested ? ["metadata:", ...lines.map((l) => `  ${l}`)] : lines).join("\n") + "\n";
        const md = `---\n${yamlText}---\n`;
        expect(parseFrontmatter(md, { fastPath: true })).toEqual(parseFrontmatter(md, { fastPath: false }));
        const flat = parseFlatFrontmatter(yamlText);
        if (flat) expect(flat.frontmatter).toEqual(yamlParse(yamlText, { version: "1.2", logLevel: "silent" }));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes the fast path for double-quoted values with the simple escapes, with yaml's value", () => {
    const simple = fc.constantFrom(
      '\\"',
      "\\\\",
      "\\/",
      "\\n",
      "\\t",
      "\\u00e9",
      "\\u00E9",
      "\\u6280",
      "\\u0041",
      "\\uffff",
    );
    const plain = fc.constantFrom("a", "Use when", " ", "é", "技", "'", "#", ":", "[x]");
    fc.assert(
      fc.property(fc.array(fc.oneof(simple, plain), { minLength: 1, maxLength: 8 }), (parts) => {
        const yamlText = `name: a\ndescription: "${parts.join("")}"\n`;
        const flat = parseFlatFrontmatter(yamlText);
        expect(flat).toBeDefined();
        expect(flat?.frontmatter).toEqual(yamlParse(yamlText, { version: "1.2", logLevel: "silent" }));
      }),
      { numRuns: 500 },
    );
    for (const fallback of ['"\\x41"', '"\\ud83d\\ude00"', '"a\\ b"', '"\\u12"', '"a"b"', '"\\"']) {
      expect(parseFlatFrontmatter(`description: ${fallback}\n`)).toBeUndefined();
    }
  });

  const clean = fc
    .string({
      unit: fc.constantFrom("a", "Z", "é", "技", " ", ":", "#", "-", "'", '"', "[", "|", ">", "1"),
      minLength: 1,
      maxLength: 10,
    })
    .filter((t) => !t.startsWith(" ") && !t.endsWith(" "));
  const content = fc.array(fc.oneof({ arbitrary: clean, weight: 4 }, { arbitrary: fc.constant(""), weight: 1 }), {
    minLength: 0,
    maxLength: 6,
  });

  it("takes the fast path for every plain top-level block scalar, with yaml's value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("|", ">", "|-", ">-"),
        fc.integer({ min: 1, max: 6 }),
        clean,
        content,
        fc.constantFrom(0, 2),
        fc.boolean(),
        fc.constantFrom("\n", "\r\n"),
        (header, indent, first, rest, deeper, last, eol) => {
          // Literal scalars may hold more-indented lines; folded ones fall back on them, so they get none.
          const body = [first, ...rest].map((t, i) =>
            t === "" ? "" : " ".repeat(indent + (header.startsWith("|") && i % 2 === 1 ? deeper : 0)) + t,
          );
          const lines = ["name: a", `description: ${header}`, ...body, ...(last ? [] : ["license: MIT"])];
          const yamlText = lines.join(eol) + eol;
          const flat = parseFlatFrontmatter(yamlText);
          expect(flat).toBeDefined();
          expect(flat?.frontmatter).toEqual(yamlParse(yamlText, { version: "1.2", logLevel: "silent" }));
          expect(flat?.keyLines.get("description")).toBe(1);
          if (!last) expect(flat?.keyLines.get("license")).toBe(lines.length - 1);
          expect(parseFrontmatter(`---\n${yamlText}---\n`, { fastPath: true })).toEqual(
            parseFrontmatter(`---\n${yamlText}---\n`, { fastPath: false }),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  // One defect in an otherwise plain block scalar. Some of these `yaml` reads to the same value (tabs, trailing
  // spaces), so equality alone cannot pin them down: the fast path must leave every one to the full parser.
  const defects = [
    "|+",
    ">+",
    ">2",
    "|1-",
    "| # c",
    "|\t",
    "folded-deeper",
    "less",
    "tab",
    "tab-start",
    "trailing",
    "unsafe",
    "first-empty",
    "all-empty",
    "blank",
    "no-break",
  ] as const;
  it("leaves every near-miss block scalar to the full parser", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("|", ">", "|-", ">-"),
        fc.integer({ min: 2, max: 5 }),
        clean,
        content,
        fc.constantFrom(...defects),
        fc.constantFrom("\u0085", "\u2028", "\ufeff", "\u0001", "\r"),
        fc.constantFrom("\n", "\r\n"),
        (plainHeader, indent, first, rest, defect, unsafe, eol) => {
          const pad = " ".repeat(indent);
          const header =
            defect.startsWith("|") || defect.startsWith(">") ? defect : defect === "folded-deeper" ? ">" : plainHeader;
          const firstLine =
            { tab: `${first}\tx`, "tab-start": `\t${first}`, trailing: `${first} `, unsafe: `${first}${unsafe}x` }[
              defect as string
            ] ?? first;
          let body = [firstLine, ...rest].map((t) => (t === "" ? "" : pad + t));
          if (defect === "folded-deeper") body.splice(1, 0, `${pad} deeper`);
          if (defect === "less") body.splice(1, 0, `${" ".repeat(indent - 1)}less`);
          if (defect === "blank") body.splice(1, 0, pad);
          if (defect === "first-empty") body.unshift("");
          if (defect === "all-empty") body = [];
          const last = defect === "no-break";
          while (last && body[body.length - 1] === "") body.pop();
          const yamlText =
            ["name: a", `description: ${header}`, ...body, ...(last ? [] : ["license: MIT"])].join(eol) +
            (last ? "" : eol);
          expect(parseFlatFrontmatter(yamlText)).toBeUndefined();
          const md = `---\n${yamlText}${last ? eol : ""}---\n`;
          expect(parseFrontmatter(md, { fastPath: true })).toEqual(parseFrontmatter(md, { fastPath: false }));
        },
      ),
      { numRuns: 500 },
    );
  });

  const blockCases: Array<[string, string, string | undefined]> = [
    ["literal, clip", "d: |\n  x\n  y\n", "x\ny\n"],
    ["literal, strip", "d: |-\n  x\n  y\n", "x\ny"],
    ["folded, clip", "d: >\n  x\n  y\n", "x y\n"],
    ["folded, strip", "d: >-\n  x\n  y\n", "x y"],
    ["folded, one empty line is one break", "d: >\n  x\n\n  y\n", "x\ny\n"],
    ["folded, two empty lines are two breaks", "d: >\n  x\n\n\n  y\n", "x\n\ny\n"],
    ["literal keeps every empty line", "d: |\n  x\n\n\n  y\n", "x\n\n\ny\n"],
    ["literal keeps deeper indentation", "d: |\n  x\n    y\n", "x\n  y\n"],
    ["trailing empty lines clipped to one break", "d: |\n  x\n\n\nb: 1\n", "x\n"],
    ["trailing empty lines stripped", "d: >-\n  x\n\nb: 1\n", "x"],
    ["one-space indentation", "d: >\n x y  z\n", "x y  z\n"],
    [
      "content that looks like YAML is text",
      "d: |\n  # c\n  k: v\n  - i\n  'q'\n  ---\n",
      "# c\nk: v\n- i\n'q'\n---\n",
    ],
    ["spaces around the header", "d:   >-   \n  x\n", "x"],
    ["CRLF", "d: >\r\n  x\r\n\r\n  y\r\n\r\nb: 1\r\n", "x\ny\n"],
    ["keep chomping", "d: |+\n  x\n\n", undefined],
    ["indentation indicator", "d: >2\n   x\n", undefined],
    ["comment after the header", "d: | # c\n  x\n", undefined],
    ["first line empty", "d: |\n\n  x\n", undefined],
    ["no content", "d: |\nb: 1\n", undefined],
    ["no content at the end", "d: >\n", undefined],
    ["less indented line", "d: |\n   x\n  y\n", undefined],
    ["more indented line in a folded scalar", "d: >\n  x\n    y\n  z\n", undefined],
    ["whitespace-only line", "d: >\n  x\n  \n  y\n", undefined],
    ["trailing space", "d: |\n  x  \n", undefined],
    ["tab in content", "d: >\n  x\ty\n", undefined],
    ["tab after indentation", "d: >\n  \tx\n", undefined],
    ["unsafe character", "d: |\n  a\u2028b\n", undefined],
    ["comment after the block", "d: >\n  x\n# c\nb: 1\n", undefined],
    ["no final line break", "d: |\n  x", undefined],
    ["nested block scalar", "m:\n  d: |\n    x\n", undefined],
  ];
  it.each(blockCases)("block scalar: %s", (_label, yamlText, expected) => {
    const flat = parseFlatFrontmatter(yamlText);
    if (expected === undefined) expect(flat).toBeUndefined();
    else {
      expect(flat?.frontmatter.d).toBe(expected);
      expect(flat?.frontmatter).toEqual(yamlParse(yamlText, { version: "1.2", logLevel: "silent" }));
      expect([...(flat?.keyLines ?? [])]).toEqual(
        [...yamlText.split("\n").entries()]
          .filter(([, l]) => /^[a-z]+:/.test(l))
          .map(([i, l]) => [l.slice(0, l.indexOf(":")), i]),
      );
      expect(flat?.scalarSources.has("d")).toBe(false);
    }
    const md = `---\n${yamlText}${yamlText.endsWith("\n") ? "" : "\n"}---\n`;
    expect(parseFrontmatter(md, { fastPath: true })).toEqual(parseFrontmatter(md, { fastPath: false }));
  });
});
