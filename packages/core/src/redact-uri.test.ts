import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactUri, redactUriCredentials } from "./redact-uri.js";

describe("redactUri", () => {
  it.each([
    ["postgres://postgres:s3cret@127.0.0.1:5432/db", "postgres://postgres:***@127.0.0.1:5432/db"],
    ["postgresql://u:p%40ss@h/db?sslmode=require", "postgresql://u:***@h/db?sslmode=require"],
    ["mysql://root@127.0.0.1:3306/test", "mysql://root@127.0.0.1:3306/test"],
    ["mysql://root:@127.0.0.1/test", "mysql://root:***@127.0.0.1/test"],
    ["postgres://u:p@ss@word@host/db", "postgres://u:***@host/db"],
    ["postgres://u:pa/ss#x@host/db", "postgres://u:***@host/db"],
    ["git+https://ghp_token123@github.com/o/r.git#main:skills", "git+https://***@github.com/o/r.git#main:skills"],
    ["https://example.com/skills@v1/index.json", "https://example.com/skills@v1/index.json"],
    ["postgres://h/db?password=hunter22&sslmode=disable", "postgres://h/db?password=***&sslmode=disable"],
    ["sqlite:./skills.db", "sqlite:./skills.db"],
    ["./plain/path", "./plain/path"],
  ])("%s → %s", (input, expected) => {
    expect(redactUri(input)).toBe(expected);
  });

  it("never shows a password, whatever characters it holds (property)", () => {
    const passwordChar = fc.constantFrom(..."abcXYZ019@:/#?%!$&'()*+,;=~-._".split(""));
    fc.assert(
      fc.property(
        fc.string({ unit: passwordChar, minLength: 1, maxLength: 20 }),
        fc.constantFrom("postgres", "mysql", "git+https", "mariadb"),
        (tail, scheme) => {
          const password = `Zq${tail}`; // a marker that user, host and path below never contain
          const uri = `${scheme}://user:${password}@db.example:5432/name?x=1`;
          expect(redactUri(uri)).not.toContain(password);
          expect(redactUriCredentials(`cannot connect to "${uri}": refused`)).not.toContain(password);
        },
      ),
    );
  });
});

describe("redactUriCredentials", () => {
  it("redacts every address in a message and leaves the rest alone", () => {
    const text = "copy postgres://a:one1@h/x to mysql://b:two2@h/y failed (connection refused)";
    expect(redactUriCredentials(text)).toBe(
      "copy postgres://a:***@h/x to mysql://b:***@h/y failed (connection refused)",
    );
  });

  it("leaves text without addresses unchanged", () => {
    expect(redactUriCredentials('skill "x" not found: a@b c:d')).toBe('skill "x" not found: a@b c:d');
  });
});
