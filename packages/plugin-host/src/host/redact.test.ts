import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactText, secretValues } from "./redact.js";

describe("secretValues", () => {
  it("collects nested strings and long numbers, longest first, skipping short values", () => {
    expect(secretValues({ apiKey: "sk-1234", nested: { token: "abcdefgh", list: ["zzzz", "no"] }, pin: 123456, flag: true })).toEqual([
      "abcdefgh",
      "sk-1234",
      "123456",
      "zzzz",
    ]);
    expect(secretValues(undefined)).toEqual([]);
  });
});

describe("createRedactor", () => {
  it("replaces secrets in strings, keys and nested values, leaving other data alone", () => {
    const redact = createRedactor({ key: "hunter22" });
    expect(redact({ message: "key=hunter22!", hunter22: [1, "xhunter22x"], n: 5, ok: null })).toEqual({
      message: `key=${REDACTED}!`,
      [REDACTED]: [1, `x${REDACTED}x`],
      n: 5,
      ok: null,
    });
  });

  it("replaces a secret that contains another secret whole", () => {
    expect(redactText("token abcd-efgh", secretValues({ a: "abcd", b: "abcd-efgh" }))).toBe(`token ${REDACTED}`);
  });

  it("is the identity without secrets", () => {
    const value = { a: "b" };
    expect(createRedactor({})(value)).toBe(value);
  });

  it("never lets a secret through, wherever it is embedded", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4 }), fc.string(), fc.string(), (secret, before, after) => {
        const out = redactText(`${before}${secret}${after}`, secretValues({ secret }));
        return !out.includes(secret) || REDACTED.includes(secret);
      }),
    );
  });
});
