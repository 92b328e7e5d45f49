// The one rule for untrusted text on a terminal (decision 0260), as properties over any string.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutralise, safeJson } from "./terminal-text.js";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const OWN_STYLE = /\u001b\[(?:1|2|22|3[1-6]|39)m/gu;
// Strings rich in the characters that matter: controls, ESC-led sequences, bidi, CR LF, and ordinary text.
const hostile = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        "\u001b",
        "\u001b]52;c;eA==\u0007",
        "\u001b[31m",
        "\u001b[1m",
        "\u009b",
        "\u009d",
        "\r",
        "\r\n",
        "\n",
        "\t",
        "\u202e",
        "\u2066",
        "\u007f",
        "\u0000",
      ),
      fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)),
    ),
  )
  .map((parts) => parts.join(""));

describe("neutralise", () => {
  it("leaves no control or bidi character, whatever the input", () => {
    fc.assert(fc.property(hostile, (text) => !CONTROL.test(neutralise(text))));
  });

  it("with keepStyles, only the CLI's own colour sequences survive", () => {
    fc.assert(fc.property(hostile, (text) => !CONTROL.test(neutralise(text, true).replace(OWN_STYLE, ""))));
  });

  it("changes nothing in text without controls (tab and line feed stay)", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !CONTROL.test(s)),
        (text) => neutralise(text) === text,
      ),
    );
  });

  it.each([
    ["OSC 52, BEL", "\u001b]52;c;ZXZpbA==\u0007", "\\x1b]52;c;ZXZpbA==\\x07"],
    ["OSC 52, ST", "\u001b]52;c;ZXZpbA==\u001b\\", "\\x1b]52;c;ZXZpbA==\\x1b\\"],
    ["8-bit CSI", "\u009b2J", "\\x9b2J"],
    ["bidi override", "a\u202eb", "a\\u202eb"],
    ["a lone carriage return", "safe\rfake", "safe\\x0dfake"],
    ["CR LF", "a\r\nb", "a\nb"],
    ["a colour sequence without keepStyles", "\u001b[31mred", "\\x1b[31mred"],
  ])("%s", (_name, raw, shown) => {
    expect(neutralise(raw)).toBe(shown);
  });

  it("keepStyles passes exactly the CLI's styles, not others", () => {
    expect(neutralise("\u001b[1mbold\u001b[22m \u001b[8mhidden\u001b[0m", true)).toBe(
      "\u001b[1mbold\u001b[22m \\x1b[8mhidden\\x1b[0m",
    );
  });
});

describe("safeJson", () => {
  it("is one line without an indent (NDJSON), indented with one", () => {
    expect(safeJson({ a: [1, "\u009b"] })).toBe('{"a":[1,"\\u009b"]}');
    expect(safeJson({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
  });

  it("is the same value with nothing raw in it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (value, text) => {
        const input = { value, text };
        const json = safeJson(input, 2);
        return !CONTROL.test(json) && JSON.stringify(JSON.parse(json)) === JSON.stringify(input);
      }),
    );
  });
});
