// The rule of decision 0252 as a property: the declared schema's verdict is set aside only when every declared
// field that is present is valid, some required one is absent, and undeclared keys came instead.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { legacyKeysStandingIn } from "./input.js";

const KEYS = ["expr", "text", "n", "数学表达式", "legacy"] as const;

describe("legacyKeysStandingIn", () => {
  it("lets the tool decide exactly when declared fields are only absent and undeclared keys are there", () => {
    fc.assert(
      fc.property(
        fc.subarray([...KEYS], { minLength: 1 }),
        fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(fc.string(), fc.integer(), fc.constant(undefined))),
        (declared, dictionary) => {
          const raw: Record<string, unknown> = { ...dictionary }; // a plain object, as the channel delivers input
          const schema = z.object(Object.fromEntries(declared.map((key) => [key, z.string()])));
          const parsed = schema.safeParse(raw);
          if (parsed.success) return;
          const result = legacyKeysStandingIn(schema, raw, parsed.error.issues);
          const presentAllValid = declared.every((key) => raw[key] === undefined || typeof raw[key] === "string");
          const undeclared = Object.keys(raw).filter((key) => !(declared as string[]).includes(key));
          expect(result).toEqual(presentAllValid && undeclared.length > 0 ? undeclared : undefined);
        },
      ),
    );
  });

  it.each([
    ["a nested field that is absent", z.object({ a: z.object({ b: z.string() }) }), { a: {}, legacy: 1 }],
    ["a schema that is not an object", z.string(), { legacy: 1 }],
    ["input that is not an object", z.object({ expr: z.string() }), ["legacy"]],
  ])("keeps the declared verdict for %s", (_name, schema, raw) => {
    const parsed = schema.safeParse(raw);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(legacyKeysStandingIn(schema, raw, parsed.error.issues)).toBeUndefined();
  });
});
