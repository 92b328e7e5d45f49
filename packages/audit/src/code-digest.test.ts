import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs build script, no declarations
import { auditCodeDigest, auditCodeFiles } from "../scripts/code-digest.mjs";
import { AUDIT_CODE_DIGEST } from "./code-digest.js";

describe("the audit's code digest (decision 0428)", () => {
  it("is the digest of the sources as they are: run `node packages/audit/scripts/code-digest.mjs --write` after a change", () => {
    expect(AUDIT_CODE_DIGEST).toBe(auditCodeDigest());
  });

  it("covers the rule table, the audit itself and core's frontmatter parser", () => {
    const files = auditCodeFiles() as string[];
    expect(files).toEqual(
      expect.arrayContaining([
        "packages/audit/src/rules.ts",
        "packages/audit/src/audit.ts",
        "packages/audit/src/hosts.ts",
        "packages/core/src/parse.ts",
      ]),
    );
    expect(files).not.toContain("packages/audit/src/code-digest.ts");
  });
});
