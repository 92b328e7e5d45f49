import { describe, expect, it } from "vitest";
import fc from "fast-check";
import path from "node:path";
import {
  assertSafeSkillId,
  isSafeResourcePath,
  isSafeSkillId,
  normalizeResourcePath,
  requireSafeResourcePath,
  requireSafeSkillId,
  resourceKindPath,
} from "./safe-path.js";
import { InvalidPathError, ResourceNotFoundError, SkillNotFoundError } from "./errors.js";

const rejectedPaths: Array<[string, string, RegExp]> = [
  ["empty", "", /empty path/],
  ["dot", ".", /segment "\."/],
  ["dot-dot", "..", /segment "\.\."/],
  ["leading traversal", "../etc/passwd", /segment "\.\."/],
  ["inner traversal", "a/../../b", /segment "\.\."/],
  ["dot segment", "a/./b", /segment "\."/],
  ["leading dot segment", "./a", /segment "\."/],
  ["empty segment", "a//b", /empty segment/],
  ["trailing slash", "a/", /empty segment/],
  ["absolute", "/etc/passwd", /absolute path/],
  ["backslash traversal", "..\\..\\windows\\system32", /backslash/],
  ["backslash separator", "a\\b", /backslash/],
  ["UNC", "\\\\server\\share", /UNC/],
  ["drive letter", "C:/Windows", /drive-letter/],
  ["drive letter relative", "C:x", /drive-letter/],
  ["colon (ADS)", "file.txt:stream", /':'/],
  ["NUL", "ok\0.md", /NUL/],
  ["newline", "a\nb", /control/],
  ["DEL", "a\u007fb", /control/],
  ["C1 control", "a\u0085b", /control/],
  ["encoded traversal", "%2e%2e%2fetc%2fpasswd", /encoded form is unsafe/],
  ["encoded slash traversal", "..%2f..%2fx", /segment "\.\."/],
  ["encoded dot-dot segment", "a/%2e%2e/b", /encoded form is unsafe/],
  ["upper-case encoded", "%2E%2E/x", /encoded form is unsafe/],
  ["encoded backslash", "a%5cb", /encoded form is unsafe/],
  ["encoded NUL", "ok%00.md", /encoded form is unsafe/],
  ["encoded absolute", "%2fetc%2fpasswd", /encoded form is unsafe/],
  ["double-encoded traversal", "%252e%252e%252fx", /encoded form is unsafe/],
  ["fullwidth traversal (NFKC)", "\uff0e\uff0e\uff0fx", /encoded form is unsafe/],
  ["two-dot leader (NFKC)", "a/\u2025/b", /encoded form is unsafe/],
  ["too long", "a".repeat(1025), /longer than 1024/],
  ["too deep", Array.from({ length: 33 }, () => "d").join("/"), /deeper than 32/],
];

const acceptedPaths = [
  "SKILL.md",
  "references/notes.md",
  "scripts/run.sh",
  "assets/diagram.svg",
  "a/b/c/d.txt",
  ".gitignore",
  "references/.hidden",
  "..foo",
  "foo..",
  "a..b/c",
  "100%.md", // not percent-encoding: taken literally
  "100%25.md", // decodes to 100%.md: harmless
  "技能/说明.md",
  "with space.md",
  "a".repeat(1024),
];

describe("normalizeResourcePath", () => {
  it.each(rejectedPaths)("rejects %s", (_label, input, reason) => {
    expect(() => normalizeResourcePath(input)).toThrow(InvalidPathError);
    expect(() => normalizeResourcePath(input)).toThrow(reason);
    expect(isSafeResourcePath(input)).toBe(false);
  });

  it.each(acceptedPaths)("accepts %j unchanged", (input) => {
    expect(normalizeResourcePath(input)).toBe(input);
    expect(isSafeResourcePath(input)).toBe(true);
  });

  it("honours the limit options", () => {
    expect(() => normalizeResourcePath("abcdef", { maxLength: 5 })).toThrow(/longer than 5/);
    expect(() => normalizeResourcePath("a/b/c", { maxDepth: 2 })).toThrow(/deeper than 2/);
    expect(normalizeResourcePath("a/b", { maxDepth: 2 })).toBe("a/b");
  });

  it("rejects non-strings without crashing", () => {
    expect(() => normalizeResourcePath(42 as unknown as string)).toThrow(InvalidPathError);
    expect(isSafeResourcePath(undefined as unknown as string)).toBe(false);
  });

  it("error carries the offending path and code", () => {
    const error = (() => {
      try {
        normalizeResourcePath("../x");
      } catch (e) {
        return e as InvalidPathError;
      }
      return undefined;
    })();
    expect(error?.code).toBe("INVALID_PATH");
    expect(error?.path).toBe("../x");
    expect(error?.message).toBe('invalid path "../x": segment ".." is not allowed');
  });
});

const segmentChars = fc.constantFrom(
  "a",
  "b",
  ".",
  "/",
  "\\",
  ":",
  "%",
  "2",
  "e",
  "f",
  "\0",
  " ",
  "\uff0e",
  "\n",
  "5",
  "c",
);
const anyPath = fc.oneof(
  fc.string({ unit: segmentChars, maxLength: 24 }),
  fc
    .array(fc.constantFrom("..", ".", "", "a", "b.md", "%2e%2e", "%2f", "c:", "x\\y", "%252e"), { maxLength: 6 })
    .map((s) => s.join("/")),
  fc.string({ maxLength: 24 }),
);

