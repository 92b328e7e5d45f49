// The lock's computedHash sorts paths as Vercel's CLI does, `localeCompare(…, "en")` (decision 0300); englishOrder
// gives that order without ICU for plain paths, and must never differ from it.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computedHash, englishOrder } from "./digest.js";

const sign = (n: number) => Math.sign(n);
const PLAIN = [..."_-./09azAZbB"];
const ODD = [..."_-./09azAZ é~@+ "];

describe("englishOrder", () => {
  it("agrees with localeCompare(…, 'en') on plain paths (letters, digits, _ - . /)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...PLAIN), maxLength: 8 }),
        fc.string({ unit: fc.constantFrom(...PLAIN), maxLength: 8 }),
        (a, b) => {
          expect([a, b, sign(englishOrder(a, b))]).toEqual([a, b, sign(a.localeCompare(b, "en"))]);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("agrees on any other path too (it defers to localeCompare)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...ODD), maxLength: 6 }),
        fc.string({ unit: fc.constantFrom(...ODD), maxLength: 6 }),
        (a, b) => {
          expect(sign(englishOrder(a, b))).toBe(sign(a.localeCompare(b, "en")));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("orders case after letters and punctuation before digits, as ICU does (not code-unit order)", () => {
    const paths = ["b.md", "SKILL.md", "a/x", "A", "a_", "a-", "a0", "aA", "Aa", "ab"];
    expect([...paths].sort(englishOrder)).toEqual([...paths].sort((a, b) => a.localeCompare(b, "en")));
    expect([...paths].sort(englishOrder)).not.toEqual([...paths].sort());
  });

  it("leaves computedHash as it was: the order of localeCompare(…, 'en')", () => {
    const files = ["SKILL.md", "scripts/run.sh", "references/Notes.md", "references/notes.md", "a_b", "a-b"].map(
      (path) => ({ path, bytes: new TextEncoder().encode(path) }),
    );
    const hash = createHash("sha256");
    for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path, "en"))) hash.update(f.path).update(f.bytes);
    expect(computedHash(files)).toBe(hash.digest("hex"));
  });
});
