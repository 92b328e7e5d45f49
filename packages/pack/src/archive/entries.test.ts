import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AgentSkillsError, isSafeResourcePath } from "@skillport/core";
import { readArchive } from "../index.js";
import { buildTar, buildZip } from "../__fixtures__/archives.js";
import { wrapperPrefix } from "./entries.js";

// Names built from the pieces that break extractors: separators, dots, drive letters, NUL, case and Unicode forms.
const piece = fc.constantFrom(
  "a",
  "A",
  "b",
  ".",
  "..",
  "",
  "/",
  "\\",
  "C:",
  ":",
  "\u0000",
  "%2e%2e",
  "\u00e9",
  "e\u0301",
  "skills",
  "~",
  " ",
);
const entryName = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));

describe("archive entry names (property)", () => {
  it("either refuse the archive with a typed error or yield only safe, unique, relative paths", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryName, { minLength: 1, maxLength: 5 }), fc.boolean(), async (names, asTar) => {
        const entries = names.map((name, i) => ({ name, data: `file ${i}` }));
        let result;
        try {
          result = await readArchive(
            asTar ? buildTar(entries.filter((e) => Buffer.byteLength(e.name) < 100)) : buildZip(entries),
          );
        } catch (error) {
          expect(error).toBeInstanceOf(AgentSkillsError);
          return;
        }
        const seen = new Set<string>();
        for (const file of result.files) {
          expect(isSafeResourcePath(file.path)).toBe(true);
          const key = file.path.normalize("NFC").toLowerCase();
          expect(seen.has(key)).toBe(false);
          seen.add(key);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("wrapperPrefix", () => {
  it.each([
    [["pkg/skills/a/SKILL.md", "pkg/entrypoint.sh"], "pkg"],
    [["pkg", "pkg/skills/a/SKILL.md"], "pkg"],
    [["skills/a/SKILL.md"], undefined],
    [["pkg/skills/a/SKILL.md", "other/x"], undefined],
    [["pkg/a/SKILL.md"], undefined],
    [["pkg/skills/a/SKILL.md", "skills/b/SKILL.md"], undefined],
    [[], undefined],
  ])("%j → %s", (paths, expected) => {
    expect(wrapperPrefix(paths)).toBe(expected);
  });
});
