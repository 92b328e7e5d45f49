import { lstat, mkdir, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  Skill,
  SkillExistsError,
  SkillNotFoundError,
  SkillValidationError,
  parseSkillMd,
  type ResourceContent,
} from "@skillport/core";
import { FileSystemSkillRepository } from "./repository.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeDir(root);
});

function skill(
  name: string,
  body = `\n# ${name}\n`,
  resources: Record<string, ResourceContent> = {},
  extra: Record<string, string> = {},
): Skill {
  return new Skill({
    frontmatter: { name, description: `About ${name}.`, ...extra },
    body,
    resources: new Map(Object.entries(resources)),
  });
}

/** Everything under the root, so tests can assert "nothing else was written" (no temp dirs left behind). */
async function tree(dir = root, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) out.push(...(await tree(path.join(dir, entry.name), `${rel}/`)));
    else out.push(rel);
  }
  return out;
}

describe("FileSystemSkillRepository.save", () => {
  it("writes SKILL.md and resources that read back exactly", async () => {
    const repo = new FileSystemSkillRepository(root);
    const binary = new Uint8Array([0, 255, 13, 10, 128]);
    const result = await repo.save([
      skill(
        "pdf",
        "\nUse it.\n",
        {
          "references/notes.md": "# Notes\n",
          "scripts/run.sh": "#!/bin/sh\necho hi\n",
          "assets/x.bin": binary,
          "deep/a/b.txt": "b",
        },
        { license: "MIT" },
      ),
      skill("docx"),
    ]);
    expect(result).toEqual({ saved: ["pdf", "docx"], replaced: [] });
    expect(await tree()).toEqual([
      "docx/SKILL.md",
      "pdf/SKILL.md",
      "pdf/assets/x.bin",
      "pdf/deep/a/b.txt",
      "pdf/references/notes.md",
      "pdf/scripts/run.sh",
    ]);
    expect(await repo.discover()).toEqual(["docx", "pdf"]);
    expect(await repo.getMetadata("pdf")).toEqual({ name: "pdf", description: "About pdf.", license: "MIT" });
    expect(await repo.getBody("pdf")).toBe("\nUse it.\n");
    expect(await repo.getAsset("pdf", "x.bin")).toEqual(binary);
    expect(await repo.readFile("pdf", "deep/a/b.txt")).toEqual(new TextEncoder().encode("b"));
    const parsed = parseSkillMd(await readFile(path.join(root, "pdf", "SKILL.md"), "utf8"));
    expect(parsed.frontmatter).toEqual({ name: "pdf", description: "About pdf.", license: "MIT" });
    expect((await stat(path.join(root, "pdf", "scripts", "run.sh"))).mode & 0o111).not.toBe(0);
    expect((await stat(path.join(root, "pdf", "references", "notes.md"))).mode & 0o111).toBe(0);
    expect((await stat(path.join(root, "pdf"))).mode & 0o777).toBe(0o755);
  });

  it("without force, one existing target aborts the whole save and writes nothing", async () => {
    await writeTree(root, { "old/SKILL.md": skillMd("old", "original", "\nkept\n") });
    const repo = new FileSystemSkillRepository(root);
    const error = await repo.save([skill("fresh"), skill("old", "\nnew\n")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillExistsError);
    expect((error as SkillExistsError).skillIds).toEqual(["old"]);
    expect(await tree()).toEqual(["old/SKILL.md"]);
    expect(await repo.getBody("old")).toBe("\nkept\n");
  });

  it("counts anything at the target as existing (a file, a non-skill folder)", async () => {
    await writeTree(root, { "a-file": "x", "a-folder/readme.txt": "x" });
    const repo = new FileSystemSkillRepository(root);
    await expect(repo.save([skill("a-file"), skill("a-folder")])).rejects.toMatchObject({
      skillIds: ["a-file", "a-folder"],
    });
  });

  it("two concurrent saves of one new skill: exactly one wins, the other meets SkillExistsError", async () => {
    const results = await Promise.allSettled([
      new FileSystemSkillRepository(root).save([skill("race", "\none\n")]),
      new FileSystemSkillRepository(root).save([skill("race", "\ntwo\n")]),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected");
    expect((rejected as PromiseRejectedResult).reason).toBeInstanceOf(SkillExistsError);
    expect(await tree()).toEqual(["race/SKILL.md"]);
  });

  it("with force, replaces whole skill directories and reports them", async () => {
    await writeTree(root, { "old/SKILL.md": skillMd("old"), "old/references/stale.md": "stale" });
    const repo = new FileSystemSkillRepository(root);
    expect(await repo.getBody("old")).toBe("\n# old\n\nDo the thing.\n"); // cached before the save
    const result = await repo.save([skill("old", "\nnew body\n", { "references/fresh.md": "fresh" }), skill("new")], {
      force: true,
    });
    expect(result).toEqual({ saved: ["old", "new"], replaced: ["old"] });
    expect(await tree()).toEqual(["new/SKILL.md", "old/SKILL.md", "old/references/fresh.md"]);
    expect(await repo.getBody("old")).toBe("\nnew body\n"); // the save dropped the cache
  });

  it("replacing a linked skill replaces the link, never writing through it", async () => {
    await writeTree(root, { "real/SKILL.md": skillMd("real"), alias: { link: "real" } });
    const repo = new FileSystemSkillRepository(root);
    await repo.save([skill("alias", "\nown\n")], { force: true });
    expect((await lstat(path.join(root, "alias"))).isDirectory()).toBe(true);
    expect(await repo.getBody("real")).toBe("\n# real\n\nDo the thing.\n");
    expect(await repo.getBody("alias")).toBe("\nown\n");
  });

  it.each([
    { name: "unsafe id", skills: () => [skill("../escape")], code: "name-invalid" },
    // An empty name never reaches save: new Skill refuses it (core's skill.test.ts).
    { name: "duplicate", skills: () => [skill("a"), skill("a")], code: "name-duplicate" },
    { name: "traversal resource", skills: () => [skill("a", "B", { "../x.md": "x" })], code: "resource-path-invalid" },
    { name: "absolute resource", skills: () => [skill("a", "B", { "/etc/x": "x" })], code: "resource-path-invalid" },
    {
      name: "SKILL.md as a resource",
      skills: () => [skill("a", "B", { "SKILL.md": "x" })],
      code: "resource-path-invalid",
    },
    {
      name: "skill.md as a resource",
      skills: () => [skill("a", "B", { "skill.md": "x" })],
      code: "resource-path-invalid",
    },
    { name: "file and folder", skills: () => [skill("a", "B", { x: "1", "x/y": "2" })], code: "resource-path-invalid" },
  ])("rejects a batch with $name before writing anything", async ({ skills, code }) => {
    const repo = new FileSystemSkillRepository(root);
    const error = await repo.save([skill("good"), ...skills()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillValidationError);
    expect((error as SkillValidationError).diagnostics.map((d) => d.code)).toContain(code);
    expect(await tree()).toEqual([]);
  });

  it("refuses files it could not read back under maxFileBytes", async () => {
    const repo = new FileSystemSkillRepository(root, { maxFileBytes: 100 });
    const error = await repo
      .save([skill("a", "B", { "assets/big.bin": new Uint8Array(101) })])
      .catch((e: unknown) => e);
    expect((error as SkillValidationError).diagnostics.map((d) => d.message)).toEqual([
      'skill "a": "assets/big.bin" is larger than the 100-byte limit (maxFileBytes)',
    ]);
    expect(await tree()).toEqual([]);
  });

  it("creates its root on request, and otherwise requires it", async () => {
    const nested = path.join(root, "x", "skills");
    expect(() => new FileSystemSkillRepository(nested)).toThrow(/skills root/);
    const repo = new FileSystemSkillRepository(nested, { create: true });
    await repo.save([skill("a")]);
    expect(await repo.discover()).toEqual(["a"]);
  });
});

describe("FileSystemSkillRepository.delete", () => {
  it("deletes skills, and only skills", async () => {
    await writeTree(root, {
      "a/SKILL.md": skillMd("a"),
      "a/references/x.md": "x",
      "not-a-skill/readme.txt": "keep",
      "target/SKILL.md": skillMd("target"),
      alias: { link: "target" },
    });
    const repo = new FileSystemSkillRepository(root);
    expect(await repo.getBody("a")).toContain("Do the thing");
    expect(await repo.delete("a")).toBe(true);
    await expect(repo.getBody("a")).rejects.toBeInstanceOf(SkillNotFoundError);
    expect(await repo.delete("a")).toBe(false);
    expect(await repo.delete("missing")).toBe(false);
    expect(await repo.delete("../etc")).toBe(false);
    expect(await repo.delete("not-a-skill")).toBe(false);
    expect(await repo.delete("alias")).toBe(true); // the link goes, the skill it pointed to stays
    expect(await tree()).toEqual(["not-a-skill/readme.txt", "target/SKILL.md"]);
  });

  it("round-trips: save, delete, save again without force", async () => {
    await mkdir(path.join(root, "unrelated"));
    const repo = new FileSystemSkillRepository(root);
    await repo.save([skill("a")]);
    expect(await repo.delete("a")).toBe(true);
    expect(await repo.save([skill("a", "\nagain\n")])).toEqual({ saved: ["a"], replaced: [] });
    expect(await repo.getBody("a")).toBe("\nagain\n");
  });
});

describe("FileSystemSkillRepository whole-skill reads (AgentScope's getSkill, getAllSkills, skillExists)", () => {
  it("getSkill returns what save wrote: frontmatter, body and every file as bytes", async () => {
    const repo = new FileSystemSkillRepository(root, { name: "store" });
    const binary = new Uint8Array([0, 255, 13, 10]);
    const saved = skill(
      "pdf",
      "\nUse it.\n",
      { "references/notes.md": "# Notes\n", "assets/x.bin": binary, "deep/a/b.txt": "b" },
      { license: "MIT" },
    );
    await repo.save([saved]);
    const loaded = await repo.getSkill("pdf");
    expect(loaded.frontmatter).toEqual({ name: "pdf", description: "About pdf.", license: "MIT" });
    expect(loaded.body).toBe("\nUse it.\n");
    expect(loaded.source).toBe("store");
    expect([...loaded.resources.keys()]).toEqual(["assets/x.bin", "deep/a/b.txt", "references/notes.md"]);
    expect(loaded.resources.get("assets/x.bin")).toEqual(binary);
    expect(new TextDecoder().decode(loaded.resources.get("references/notes.md") as Uint8Array)).toBe("# Notes\n");
    expect(await loaded.digest()).toBe(await saved.digest());
    // and it saves back elsewhere unchanged
    const other = new FileSystemSkillRepository(path.join(root, ".copy"), { create: true });
    await other.save([loaded]);
    expect(await (await other.getSkill("pdf")).digest()).toBe(await saved.digest());
  });

  it("getSkill refuses unknown ids and skills it cannot read whole", async () => {
    await writeTree(root, {
      "linked/SKILL.md": skillMd("linked"),
      "linked/references/l.md": { link: "../SKILL.md" },
      "leaving/SKILL.md": skillMd("leaving"),
      "leaving/references/l.md": { link: "../../linked/SKILL.md" },
      "broken/SKILL.md": "no frontmatter",
    });
    const repo = new FileSystemSkillRepository(root);
    await expect(repo.getSkill("missing")).rejects.toBeInstanceOf(SkillNotFoundError);
    await expect(repo.getSkill("../etc")).rejects.toBeInstanceOf(SkillNotFoundError);
    // A link inside the skill is part of it (its content is loaded under the link's path); one leaving it is refused.
    expect(
      new TextDecoder().decode((await repo.getSkill("linked")).resources.get("references/l.md") as Uint8Array),
    ).toBe(skillMd("linked"));
    await expect(repo.getSkill("leaving")).rejects.toThrow(/leads outside the skill/);
    await expect(repo.getSkill("broken")).rejects.toBeInstanceOf(SkillValidationError);
  });

  it("getAllSkills loads every readable skill, sorted, leaving out the ones that cannot load", async () => {
    await writeTree(root, {
      "b/SKILL.md": skillMd("b"),
      "a/SKILL.md": skillMd("a"),
      "broken/SKILL.md": "no frontmatter",
      "loose.txt": "x",
    });
    const repo = new FileSystemSkillRepository(root);
    expect((await repo.getAllSkills()).map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("skillExists answers for skills only", async () => {
    await writeTree(root, { "a/SKILL.md": skillMd("a"), "plain/readme.txt": "x" });
    const repo = new FileSystemSkillRepository(root);
    expect(await repo.skillExists("a")).toBe(true);
    expect(await repo.skillExists("plain")).toBe(false);
    expect(await repo.skillExists("missing")).toBe(false);
    expect(await repo.skillExists("../a")).toBe(false);
  });
});
