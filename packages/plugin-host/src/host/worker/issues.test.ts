import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatIssuePath, formatIssues } from "./issues.js";

describe("formatIssuePath", () => {
  it.each([
    [[], "(root)"],
    [["text"], "text"],
    [["items", 0, "name"], "items[0].name"],
    [[0], "[0]"],
  ] as const)("%j → %s", (path, expected) => {
    expect(formatIssuePath(path)).toBe(expected);
  });
});

describe("formatIssues", () => {
  const schema = z.object({ text: z.string().min(1), items: z.array(z.object({ n: z.number() })) });
  const issuesOf = (value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? [] : result.error.issues;
  };

  it("names every failing field, and says a missing one is required", () => {
    expect(formatIssues("input", issuesOf({ items: [{ n: "1" }] }))).toBe(
      'input field "text": is required; input field "items[0].n": Invalid input: expected number, received string',
    );
  });

  it("shows at most five issues and counts the rest", () => {
    const many = issuesOf({ text: "", items: Array.from({ length: 7 }, () => ({})) });
    expect(many).toHaveLength(8);
    expect(formatIssues("output", many)).toMatch(/^output field "text": Too small.*; and 3 more$/);
  });
});
