// docs/diagnostics.md is the reference for every diagnostic code: a code reported anywhere must be listed there.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === "__fixtures__" || entry.name === "test-support" ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** Diagnostic codes as the code writes them: `code: "x-y"` or a reporting call's first argument, `push("x-y", …)`. */
function reportedCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  const patterns = [
    /\bcode: "([a-z][a-z0-9]*(?:-[a-z0-9]+)+)"/g,
    /\b(?:push|report|problem|warn|diagnostic)\("([a-z][a-z0-9]*(?:-[a-z0-9]+)+)"/g,
  ];
  for (const pkg of ["core", "fs", "pack", "runtime", "cli"]) {
    for (const file of sourceFiles(path.join(repo, "packages", pkg, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const pattern of patterns)
        for (const match of text.matchAll(pattern)) codes.set(match[1] ?? "", path.relative(repo, file));
    }
  }
  return codes;
}

describe("docs/diagnostics.md (and packages.md for package layout)", () => {
  it("lists every diagnostic code the skill packages report", () => {
    const doc = ["diagnostics.md", "packages.md"]
      .map((name) => readFileSync(path.join(repo, "docs", name), "utf8"))
      .join("\n");
    const codes = reportedCodes();
    expect(codes.size).toBeGreaterThan(50);
    const missing = [...codes]
      .filter(([code]) => !doc.includes(`\`${code}\``))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });
});