describe("resource path properties", () => {
  it("no accepted path ever leaves the root when joined and normalised", () => {
    const root = path.posix.join("/", "skills", "root");
    fc.assert(
      fc.property(anyPath, (p) => {
        if (!isSafeResourcePath(p)) return;
        const joined = path.posix.normalize(path.posix.join(root, p));
        expect(joined.startsWith(`${root}/`)).toBe(true);
        const win = path.win32.normalize(path.win32.join("C:\\skills\\root", p));
        expect(win.startsWith("C:\\skills\\root\\")).toBe(true);
        // a layer that percent-decodes once more still stays inside
        let decoded = p;
        try {
          decoded = decodeURIComponent(p);
        } catch {
          /* literal */
        }
        expect(path.posix.normalize(path.posix.join(root, decoded)).startsWith(`${root}/`)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("accepted paths are stable under normalisation", () => {
    fc.assert(
      fc.property(anyPath, (p) => {
        if (!isSafeResourcePath(p)) return;
        const once = normalizeResourcePath(p);
        expect(normalizeResourcePath(once)).toBe(once);
        expect(path.posix.normalize(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it("isSafeResourcePath agrees with normalizeResourcePath", () => {
    fc.assert(
      fc.property(anyPath, (p) => {
        let threw = false;
        try {
          normalizeResourcePath(p);
        } catch (e) {
          threw = true;
          expect(e).toBeInstanceOf(InvalidPathError);
        }
        expect(isSafeResourcePath(p)).toBe(!threw);
      }),
      { numRuns: 2000 },
    );
  });
});

const rejectedIds: Array<[string, string, RegExp]> = [
  ["empty", "", /empty id/],
  ["dot", ".", /segment "\."/],
  ["dot-dot", "..", /segment "\.\."/],
  ["slash", "a/b", /'\/'/],
  ["traversal", "../etc/passwd", /'\/'/],
  ["inner traversal", "a/../../b", /'\/'/],
  ["absolute", "/etc/passwd", /'\/'/],
  ["backslash", "..\\..\\windows\\system32", /backslash/],
  ["colon", "nacos:skills", /':'/],
  ["drive", "C:", /':'/],
  ["NUL", "ok\0.md", /NUL/],
  ["tab", "a\tb", /control/],
  ["encoded traversal", "%2e%2e%2fetc%2fpasswd", /encoded form is unsafe/],
  ["encoded slash", "a%2fb", /encoded form is unsafe/],
  ["encoded dot-dot", "%2e%2e", /encoded form is unsafe/],
  ["double-encoded", "%252e%252e", /encoded form is unsafe/],
  ["leading dot", ".git", /starts with '\.'/],
  ["trailing dot", "pdf.", /ends with '\.' or a space/],
  ["trailing space", "pdf ", /ends with '\.' or a space/],
  ["leading space", " pdf", /whitespace/],
  ["fullwidth solidus", "a\uff0fb", /encoded form is unsafe/],
  ["too long", "a".repeat(256), /longer than 255/],
];

const acceptedIds = [
  "pdf",
  "conformance-skill",
  "a_b.c-d",
  "技能",
  "мой-навык",
  "Upper",
  "-leading-hyphen",
  "a".repeat(255),
  "v1.2",
  "100%",
];

describe("assertSafeSkillId", () => {
  it.each(rejectedIds)("rejects %s", (_label, id, reason) => {
    expect(() => assertSafeSkillId(id)).toThrow(InvalidPathError);
    expect(() => assertSafeSkillId(id)).toThrow(reason);
    expect(isSafeSkillId(id)).toBe(false);
  });

  it.each(acceptedIds)("accepts %j", (id) => {
    expect(() => assertSafeSkillId(id)).not.toThrow();
    expect(isSafeSkillId(id)).toBe(true);
  });

  it("every accepted id is a single safe path segment", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: segmentChars, maxLength: 12 }), fc.string({ maxLength: 12 })), (id) => {
        if (!isSafeSkillId(id)) return;
        expect(isSafeResourcePath(id)).toBe(true);
        expect(path.posix.normalize(path.posix.join("/root", id))).toBe(`/root/${id}`);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("provider-facing helpers", () => {
  it("requireSafeSkillId turns an unsafe id into SkillNotFoundError with the cause", () => {
    expect(requireSafeSkillId("pdf")).toBe("pdf");
    try {
      requireSafeSkillId("../x");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SkillNotFoundError);
      expect((e as SkillNotFoundError).skillId).toBe("../x");
      expect((e as Error).cause).toBeInstanceOf(InvalidPathError);
    }
  });

  it("requireSafeResourcePath turns an unsafe path into ResourceNotFoundError", () => {
    expect(requireSafeResourcePath("s", "references/a.md")).toBe("references/a.md");
    try {
      requireSafeResourcePath("s", "../SKILL.md");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ResourceNotFoundError);
      expect((e as ResourceNotFoundError).path).toBe("../SKILL.md");
      expect((e as Error).cause).toBeInstanceOf(InvalidPathError);
    }
  });

  it.each([
    ["references", "notes.md", "references/notes.md"],
    ["scripts", "run.sh", "scripts/run.sh"],
    ["assets", "diagram.svg", "assets/diagram.svg"],
  ] as const)("resourceKindPath(%s, %s) = %s", (kind, name, expected) => {
    expect(resourceKindPath("s", kind, name)).toBe(expected);
  });

  it.each([
    "../SKILL.md",
    "../../other/references/x.md",
    "sub/x.md",
    "..",
    "",
    "a\\b",
    "%2e%2e%2fx",
    "/etc/passwd",
    "ok\0.md",
  ])("resourceKindPath refuses %j with ResourceNotFoundError", (name) => {
    expect(() => resourceKindPath("s", "references", name)).toThrow(ResourceNotFoundError);
  });
});
