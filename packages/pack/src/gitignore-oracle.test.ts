// Property test: for names outside the default/secret/protected lists, the files a package keeps are exactly the
// files git keeps (`git ls-files --others --exclude-standard`), with root and nested .gitignore files.
import { describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import fc from "fast-check";
import { DEFAULT_PACKAGE_LIMITS, collectFiles } from "./index.js";
import { systemDependency, tempDir, writeTree } from "./__fixtures__/archives.js";

const git = systemDependency("git", spawnSync("sh", ["-c", "command -v git"]).status === 0, console.warn);

const DIRS = ["d1", "d2", "sub"];
const FILES = ["x.txt", "y.md", "z.py", "a.txt"];
const filePath = fc
  .tuple(fc.array(fc.constantFrom(...DIRS), { maxLength: 3 }), fc.constantFrom(...FILES))
  .map(([dirs, file]) => [...dirs, file].join("/"));
const patternPiece = fc.constantFrom("d1", "d2", "sub", "x.txt", "*.md", "*", "**", "?.txt", "a*", "*.py", "y.*");
const pattern = fc
  .tuple(fc.boolean(), fc.boolean(), fc.array(patternPiece, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(
    ([negate, anchor, pieces, dirOnly]) =>
      `${negate ? "!" : ""}${anchor ? "/" : ""}${pieces.join("/")}${dirOnly ? "/" : ""}`,
  )
  .filter((p) => !/\*\*\*|^!?\/?\*\*\/?$/.test(p));

describe.skipIf(git.skip)("gitignore semantics match git", () => {
  it("keeps exactly what `git ls-files --others --exclude-standard` keeps", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(filePath, { minLength: 1, maxLength: 12 }),
        fc.array(pattern, { maxLength: 5 }),
        fc.array(pattern, { maxLength: 3 }),
        async (files, rootRules, nestedRules) => {
          const { dir, cleanup } = await tempDir("skillport-gitoracle-");
          try {
            const tree: Record<string, string> = Object.fromEntries(files.map((f) => [f, f]));
            tree[".gitignore"] = rootRules.join("\n") + "\n";
            if (nestedRules.length > 0 && files.some((f) => f.startsWith("d1/")))
              tree["d1/.gitignore"] = nestedRules.join("\n") + "\n";
            await writeTree(dir, tree);
            execFileSync("git", ["init", "-q"], { cwd: dir });
            const kept = execFileSync(
              "git",
              ["-c", "core.ignorecase=false", "ls-files", "--others", "--exclude-standard", "-z"],
              { cwd: dir, encoding: "utf8" },
            )
              .split("\0")
              .filter((p) => p !== "")
              .sort();
            const ours = (await collectFiles(dir, { limits: { ...DEFAULT_PACKAGE_LIMITS } })).files
              .map((f) => f.path)
              .sort();
            expect(ours).toEqual(kept);
          } finally {
            await cleanup();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
