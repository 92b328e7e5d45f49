import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { join, normalize, resolve } from "node:path";
import { isInside } from "./files.js";

describe("isInside", () => {
  it.each([
    ["/p", "/p", true],
    ["/p", "/p/dist", true],
    ["/p", "/p/..dist", true],
    ["/p", "/p/../q", false],
    ["/p", "/", false],
    ["/p/dist", "/p", false],
    ["/p", "/pq", false],
  ])("isInside(%s, %s) = %s", (parent, child, expected) => {
    expect(isInside(parent, resolve(child))).toBe(expected);
  });

  it("agrees with a segment-wise prefix test for any relative path", () => {
    const segment = fc.constantFrom("a", "b", "..", ".", "..a", "a..");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const parent = "/root/plugin";
        const child = resolve(join(parent, ...segments));
        const expected = child === parent || child.startsWith(`${parent}/`);
        expect(isInside(parent, normalize(child))).toBe(expected);
      }),
    );
  });
});
