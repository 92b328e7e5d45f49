import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonSchema } from "@skillport/plugin";
import { compileOutputCheck, MAX_OUTPUT_DEPTH, toPlainData } from "./output.js";

const Tree: z.ZodType<{ name: string; children?: unknown[] }> = z.object({
  name: z.string(),
  get children() {
    return z.array(Tree).optional();
  },
});

/** Output schemas as authors write them, a valid output, and an output of the wrong shape. */
const cases: Array<[string, z.ZodObject, unknown, unknown]> = [
  [
    "strings with refinements the export loses (regex flags, formats)",
    z.object({ code: z.string().regex(/^ab+$/i), mail: z.email(), at: z.iso.datetime(), link: z.url() }),
    { code: "ABB", mail: "a@b.co", at: "2024-01-01T00:00:00Z", link: "https://x.test/" },
    { code: 1, mail: "a@b.co", at: "x", link: "y" },
  ],
  [
    "numbers, enums, literals, nullables, defaults",
    z.object({
      n: z.number().int().min(0),
      e: z.enum(["a", "b"]),
      l: z.literal("k"),
      x: z.string().nullable(),
      d: z.number().default(1),
    }),
    { n: 3, e: "a", l: "k", x: null, d: 1 },
    { n: -1, e: "a", l: "k", x: null, d: 1 },
  ],
  [
    "records, tuples, arrays with bounds",
    z.object({
      r: z.record(z.string(), z.number()),
      t: z.tuple([z.string(), z.number()]),
      a: z.array(z.string()).min(1),
    }),
    { r: { x: 1 }, t: ["s", 1], a: ["z"] },
    { r: { x: "1" }, t: ["s", 1], a: [] },
  ],
  [
    "unions and discriminated unions",
    z.object({
      u: z.union([z.string(), z.number()]),
      d: z.discriminatedUnion("k", [z.object({ k: z.literal("a") }), z.object({ k: z.literal("b"), v: z.number() })]),
    }),
    { u: 1, d: { k: "b", v: 2 } },
    { u: true, d: { k: "b" } },
  ],
  [
    "recursive schemas ($ref)",
    z.object({ tree: Tree }),
    { tree: { name: "r", children: [{ name: "c" }] } },
    { tree: { name: "r", children: [{ name: 1 }] } },
  ],
  [
    "properties named like keywords",
    z.object({ pattern: z.string(), format: z.number() }),
    { pattern: "p", format: 1 },
    { pattern: "p" },
  ],
];

describe("compileOutputCheck: the host checks what the author's schema checks, structurally", () => {
  it.each(cases)("%s", (_name, schema, valid, invalid) => {
    const check = compileOutputCheck(z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as JsonSchema);
    expect(check(schema.parse(valid))).toBeUndefined();
    expect(check(invalid)).toMatchObject({ code: "PLUGIN_OUTPUT_INVALID" });
  });

  it("extra keys are not a mismatch on the host, even for strict objects (outputs may be wider: decision 0183)", () => {
    for (const schema of [z.object({ a: z.string() }), z.strictObject({ a: z.string() })]) {
      const check = compileOutputCheck(
        z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as JsonSchema,
      );
      expect(check({ a: "x", extra: 1 })).toBeUndefined();
      expect(check({ a: 1 })).toMatchObject({ code: "PLUGIN_OUTPUT_INVALID" });
    }
  });

  it("hand-written schemas: what zod cannot read is left out, the rest is still checked", () => {
    const check = compileOutputCheck({
      type: "object",
      properties: {
        a: { type: "string" },
        f: { type: "file" },
        r: { $ref: "https://example.test/x.json" },
        n: { type: ["number", "decimal"] },
      },
      required: ["a"],
      if: { properties: { a: { const: "x" } } },
      then: { required: ["b"] },
      not: { required: ["z"] },
      dependentRequired: { a: ["c"] },
    } as JsonSchema);
    expect(check({ a: "x", f: 1, r: [], n: 2 })).toBeUndefined();
    expect(check({ a: 1 })).toMatchObject({ code: "PLUGIN_OUTPUT_INVALID" });
    expect(check({ a: "x", n: "2" })).toMatchObject({ code: "PLUGIN_OUTPUT_INVALID" });
  });

  it("a schema zod cannot read at all is checked for its top-level type", () => {
    const check = compileOutputCheck({ type: "object", properties: { a: { $ref: "#/nowhere" } } } as JsonSchema);
    expect(check({ anything: 1 })).toBeUndefined();
    expect(check("text")).toMatchObject({ code: "PLUGIN_OUTPUT_INVALID" });
  });

  it("words a failure like the worker does", () => {
    const check = compileOutputCheck(z.toJSONSchema(z.object({ text: z.string() })) as JsonSchema);
    expect(check({ text: 42 })?.message).toBe('output field "text": Invalid input: expected string, received number');
    expect(check({})?.message).toBe('output field "text": is required');
  });
});

describe("toPlainData", () => {
  it('drops an own "__proto__" key at any depth and keeps everything else', () => {
    const parsed = JSON.parse(
      '{"a": [{"__proto__": {"polluted": 1}, "b": 2}], "__proto__": {"polluted": 1}}',
    ) as unknown;
    const copy = toPlainData(parsed) as { a: Array<Record<string, unknown>> };
    expect(copy).toEqual({ a: [{ b: 2 }] });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(copy.a[0])).toBe(Object.prototype);
    expect(Object.hasOwn(copy, "__proto__")).toBe(false);
    expect((Object.assign({}, copy, copy.a[0]) as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("keeps structured-clone values that are not plain objects", () => {
    const bytes = new Uint8Array([1, 2]);
    const copy = toPlainData({ bytes, when: new Date(0) }) as { bytes: Uint8Array; when: Date };
    expect(copy.bytes).toBe(bytes);
    expect(copy.when).toEqual(new Date(0));
  });

  it(`refuses data nested deeper than ${MAX_OUTPUT_DEPTH} levels instead of exhausting the stack`, () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => toPlainData(deep)).toThrow(/nested deeper than 200 levels/);
    let fine: unknown = "leaf";
    for (let i = 0; i < MAX_OUTPUT_DEPTH; i++) fine = { x: fine };
    expect(() => toPlainData(fine)).not.toThrow();
  });
});
