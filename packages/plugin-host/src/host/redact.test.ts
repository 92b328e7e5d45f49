import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactText, secretValues } from "./redact.js";

describe("secretValues", () => {
  it("collects nested strings and long numbers, longest first, skipping short values", () => {
    expect(
      secretValues({ apiKey: "sk-1234", nested: { token: "abcdefgh", list: ["zzzz", "no"] }, pin: 123456, flag: true }),
    ).toEqual(["abcdefgh", "sk-1234", "123456", "zzzz"]);
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

// Issue 8, hole 7: a plugin that encodes a secret before echoing it must not get it past the host.
describe("redaction of encoded secrets", () => {
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
  const hex = (text: string) => Buffer.from(text, "utf8").toString("hex");
  /** What of `encode(before + secret + after)` carries the secret alone (base64 mixes neighbouring bits at the edges). */
  const base64Core = (encoded: string, before: string, secret: string) => {
    const start = Buffer.byteLength(before, "utf8");
    const end = start + Buffer.byteLength(secret, "utf8");
    const core = encoded.slice(Math.ceil((8 * start) / 6), Math.floor((8 * end) / 6));
    return core;
  };

  // Secrets as services issue them: letters, digits and the usual punctuation, at least 8 characters.
  const secretArb = fc.string({
    minLength: 8,
    maxLength: 48,
    unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:@!$&'()*,;%\"\\ "),
  });
  const contextArb = fc.string({ maxLength: 24, unit: "grapheme" });

  const cases: Array<[string, (before: string, secret: string, after: string) => [text: string, leaked: string]]> = [
    ["exact", (b, s, a) => [b + s + a, s]],
    ["upper case", (b, s, a) => [(b + s + a).toUpperCase(), s.toUpperCase()]],
    ["lower case", (b, s, a) => [(b + s + a).toLowerCase(), s.toLowerCase()]],
    ["hex", (b, s, a) => [hex(b + s + a), hex(s)]],
    ["HEX", (b, s, a) => [hex(b + s + a).toUpperCase(), hex(s).toUpperCase()]],
    ["URL-encoded", (b, s, a) => [encodeURIComponent(b + s + a), encodeURIComponent(s)]],
    [
      "form-encoded",
      (b, s, a) => [
        new URLSearchParams({ q: b + s + a }).toString(),
        new URLSearchParams({ q: s }).toString().slice(2),
      ],
    ],
    ["JSON-escaped", (b, s, a) => [JSON.stringify({ v: b + s + a }), JSON.stringify(s).slice(1, -1)]],
    ["base64", (b, s, a) => [b64(b + s + a), base64Core(b64(b + s + a), b, s)]],
    ["base64url", (b, s, a) => [b64url(b + s + a), base64Core(b64url(b + s + a), b, s)]],
  ];

  it.each(cases)("%s: the encoded secret never survives, wherever it is embedded", (_name, encode) => {
    fc.assert(
      fc.property(secretArb, contextArb, contextArb, (secret, before, after) => {
        const [text, leaked] = encode(before, secret, after);
        const out = createRedactor({ secret })({ message: text }).message;
        return !out.includes(leaked);
      }),
      { numRuns: 300 },
    );
  });

  it("finds a password inside an HTTP Basic credential and a URL", () => {
    const redact = createRedactor({ password: "correct horse battery" });
    const basic = `Authorization: Basic ${b64("alice:correct horse battery")}`;
    expect(redact(basic)).not.toContain(b64("alice:correct horse battery").slice(8, 30));
    expect(redact("https://alice:correct%20horse%20battery@example.test/")).toBe(
      `https://alice:${REDACTED}@example.test/`,
    );
  });

  it("leaves ordinary text alone", () => {
    const redact = createRedactor({ key: "sk-live-abcdef123456" });
    const text = "The quick brown fox jumps over the lazy dog; base64 aGVsbG8= and hex 68656c6c6f stay.";
    expect(redact(text)).toBe(text);
  });

  it('never turns a "__proto__" key into the copy\'s prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": "yes"}, "text": "sk-live-abcdef"}') as Record<string, unknown>;
    const out = createRedactor({ key: "sk-live-abcdef" })(value);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(out.text).toBe(REDACTED);
  });

  it("reaches a secret hidden deep in nested data", () => {
    let deep: unknown = "key sk-live-abcdef";
    for (let i = 0; i < 150; i++) deep = { next: [deep] };
    expect(JSON.stringify(createRedactor({ key: "sk-live-abcdef" })(deep))).not.toContain("sk-live-abcdef");
  });

  it("finds a secret in bytes (a Uint8Array in the output), raw or encoded", () => {
    const redact = createRedactor({ key: "sk-live-ÄÖ-abcdef" });
    const raw = new TextEncoder().encode("prefix sk-live-ÄÖ-abcdef suffix");
    const hexed = new TextEncoder().encode(`h=${Buffer.from("sk-live-ÄÖ-abcdef").toString("hex")}`);
    expect(new TextDecoder().decode(redact({ file: raw }).file)).toBe(`prefix ${REDACTED} suffix`);
    expect(new TextDecoder().decode(redact(hexed))).toBe(`h=${REDACTED}`);
    const clean = new Uint8Array([1, 2, 3, 250]);
    expect(redact(clean)).toBe(clean);
  });
});
