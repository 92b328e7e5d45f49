// Issue 7: one sandbox. No other package may grow its own bubblewrap probe or bwrap command line again.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packages = fileURLToPath(new URL("../../", import.meta.url));

function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const pkg of readdirSync(packages)) {
    const src = path.join(packages, pkg, "src");
    let names: string[];
    try {
      names = readdirSync(src, { recursive: true }) as string[];
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.(ts|mts|js|mjs)$/.test(name) || /\.test\.ts$/.test(name)) continue;
      out.push({ file: path.join(pkg, "src", name), text: readFileSync(path.join(src, name), "utf8") });
    }
  }
  return out;
}

describe("one sandbox", () => {
  it("defines findBubblewrap once, in @skillport/sandbox", () => {
    const defining = sources()
      .filter(({ text }) => /function findBubblewrap\b/.test(text))
      .map(({ file }) => file);
    expect(defining).toEqual([path.join("sandbox", "src", "bubblewrap.ts")]);
  });

  it("builds bwrap command lines only in @skillport/sandbox", () => {
    const building = sources()
      .filter(({ text }) => /["'`]--(unshare-(user|pid|net|all)|ro-bind|die-with-parent)["'`]/.test(text))
      .map(({ file }) => file);
    expect(building.every((file) => file.startsWith(path.join("sandbox", "src")))).toBe(true);
  });
});
