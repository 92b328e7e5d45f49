import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { InvalidPathError, SkillExistsError, SkillValidationError } from "@skillport/core";
import { ArchiveError, exportSkill, exportSkillToFile, importSkill, readArchive } from "./index.js";
import { buildZip, skillMd, systemDependency, tempDir, writeTree } from "./__fixtures__/archives.js";
import { NOT_SECRET_FILES, SECRET_FILE_CASES, SERVICE_ACCOUNT_KEY } from "../../core/src/__fixtures__/secret-files.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(async () => cleanup());

const hasBinary = (name: string) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
const infoZip = systemDependency("zip/unzip", hasBinary("zip") && hasBinary("unzip"), console.warn);

async function makeSkill(name = "word-stats"): Promise<string> {
  const skill = path.join(dir, "src", name);
  await writeTree(skill, {
    "SKILL.md": skillMd(name),
    "scripts/stats.sh": '#!/bin/sh\nwc "$1"\n',
    "references/notes.md": "notes\n",
    ".env": "TOKEN=1",
    "__pycache__/x.pyc": "cache",
  });
  return skill;
}

describe(".skill export", () => {
  it("writes one top-level folder named after the skill, deterministic, with exclusions applied", async () => {
    const skill = await makeSkill();
    const first = await exportSkill(skill);
    const second = await exportSkill(skill);
    expect(Buffer.from(first.archive).equals(Buffer.from(second.archive))).toBe(true);
    expect(first.name).toBe("word-stats");
    expect(first.excluded).toEqual([
      { path: ".env", reason: "secret (.env)" },
      { path: "__pycache__/", reason: "dependency or cache (__pycache__/)" },
    ]);
    const archive = await readArchive(first.archive, { stripWrapper: false });
    expect(archive.files.map((f) => [f.path, f.mode])).toEqual([
      ["word-stats/SKILL.md", 0o644],
      ["word-stats/references/notes.md", 0o644],
      ["word-stats/scripts/stats.sh", 0o755],
    ]);
  });

  it("leaves out every name of core's secret list (decision 0255), and keeps the look-alikes", async () => {
    const skill = path.join(dir, "secrets");
    await writeTree(skill, {
      "SKILL.md": skillMd("secrets"),
      ...Object.fromEntries(SECRET_FILE_CASES.map(([file]) => [file, "TOKEN=hunter2"])),
      ...Object.fromEntries(NOT_SECRET_FILES.map((file) => [file, "ok"])),
      "data/project.json": SERVICE_ACCOUNT_KEY,
    });
    const result = await exportSkill(skill);
    const packed = (await readArchive(result.archive, { stripWrapper: false })).files.map((f) =>
      f.path.slice("secrets/".length),
    );
    expect(packed.sort()).toEqual(["SKILL.md", ...NOT_SECRET_FILES].sort());
    const shown = new Set(result.excluded.map((e) => e.path));
    for (const [file, , excluded] of SECRET_FILE_CASES) expect(shown.has(excluded), file).toBe(true);
    expect(result.excluded).toContainEqual({ path: "data/project.json", reason: "secret (service-account key)" });
  });

  it("names the folder after the frontmatter name, not the directory", async () => {
    await writeTree(path.join(dir, "checkout-main"), { "SKILL.md": skillMd("checkout") });
    const result = await exportSkill(path.join(dir, "checkout-main"));
    expect(result.name).toBe("checkout");
    expect((await readArchive(result.archive, { stripWrapper: false })).files.map((f) => f.path)).toEqual([
      "checkout/SKILL.md",
    ]);
  });

  it("refuses a directory without SKILL.md or with an invalid one", async () => {
    await writeTree(path.join(dir, "none"), { "README.md": "x" });
    await expect(exportSkill(path.join(dir, "none"))).rejects.toThrow(/no SKILL.md at its root/);
    await writeTree(path.join(dir, "bad"), { "SKILL.md": "---\nname: [unclosed\n---\n" });
    await expect(exportSkill(path.join(dir, "bad"))).rejects.toBeInstanceOf(SkillValidationError);
  });

  it.skipIf(infoZip.skip)("is a standard zip that unzip lists", async () => {
    const skill = await makeSkill();
    const out = path.join(dir, "word-stats.skill");
    await exportSkillToFile(skill, out);
    const listing = execFileSync("unzip", ["-Z1", out], { encoding: "utf8" }).trim().split("\n");
    expect(listing).toEqual(["word-stats/SKILL.md", "word-stats/references/notes.md", "word-stats/scripts/stats.sh"]);
    expect(execFileSync("unzip", ["-tq", out], { encoding: "utf8" })).toMatch(/No errors detected/);
  });
});

