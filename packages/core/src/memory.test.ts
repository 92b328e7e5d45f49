import { describe, expect, it } from "vitest";
import { InMemorySkillRepository } from "./memory.js";
import { Skill } from "./skill.js";
import {
  LimitExceededError,
  ResourceNotFoundError,
  SkillExistsError,
  SkillNotFoundError,
  SkillValidationError,
} from "./errors.js";
import { parseSkillMd } from "./parse.js";

const make = (
  name: string,
  extra: Partial<{ body: string; resources: Map<string, string | Uint8Array>; description: string }> = {},
) =>
  new Skill({
    frontmatter: { name, description: extra.description ?? `The ${name} skill.`, metadata: { tags: ["a", "b"] } },
    body: extra.body ?? `\n# ${name}\n`,
    resources: extra.resources ?? new Map(),
  });

describe("InMemorySkillRepository", () => {
  it("serves what was saved: sorted discovery, metadata, body, SKILL.md that parses back", async () => {
    const repo = new InMemorySkillRepository({ skills: [make("zeta"), make("alpha"), make("Beta")] });
    expect(repo.name).toBe("memory");
    expect(await repo.discover()).toEqual(["Beta", "alpha", "zeta"]);
    expect(await repo.getMetadata("alpha")).toEqual({
      name: "alpha",
      description: "The alpha skill.",
      metadata: { tags: ["a", "b"] },
    });
    expect(await repo.getBody("alpha")).toBe("\n# alpha\n");
    const parsed = parseSkillMd(await repo.readFile("alpha", "SKILL.md"));
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.frontmatter).toEqual(await repo.getMetadata("alpha"));
    expect(parsed.body).toBe("\n# alpha\n");
  });

  it("keeps its own copy: later edits of the saved Skill or of returned values change nothing", async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const skill = make("copy", { resources: new Map<string, string | Uint8Array>([["assets/b.bin", bytes]]) });
    const repo = new InMemorySkillRepository({ skills: [skill] });
    (skill.frontmatter.metadata as { tags: string[] }).tags.push("c");
    bytes[0] = 9;
    const read = await repo.getAsset("copy", "b.bin");
    read[1] = 9;
    expect(await repo.getAsset("copy", "b.bin")).toEqual(new Uint8Array([1, 2, 3]));
    const meta = await repo.getMetadata("copy");
    (meta.metadata as { tags: string[] }).tags.push("d");
    expect((await repo.getMetadata("copy")).metadata).toEqual({ tags: ["a", "b"] });
  });

  it("lists resources like the filesystem provider: direct regular files per kind, dotfiles skipped, sorted", async () => {
    const resources = new Map<string, string>([
      ["references/b.md", "b"],
      ["references/a.md", "a"],
      ["references/.hidden", "h"],
      ["references/deep/c.md", "c"],
      ["scripts/run.sh", "echo"],
      ["assets/x.png", "x"],
      ["other/readme.txt", "o"],
    ]);
    const repo = new InMemorySkillRepository({ skills: [make("res", { resources })] });
    expect(await repo.listResources("res")).toEqual({
      references: ["a.md", "b.md"],
      scripts: ["run.sh"],
      assets: ["x.png"],
    });
    const files = await repo.listFiles("res");
    expect(files.map((f) => f.path)).toEqual([
      "SKILL.md",
      "assets/x.png",
      "other/readme.txt",
      "references/.hidden",
      "references/a.md",
      "references/b.md",
      "references/deep/c.md",
      "scripts/run.sh",
    ]);
    expect(files.find((f) => f.path === "scripts/run.sh")?.size).toBe(4);
    expect(new TextDecoder().decode(await repo.readFile("res", "references/deep/c.md"))).toBe("c");
    await expect(repo.getReference("res", "deep/c.md")).rejects.toBeInstanceOf(ResourceNotFoundError);
  });

  describe("save policy", () => {
    it("without force, meeting any existing id throws SkillExistsError and writes nothing", async () => {
      const repo = new InMemorySkillRepository({ skills: [make("a", { body: "old" })] });
      const error = await repo.save([make("b"), make("a", { body: "new" }), make("c")]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SkillExistsError);
      expect((error as SkillExistsError).skillIds).toEqual(["a"]);
      expect(await repo.discover()).toEqual(["a"]);
      expect(await repo.getBody("a")).toBe("old");
    });

    it("with force, replaces whole skills and reports which existed", async () => {
      const repo = new InMemorySkillRepository({
        skills: [make("a", { resources: new Map([["references/old.md", "x"]]) })],
      });
      const result = await repo.save([make("b"), make("a", { body: "new" })], { force: true });
      expect(result).toEqual({ saved: ["b", "a"], replaced: ["a"] });
      expect(await repo.getBody("a")).toBe("new");
      expect((await repo.listResources("a")).references).toEqual([]);
    });

    it.each([
      ["an unsafe name", [make("../x")], "name-invalid"],
      ["a duplicate in one batch", [make("d"), make("d")], "name-duplicate"],
      ["a traversal resource path", [make("r", { resources: new Map([["../x", "x"]]) })], "resource-path-invalid"],
      ["SKILL.md as a resource", [make("r", { resources: new Map([["SKILL.md", "x"]]) })], "resource-path-invalid"],
      [
        "a path that is file and folder",
        [
          make("r", {
            resources: new Map([
              ["a", "1"],
              ["a/b", "2"],
            ]),
          }),
        ],
        "resource-path-invalid",
      ],
    ])("rejects %s with SkillValidationError and writes nothing", async (_label, skills, code) => {
      const repo = new InMemorySkillRepository();
      const error = await repo.save([make("fine"), ...skills]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SkillValidationError);
      expect((error as SkillValidationError).diagnostics.map((d) => d.code)).toEqual([code]);
      expect(await repo.discover()).toEqual([]);
    });
  });

  it("delete removes one skill and says whether it did", async () => {
    const repo = new InMemorySkillRepository({ skills: [make("a"), make("b")] });
    expect(await repo.delete("a")).toBe(true);
    expect(await repo.delete("a")).toBe(false);
    expect(await repo.delete("../b")).toBe(false);
    expect(await repo.discover()).toEqual(["b"]);
    await expect(repo.getBody("a")).rejects.toBeInstanceOf(SkillNotFoundError);
  });

  it("watch reports saved and deleted ids; unsubscribe stops it; a throwing listener does not break writes", async () => {
    const repo = new InMemorySkillRepository();
    const seen: string[][] = [];
    repo.watch(() => {
      throw new Error("listener bug");
    });
    const stop = repo.watch((ids) => seen.push(ids));
    await repo.save([make("a"), make("b")]);
    await repo.delete("a");
    await repo.delete("missing");
    stop();
    await repo.save([make("c")]);
    expect(seen).toEqual([["a", "b"], ["a"]]);
    expect(await repo.discover()).toEqual(["b", "c"]);
  });

  it("applies maxFileBytes on reads (exactly at the limit passes)", async () => {
    const repo = new InMemorySkillRepository({
      skills: [
        make("l", {
          resources: new Map([
            ["assets/four", "1234"],
            ["assets/five", "12345"],
          ]),
        }),
      ],
      maxFileBytes: 4,
    });
    expect(await repo.getAsset("l", "four")).toEqual(new TextEncoder().encode("1234"));
    await expect(repo.getAsset("l", "five")).rejects.toBeInstanceOf(LimitExceededError);
    await expect(repo.getBody("l")).rejects.toThrow(/SKILL\.md of skill "l" is larger than 4 bytes/);
    expect(() => new InMemorySkillRepository({ maxFileBytes: -1 })).toThrow(RangeError);
  });

  it("getSkill returns a new Skill equal to what was saved", async () => {
    const repo = new InMemorySkillRepository({
      name: "tenant-a",
      skills: [make("s", { resources: new Map([["references/r.md", "r"]]) })],
    });
    const skill = await repo.getSkill("s");
    expect(skill.name).toBe("s");
    expect(skill.source).toBe("tenant-a");
    expect([...skill.resources.keys()]).toEqual(["references/r.md"]);
    expect(await repo.getLocation("s")).toBeUndefined();
  });

  it("getAllSkills and skillExists (AgentScope's repository reads)", async () => {
    const repo = new InMemorySkillRepository({ skills: [make("zeta"), make("alpha")] });
    expect((await repo.getAllSkills()).map((s) => s.name)).toEqual(["alpha", "zeta"]);
    expect(await repo.skillExists("alpha")).toBe(true);
    expect(await repo.skillExists("beta")).toBe(false);
    expect(await repo.skillExists("../alpha")).toBe(false);
    await expect(repo.getSkill("beta")).rejects.toBeInstanceOf(SkillNotFoundError);
    expect(await new InMemorySkillRepository().getAllSkills()).toEqual([]);
  });
});
