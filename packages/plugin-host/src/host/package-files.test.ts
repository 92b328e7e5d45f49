import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unsafePathReason } from "./package-files.js";

describe("unsafePathReason", () => {
  it.each([
    ["index.js", undefined],
    ["assets/icons/a.svg", undefined],
    ["", "empty path"],
    ["/etc/passwd", "is absolute"],
    ["C:/x", "is absolute"],
    ["a\\b", "contains a backslash"],
    ["a/../b", 'has a ".." segment'],
    ["./a", 'has a "." segment'],
    ["a//b", 'has a "empty" segment'],
    ["a\0b", "contains a NUL byte"],
  ])("%j → %s", (path, reason) => {
    expect(unsafePathReason(path)).toBe(reason);
  });

  it("accepts only paths that stay inside the package", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b.js", "..", ".", "", "/", "\\", "c:"), { maxLength: 6 }), (parts) => {
        const path = parts.join("/");
        if (unsafePathReason(path) !== undefined) return true;
        // Accepted: resolving it under a root never climbs out.
        const resolved = new URL(path, "file:///root/pkg/").pathname;
        return resolved.startsWith("/root/pkg/") && !path.startsWith("/");
      }),
    );
  });
});
