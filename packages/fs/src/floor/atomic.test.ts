import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { swapIntoPlace } from "./atomic.js";
import { makeTempDir, removeDir } from "@skillport/testing";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await removeDir(dir);
});

async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir();
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("swapIntoPlace", () => {
  it("moves a staged folder to a free name and reports nothing set aside", async () => {
    const dir = await folderWith({ "staged/SKILL.md": "new" });
    expect(swapIntoPlace(path.join(dir, "staged"), path.join(dir, "skill"), path.join(dir, "aside"))).toBe(false);
    expect(readFileSync(path.join(dir, "skill/SKILL.md"), "utf8")).toBe("new");
    expect(readdirSync(dir)).toEqual(["skill"]);
  });

  it("replaces an old folder, keeping it under the aside name for the caller to remove", async () => {
    const dir = await folderWith({ "staged/SKILL.md": "new", "skill/SKILL.md": "old", "skill/extra.md": "old" });
    expect(swapIntoPlace(path.join(dir, "staged"), path.join(dir, "skill"), path.join(dir, "aside"))).toBe(true);
    expect(readdirSync(path.join(dir, "skill"))).toEqual(["SKILL.md"]);
    expect(readFileSync(path.join(dir, "skill/SKILL.md"), "utf8")).toBe("new");
    expect(readdirSync(path.join(dir, "aside")).sort()).toEqual(["SKILL.md", "extra.md"]);
  });

  it("replaces a link itself, never the folder it points at", async () => {
    const dir = await folderWith({ "staged/SKILL.md": "new", "elsewhere/SKILL.md": "theirs" });
    symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "skill"));
    expect(swapIntoPlace(path.join(dir, "staged"), path.join(dir, "skill"), path.join(dir, "aside"))).toBe(true);
    expect(readFileSync(path.join(dir, "elsewhere/SKILL.md"), "utf8")).toBe("theirs");
    expect(readFileSync(path.join(dir, "skill/SKILL.md"), "utf8")).toBe("new");
  });

  it("puts the old folder back when the staged one cannot be moved in", async () => {
    const dir = await folderWith({ "skill/SKILL.md": "old" });
    // The staged entry is missing: the second rename fails after the old folder was set aside.
    expect(() => swapIntoPlace(path.join(dir, "staged"), path.join(dir, "skill"), path.join(dir, "aside"))).toThrow(
      /ENOENT/,
    );
    expect(readFileSync(path.join(dir, "skill/SKILL.md"), "utf8")).toBe("old");
    expect(existsSync(path.join(dir, "aside"))).toBe(false);
  });
});
