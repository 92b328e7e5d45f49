import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { CANONICAL_HEADER, canonicalText, computeVersionId, isVersionId, type CanonicalFile } from "./index.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("computeVersionId", () => {
  it("hashes the documented canonical text", () => {
    const files: CanonicalFile[] = [
      { path: "skills/a/SKILL.md", mode: 0o644, sha256: sha("a") },
      { path: "entrypoint.sh", mode: 0o755, sha256: sha("e") },
    ];
    const text = `skillport-package-v1\nentrypoint.sh\u0000755\u0000${sha("e")}\nskills/a/SKILL.md\u0000644\u0000${sha("a")}\n`;
    expect(CANONICAL_HEADER).toBe("skillport-package-v1\n");
    expect(canonicalText(files)).toBe(text);
    const digest = sha(text);
    expect(computeVersionId(files)).toEqual({ versionId: digest.slice(0, 24), digest: `sha256:${digest}` });
  });

  it("sorts by UTF-8 bytes, not UTF-16 code units", () => {
    // U+FF5E (3 UTF-8 bytes, EF BD 9E) sorts before U+1F600 (F0 9F 98 80) in UTF-8 but after it in UTF-16.
    const files = [
      { path: "\u{1F600}.md", mode: 0o644, sha256: sha("1") },
      { path: "\uFF5E.md", mode: 0o644, sha256: sha("2") },
    ];
    expect(
      canonicalText(files)
        .split("\n")
        .slice(1, 3)
        .map((l) => l.split("\u0000")[0]),
    ).toEqual(["\uFF5E.md", "\u{1F600}.md"]);
  });

  it("normalises modes by the owner-execute bit", () => {
    const a = computeVersionId([{ path: "x", mode: 0o700, sha256: sha("x") }]);
    const b = computeVersionId([{ path: "x", mode: 0o755, sha256: sha("x") }]);
    const c = computeVersionId([{ path: "x", mode: 0o600, sha256: sha("x") }]);
    expect(a).toEqual(b);
    expect(c.versionId).not.toBe(a.versionId);
  });

  const fileList = fc.uniqueArray(
    fc.record({
      path: fc.stringMatching(/^[a-z0-9._-]{1,12}(\/[a-z0-9._-]{1,12}){0,3}$/),
      mode: fc.constantFrom(0o644, 0o755),
      sha256: fc.stringMatching(/^[a-f0-9]{64}$/),
    }),
    { selector: (f) => f.path, minLength: 1, maxLength: 20 },
  );

  it("is independent of input order and always shaped like a FastGPT version id", () => {
    fc.assert(
      fc.property(fileList, fc.integer(), (files, seed) => {
        const shuffled = [...files].sort((x, y) => (sha(x.path + seed) < sha(y.path + seed) ? -1 : 1));
        const id = computeVersionId(files);
        expect(computeVersionId(shuffled)).toEqual(id);
        expect(isVersionId(id.versionId)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("changes when any path, mode or content hash changes", () => {
    fc.assert(
      fc.property(fileList, fc.nat(), fc.constantFrom("path", "mode", "sha256"), (files, index, field) => {
        const i = index % files.length;
        const changed = files.map((f, j) => {
          if (j !== i) return f;
          if (field === "path") return { ...f, path: `${f.path}~` };
          if (field === "mode") return { ...f, mode: f.mode === 0o644 ? 0o755 : 0o644 };
          return { ...f, sha256: sha(f.sha256) };
        });
        fc.pre(new Set(changed.map((f) => f.path)).size === changed.length);
        expect(computeVersionId(changed).versionId).not.toBe(computeVersionId(files).versionId);
      }),
      { numRuns: 100 },
    );
  });
});
