import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isInside, resolveConfined } from "./confine.js";
import { InvalidPathError, ResourceNotFoundError } from "@skillport/core";
import { isSafeResourcePath } from "@skillport/core";

let base: string; // real temp dir holding `root/` and `outside/`
let root: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-confine-")));
  root = path.join(base, "root");
  await mkdir(path.join(root, "skill", "references"), { recursive: true });
  await mkdir(path.join(base, "outside"), { recursive: true });
  await mkdir(path.join(base, "root-sibling"), { recursive: true });
  await writeFile(path.join(root, "skill", "SKILL.md"), "---\nname: skill\n---\n");
  await writeFile(path.join(root, "skill", "references", "a.md"), "a");
  await writeFile(path.join(base, "outside", "secret.txt"), "secret");
  await writeFile(path.join(base, "root-sibling", "x.txt"), "x");
  await symlink(path.join(base, "outside"), path.join(root, "skill", "escape-dir"));
  await symlink(path.join(base, "outside", "secret.txt"), path.join(root, "skill", "escape-file"));
  await symlink("../../root-sibling/x.txt", path.join(root, "skill", "relative-escape"));
  await symlink("references/a.md", path.join(root, "skill", "inner-link"));
  await symlink(path.join(base, "outside", "nowhere"), path.join(root, "skill", "dangling-out"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("isInside", () => {
  it.each([
    ["/a/b", "/a/b", true],
    ["/a/b", "/a/b/c", true],
    ["/a/b", "/a/bc", false],
    ["/a/b", "/a", false],
    ["/a/b", "/a/b/../c", false],
    ["/a/b", "/a/b/..c", true],
    ["/", "/anything", true],
  ])("isInside(%s, %s) = %s", (parent, child, expected) => {
    expect(isInside(parent, path.resolve(child))).toBe(expected);
  });
});

describe("resolveConfined", () => {
  const variants = [
    ["async", (r: string, p: string, o?: Parameters<typeof resolveConfined>[2]) => resolveConfined(r, p, o)],
  ] as const;

  for (const [label, resolve] of variants) {
    describe(label, () => {
      it("returns the real path of a file inside", async () => {
        expect(await resolve(root, "skill/references/a.md")).toBe(path.join(root, "skill", "references", "a.md"));
      });

      it("follows links that stay inside and returns their real target", async () => {
        expect(await resolve(path.join(root, "skill"), "inner-link")).toBe(
          path.join(root, "skill", "references", "a.md"),
        );
      });

      it.each(["escape-dir/secret.txt", "escape-file", "relative-escape", "escape-dir"])(
        "refuses the escaping link %s",
        async (rel) => {
          const error = await resolve(path.join(root, "skill"), rel).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidPathError);
          expect((error as Error).message).toBe(`invalid path ${JSON.stringify(rel)}: resolves outside its directory`);
          expect((error as Error).message).not.toContain(base);
        },
      );

      it.each(["../root-sibling/x.txt", "..", "/etc/passwd", "a\\b", "%2e%2e%2fx"])(
        "refuses the unsafe path %j before touching disk",
        async (rel) => {
          await expect(resolve(root, rel)).rejects.toBeInstanceOf(InvalidPathError);
        },
      );

      it("a missing target is ResourceNotFoundError naming the skill", async () => {
        const error = await resolve(path.join(root, "skill"), "references/none.md", { skillId: "skill" }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ResourceNotFoundError);
        expect((error as ResourceNotFoundError).skillId).toBe("skill");
        expect((error as ResourceNotFoundError).path).toBe("references/none.md");
        expect((error as Error).message).not.toContain(base);
      });

      it("allowMissing resolves a not-yet-existing target below the deepest real ancestor", async () => {
        expect(await resolve(root, "skill/new/deeper/file.txt", { allowMissing: true })).toBe(
          path.join(root, "skill", "new", "deeper", "file.txt"),
        );
      });

      it("allowMissing still refuses a path through an escaping link", async () => {
        await expect(
          resolve(path.join(root, "skill"), "escape-dir/new.txt", { allowMissing: true }),
        ).rejects.toBeInstanceOf(InvalidPathError);
      });

      it("allowMissing refuses a dangling link that a write would follow outside", async () => {
        const error = await resolve(path.join(root, "skill"), "dangling-out", { allowMissing: true }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(InvalidPathError);
        expect((error as Error).message).toMatch(/dangling link|outside/);
      });

      it("resolves against the REAL root when the root itself is reached through a link", async () => {
        const alias = path.join(base, "alias-" + label);
        await symlink(root, alias);
        expect(await resolve(alias, "skill/SKILL.md")).toBe(path.join(root, "skill", "SKILL.md"));
      });
    });
  }

  it("property: whatever an accepted path names, the result is inside the real root", async () => {
    const segment = fc.constantFrom(
      "skill",
      "references",
      "a.md",
      "escape-dir",
      "escape-file",
      "inner-link",
      "relative-escape",
      "new",
      "..",
      ".",
      "SKILL.md",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (segments, allowMissing) => {
          const rel = segments.join("/");
          try {
            const resolved = await resolveConfined(root, rel, { allowMissing });
            expect(isSafeResourcePath(rel)).toBe(true);
            expect(isInside(root, resolved)).toBe(true);
          } catch (e) {
            expect(e instanceof InvalidPathError || e instanceof ResourceNotFoundError).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
