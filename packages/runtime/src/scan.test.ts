import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AgentSkillsError, InvalidPathError, SkillNotFoundError } from "@skillport/core";
import { skillMd, tempTree, type TempTree } from "@skillport/testing";
import { scanDeployedSkills } from "./scan.js";

const V = "0123456789abcdef01234567";
let t: TempTree | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

async function workspace(files: Record<string, string | { link: string }>): Promise<string> {
  t = await tempTree(
    {
      ...Object.fromEntries(Object.entries(files).map(([rel, node]) => [`projects/${V}/${rel}`, node])),
      "outside/etc/shadow": "root:SECRET-HASH:19000::::::\n",
      "outside/SKILL.md": skillMd("x", "A planted skill."),
    },
    "skillport-scan-",
  );
  return t.dir;
}

describe("deployed skills: confinement by the opened file (issue 8, hole 2)", () => {
  it("a skill folder replaced by a link to / after the scan serves nothing from outside", async () => {
    const ws = await workspace({ "skills/x/SKILL.md": skillMd("x"), "skills/x/references/notes.md": "notes" });
    const { provider } = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    expect(new TextDecoder().decode(await provider.readFile("x", "references/notes.md"))).toBe("notes");
    // What a sandboxed command can do to the workspace: swap the skill folder for a link (here to a planted copy of
    // "/" holding etc/shadow and a SKILL.md).
    const skillDir = path.join(ws, "projects", V, "skills", "x");
    await rename(skillDir, `${skillDir}.old`);
    await symlink(path.join(ws, "outside"), skillDir);
    provider.invalidate();
    const shadow = await provider.readFile("x", "etc/shadow").then(
      (bytes) => new TextDecoder().decode(bytes),
      (error: unknown) => error,
    );
    expect(shadow).toBeInstanceOf(AgentSkillsError);
    expect(String((shadow as Error).message)).not.toContain(ws);
    await expect(provider.getMetadata("x")).rejects.toBeInstanceOf(SkillNotFoundError);
    await expect(provider.getBody("x")).rejects.toBeInstanceOf(SkillNotFoundError);
    await expect(provider.listFiles("x")).rejects.toBeInstanceOf(AgentSkillsError);
    await expect(provider.getReference("x", "shadow")).rejects.toBeInstanceOf(AgentSkillsError);
  });

  it("refuses links leaving the skill and hard links, reporting them; serves links inside the skill", async () => {
    const ws = await workspace({
      "skills/x/SKILL.md": skillMd("x"),
      "skills/x/references/real.md": "real",
      "skills/x/references/alias.md": { link: "real.md" },
      "skills/y/SKILL.md": skillMd("y"),
      "skills/y/references/out.md": { link: "../../x/references/real.md" },
    });
    execFileSync("ln", [
      path.join(ws, "outside", "etc", "shadow"),
      path.join(ws, "projects", V, "skills", "x", "references", "hard.md"),
    ]);
    const { provider } = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    expect(new TextDecoder().decode(await provider.readFile("x", "references/alias.md"))).toBe("real");
    await expect(provider.readFile("x", "references/hard.md")).rejects.toThrow(/hard links/);
    await expect(provider.readFile("y", "references/out.md")).rejects.toBeInstanceOf(InvalidPathError);
    await expect(provider.listFiles("y")).rejects.toThrow(/leads outside the skill/);
  });

  it("lets no raw Node error with a host path escape", async () => {
    const ws = await workspace({ "skills/x/SKILL.md": skillMd("x"), "skills/x/sub/a.txt": "a" });
    const { provider } = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    await rm(path.join(ws, "projects", V, "skills", "x", "sub"), { recursive: true });
    await writeFile(path.join(ws, "projects", V, "skills", "x", "sub"), "now a file");
    for (const call of [() => provider.readFile("x", "sub/a.txt"), () => provider.readFile("x", "nope/x")]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentSkillsError);
      expect(String((error as Error).message)).not.toContain(ws);
    }
  });
});

describe("scanDeployedSkills: the nested locator", () => {
  it("finds SKILL.md and skill.md below a version, reports what it skips, and reads frontmatter only", async () => {
    const ws = await workspace({
      "skills/a/SKILL.md": skillMd("a"),
      "skills/low/skill.md": skillMd("low"),
      "skills/a/nested/SKILL.md": skillMd("inner"), // inside a skill: not a skill of its own
      "skills/node_modules/m/SKILL.md": skillMd("m"),
      "skills/.hidden/SKILL.md": skillMd("hidden"),
      "skills/escape/SKILL.md": { link: "../../../../outside/SKILL.md" },
      "skills/linked": { link: "a" },
    });
    const result = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    expect(result.skills.map((s) => [s.id, s.relativeDir, path.basename(s.skillMdPath)])).toEqual([
      ["a", "skills/a", "SKILL.md"],
      ["low", "skills/low", "skill.md"],
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["skill-md-link-outside", `${V}/skills/escape/SKILL.md`],
      ["skill-dir-link-outside", `${V}/skills/linked/`],
    ]);
    const meta = await result.provider.getMetadata("low");
    expect(meta.name).toBe("low");
  });

  it("says which deployed skills catalogs will leave out, and why (issue 20, item 9)", async () => {
    const ws = await workspace({
      "skills/good/SKILL.md": skillMd("good"),
      "skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n# No description\n",
    });
    const result = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    expect(result.skills.map((s) => s.id)).toEqual(["good", "nodesc"]);
    expect(result.diagnostics).toEqual([
      {
        code: "skill-left-out",
        severity: "warning",
        message:
          "catalogs (list, prompt, tools, SkillBox) leave this skill out: required field 'description' is missing",
        file: `${V}/skills/nodesc/SKILL.md`,
        line: 0,
        column: 0,
      },
    ]);
  });

  it("metadata is cached: getMetadata does not re-read SKILL.md until invalidate", async () => {
    const ws = await workspace({ "skills/a/SKILL.md": skillMd("a", "first") });
    const { provider } = await scanDeployedSkills(path.join(ws, "projects"), [V]);
    expect((await provider.getMetadata("a")).description).toBe("first");
    await writeFile(path.join(ws, "projects", V, "skills", "a", "SKILL.md"), skillMd("a", "second"));
    expect((await provider.getMetadata("a")).description).toBe("first");
    provider.invalidate("a");
    expect((await provider.getMetadata("a")).description).toBe("second");
  });
});