describe(".skill import", () => {
  it("round-trips export → import, preserving bytes and modes", async () => {
    const skill = await makeSkill();
    const exported = await exportSkill(skill);
    const skills = path.join(dir, "skills");
    const result = await importSkill(exported.archive, skills);
    expect(result).toMatchObject({ name: "word-stats", dir: path.join(skills, "word-stats"), replaced: false });
    expect(result.files.map((f) => f.path)).toEqual(["SKILL.md", "references/notes.md", "scripts/stats.sh"]);
    expect(await readFile(path.join(skills, "word-stats/scripts/stats.sh"), "utf8")).toBe('#!/bin/sh\nwc "$1"\n');
    expect((await stat(path.join(skills, "word-stats/scripts/stats.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(skills)).toEqual(["word-stats"]);
  });

  it("refuses to overwrite without force, and replaces atomically with it", async () => {
    const skills = path.join(dir, "skills");
    await writeTree(skills, { "word-stats/SKILL.md": "old", "word-stats/old-only.txt": "old" });
    const exported = await exportSkill(await makeSkill());
    const error = await importSkill(exported.archive, skills).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillExistsError);
    expect(await readFile(path.join(skills, "word-stats/SKILL.md"), "utf8")).toBe("old");
    const replaced = await importSkill(exported.archive, skills, { force: true });
    expect(replaced.replaced).toBe(true);
    expect((await readdir(path.join(skills, "word-stats"))).sort()).toEqual(["SKILL.md", "references", "scripts"]);
    expect(await readdir(skills)).toEqual(["word-stats"]);
  });

  it("accepts SKILL.md at the archive root and names the skill from its frontmatter", async () => {
    const bytes = buildZip([
      { name: "SKILL.md", data: skillMd("root-skill") },
      { name: "ref.md", data: "r" },
    ]);
    const result = await importSkill(bytes, path.join(dir, "skills"));
    expect(result.name).toBe("root-skill");
    expect((await readdir(path.join(dir, "skills/root-skill"))).sort()).toEqual(["SKILL.md", "ref.md"]);
  });

  it.skipIf(infoZip.skip)("accepts a plain folder zipped by Info-ZIP, dropping OS junk", async () => {
    const skill = await makeSkill("pdf-tools");
    await writeFile(path.join(skill, ".DS_Store"), "junk");
    const zipFile = path.join(dir, "pdf-tools.zip");
    execFileSync("zip", ["-r", "-q", zipFile, "pdf-tools", "-x", "pdf-tools/.env", "pdf-tools/__pycache__/*"], {
      cwd: path.dirname(skill),
    });
    const result = await importSkill(zipFile, path.join(dir, "skills"));
    expect(result.name).toBe("pdf-tools");
    expect(result.dropped).toEqual([{ path: "pdf-tools/.DS_Store", reason: "os junk (.DS_Store)" }]);
    expect(result.files.map((f) => f.path)).toEqual(["SKILL.md", "references/notes.md", "scripts/stats.sh"]);
  });

  it.each([
    [
      "two top-level folders",
      [
        { name: "a/SKILL.md", data: skillMd("a") },
        { name: "b/SKILL.md", data: skillMd("b") },
      ],
      ArchiveError,
      /one top-level folder/,
    ],
    ["no SKILL.md", [{ name: "a/README.md", data: "x" }], ArchiveError, /one top-level folder/],
    [
      "invalid SKILL.md",
      [{ name: "a/SKILL.md", data: "no frontmatter" }],
      SkillValidationError,
      /SKILL.md failed validation/,
    ],
    [
      "unsafe name",
      [{ name: "a/SKILL.md", data: skillMd(".hidden") }],
      InvalidPathError,
      /not a safe skill id: starts with '\.'/,
    ],
  ])("refuses %s and writes nothing", async (_name, entries, errorClass, message) => {
    const skills = path.join(dir, "skills");
    const error = await importSkill(buildZip(entries), skills).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as Error).message).toMatch(message);
    expect(await readdir(dir)).toEqual([]);
  });
});
