import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseSkillMd } from "./parse.js";
import { serializeSkillMd } from "./serialize.js";
import type { Frontmatter, FrontmatterValue } from "./types.js";

describe("serializeSkillMd", () => {
  it("writes keys in order between '---' lines and the body verbatim", () => {
    const text = serializeSkillMd(
      { name: "pdf", description: "Use when: PDFs", metadata: { b: "1", a: "2" } },
      "# PDF\n",
    );
    expect(text).toBe('---\nname: pdf\ndescription: "Use when: PDFs"\nmetadata:\n  b: "1"\n  a: "2"\n---\n# PDF\n');
  });

  it("never folds a long string and quotes strings YAML would read as something else", () => {
    const long = `${"word ".repeat(60)}end: still one line`;
    const fm = { description: long, version: "1.0", flag: "true", nothing: "~", date: "2001-12-14", hex: "0x1F" };
    const text = serializeSkillMd(fm, "");
    expect(text.split("\n").filter((l) => l.startsWith("description:"))).toHaveLength(1);
    expect(parseSkillMd(text).frontmatter).toEqual(fm);
  });

  it("writes an empty mapping so it still parses as one", () => {
    expect(serializeSkillMd({}, "body")).toBe("---\n{}\n---\nbody");
    expect(parseSkillMd(serializeSkillMd({}, "body")).frontmatter).toEqual({});
  });

  it("keeps '---' lines inside values from closing the frontmatter", () => {
    const fm = { name: "a", description: "x\n---\ny", "---": "k" };
    const parsed = parseSkillMd(serializeSkillMd(fm, "---\nbody"));
    expect(parsed.frontmatter).toEqual(fm);
    expect(parsed.body).toBe("---\nbody");
  });

  const key = fc.oneof(
    fc.constantFrom(
      "name",
      "description",
      "metadata",
      "allowed-tools",
      "---",
      "...",
      "a: b",
      "# x",
      "yes",
      "1",
      "__proto__",
      "<<",
    ),
    fc.string({ maxLength: 12 }),
  );
  const text = fc.string({ unit: "grapheme", maxLength: 60 }).filter((s) => !s.includes("\u0000"));
  const scalar: fc.Arbitrary<FrontmatterValue> = fc.oneof(
    text,
    fc.constantFrom(
      "---",
      "...",
      "yes",
      "~",
      "1e3",
      " lead",
      "trail ",
      "a: b",
      "# c",
      "line\n",
      "\n\n",
      "x\r\ny",
      "\t",
      "'",
      '"',
    ),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec<{ v: FrontmatterValue }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("v"), { maxLength: 3 }),
      fc.dictionary(key, tie("v"), { maxKeys: 3 }),
    ),
  })).v;
  const frontmatter = fc.dictionary(key, value, { maxKeys: 6 }) as fc.Arbitrary<Frontmatter>;

  it("round-trips: parse(serialize(fm, body)) gives fm and body back", () => {
    fc.assert(
      fc.property(frontmatter, text, (fm, body) => {
        const parsed = parseSkillMd(serializeSkillMd(fm, body));
        expect(parsed.diagnostics).toEqual([]);
        expect(parsed.frontmatter).toEqual(fm);
        expect(Object.keys(parsed.frontmatter ?? {})).toEqual(Object.keys(fm));
        expect(parsed.body).toBe(body);
      }),
      { numRuns: 200 },
    );
  });

  it("round-trips parsed SKILL.md text", () => {
    const md = "---\nname: a\ndescription: >\n  folded\n  text\nmetadata:\n  k: [1, two]\n---\nbody\n";
    const first = parseSkillMd(md);
    const again = parseSkillMd(serializeSkillMd(first.frontmatter ?? {}, first.body));
    expect(again.frontmatter).toEqual(first.frontmatter);
    expect(again.body).toBe(first.body);
  });
});
