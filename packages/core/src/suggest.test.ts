import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { suggestClosest } from "./suggest.js";

const FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

describe("suggestClosest", () => {
  it.each([
    ["descripton", "description"],
    ["desciption", "description"],
    ["Description", "description"],
    ["licence", "license"],
    ["nmae", "name"],
    ["allowed_tools", "allowed-tools"],
    ["metdata", "metadata"],
    ["homepage", undefined],
    ["tags", undefined],
    ["name", undefined],
    ["x", undefined],
  ])("%s → %s", (word, expected) => {
    expect(suggestClosest(word, FIELDS)).toBe(expected);
  });

  it("property: a single edit of a long candidate is always found", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELDS.filter((f) => f.length > 4)),
        fc.nat(),
        fc.constantFrom("x", "q", "_"),
        (field, at, char) => {
          const i = at % field.length;
          const typo = field.slice(0, i) + char + field.slice(i + 1);
          if (typo !== field) expect(suggestClosest(typo, FIELDS)).toBe(field);
        },
      ),
    );
  });
});
