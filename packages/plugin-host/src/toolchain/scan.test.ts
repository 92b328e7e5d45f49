import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { findInvokeUses, findSecretLiterals } from "./scan.js";

describe("findInvokeUses", () => {
  it.each([
    ["ctx.invoke.uploadFile({ file })", ["uploadFile"]],
    ["e.invoke.userInfo()", ["userInfo"]],
    ["ctx.invoke?.teamInfo()", ["teamInfo"]],
    ["ctx . invoke . model({messages: []})", ["model"]],
    ['ctx.invoke["dataset"]({query})', ["dataset"]],
    ["const { uploadFile, model } = ctx.invoke;", ["model", "uploadFile"]],
    ["const { userInfo: who } = ctx.invoke", ["userInfo"]],
    ["uploadFile(x); invokeLater.model()", []],
    ["ctx.invoke.somethingElse()", []],
    ["a.invoke.uploadFile(); b.invoke.uploadFile(); c.invoke.dataset()", ["dataset", "uploadFile"]],
  ])("%s", (code, expected) => {
    expect(findInvokeUses(code)).toEqual(expected);
  });
});

describe("findSecretLiterals", () => {
  it.each([
    ["const key = 'sk-abcdefghijklmnopqrstuvwx';", ["PLUGIN_SECRET_LITERAL"], 1],
    ["headers: { id: 'AKIAABCDEFGHIJKLMNOP' }", ["PLUGIN_SECRET_LITERAL"], 1],
    ['\nconst apiToken = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";', ["PLUGIN_SECRET_LITERAL"], 2],
    ["const config = { clientSecret: `QmFzZTY0U2VjcmV0VmFsdWUxMjM0NQ==` }", ["PLUGIN_SECRET_LITERAL"], 1],
    ["const base = process.env.BASE_URL;", ["PLUGIN_ENV_ACCESS"], 1],
    ["const apiKey = ctx.secrets.apiKey;", [], 0],
    ["const tokenizer = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa';", [], 0],
    ["const keyName = 'x-api-key-header-name-here';", [], 0],
    ["const title = 'a perfectly ordinary sentence';", [], 0],
  ])("%s", (code, codes, line) => {
    const found = findSecretLiterals("index.ts", code);
    expect(found.map((d) => d.code)).toEqual(codes);
    if (line > 0) expect(found[0]?.line).toBe(line);
  });

  it("never repeats the suspected value", () => {
    const [found] = findSecretLiterals("lib/x.ts", "const key = 'sk-abcdefghijklmnopqrstuvwx';");
    expect(found).toMatchObject({ file: "lib/x.ts", line: 1, column: 14, severity: "warning" });
    expect(found?.message).not.toContain("abcdefghijklmnop");
  });
});

describe("findSecretLiterals (property)", () => {
  it("flags every sk- key assigned anywhere and never echoes it", () => {
    const key = fc
      .string({ unit: fc.constantFrom(..."abcdefXYZ0123456789_-".split("")), minLength: 20, maxLength: 40 })
      .map((s) => `sk-${s}`);
    fc.assert(
      fc.property(key, fc.constantFrom("const a = ", "x: ", "call("), (value, prefix) => {
        const found = findSecretLiterals("index.ts", `${prefix}'${value}'`);
        expect(found.map((d) => d.code)).toContain("PLUGIN_SECRET_LITERAL");
        for (const d of found) expect(d.message).not.toContain(value);
      }),
    );
  });
});
