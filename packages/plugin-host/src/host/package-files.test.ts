import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DEFAULT_PACKAGE_LIMITS, readPackageDir } from "./package-files.js";

function dist(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "skillport-pkgdir-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe("readPackageDir reads a built plugin through the one walker and the confined read", () => {
  it("returns every regular file, sorted, with its bytes", async () => {
    const root = dist({ "index.js": "x", "manifest.json": "{}", "assets/b.svg": "<svg/>", "assets/a.svg": "<svg/>" });
    const files = await readPackageDir(root, "dist", DEFAULT_PACKAGE_LIMITS);
    expect(files.map((f) => f.path)).toEqual(["assets/a.svg", "assets/b.svg", "index.js", "manifest.json"]);
    expect(Buffer.from(files[2]!.bytes).toString()).toBe("x");
  });

  const outside = dist({ "secret.txt": "TOP SECRET" });
  it.each([
    [
      "a link to a host file",
      (root: string) => symlinkSync(path.join(outside, "secret.txt"), path.join(root, "leak.js")),
      /leak\.js/,
    ],
    ["a link to a directory outside", (root: string) => symlinkSync(outside, path.join(root, "assets")), /assets/],
    ["a FIFO", (root: string) => spawnSync("mkfifo", [path.join(root, "pipe")]), /pipe/],
    // Core's path rules, which plugin-host's own rule set lacked: control characters and backslashes in names.
    [
      "a name with a control character",
      (root: string) => writeFileSync(path.join(root, "a\u0007.js"), "x"),
      /\\u0007|control/,
    ],
    ["a name with a backslash", (root: string) => writeFileSync(path.join(root, "a\\b.js"), "x"), /a\\\\b|backslash/],
  ])("refuses %s, naming it, without reading through it", async (_what, plant, named) => {
    const root = dist({ "index.js": "x" });
    plant(root);
    const error = await readPackageDir(root, "dist", DEFAULT_PACKAGE_LIMITS).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "PLUGIN_INVALID" });
    expect(String((error as Error).message)).toMatch(named);
    expect(String((error as Error).message)).not.toContain("TOP SECRET");
  });

  it("applies the package limits (file size, file count)", async () => {
    const big = dist({ "index.js": "x".repeat(2000) });
    await expect(readPackageDir(big, "dist", { ...DEFAULT_PACKAGE_LIMITS, maxFileBytes: 1000 })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
    });
    const many = dist({ "a.js": "", "b.js": "", "c.js": "" });
    await expect(readPackageDir(many, "dist", { ...DEFAULT_PACKAGE_LIMITS, maxFiles: 2 })).rejects.toMatchObject({
      code: "PLUGIN_INVALID",
    });
  });
});
