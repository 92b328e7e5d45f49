import path from "node:path";
import { realpath } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillRegistry } from "@skillport/core";
import { createRootProviders, discoverSkillProviders, discoverSkillRoots } from "./roots.js";
import { makeTempDir, removeDir, skillMd, writeTree } from "@skillport/testing";

let tmp: string;
beforeEach(async () => {
  tmp = await realpath(await makeTempDir());
});
afterEach(async () => {
  await removeDir(tmp);
});

const at = (...parts: string[]) => path.join(tmp, ...parts);

describe("discoverSkillRoots", () => {
  beforeEach(async () => {
    await writeTree(tmp, {
      "home/.agents/skills/u1/SKILL.md": skillMd("u1"),
      "home/.claude/skills/u2/SKILL.md": skillMd("u2"),
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/.agents/skills/p1/SKILL.md": skillMd("p1"),
      "repo/pkg/.claude/skills/p2/SKILL.md": skillMd("p2"),
      "repo/pkg/sub/file.txt": "x",
      "repo/pkg/sub/deeper/.agents/skills": { dir: true },
      "repo/pkg/sub/node_modules/dep/.claude/skills": { dir: true },
      "repo/pkg/sub/.cache/.claude/skills": { dir: true },
      "plain/.agents/skills": { dir: true },
      "plain/inner/.claude/skills": { dir: true },
    });
  });

  it("walks from cwd up to the git root, nearest first, then the user's roots", async () => {
    expect(await discoverSkillRoots({ cwd: at("repo", "pkg", "sub"), home: at("home") })).toEqual([
      { path: at("repo", "pkg", ".claude", "skills"), scope: "project", client: "claude" },
      { path: at("repo", ".agents", "skills"), scope: "project", client: "agents" },
      { path: at("home", ".agents", "skills"), scope: "user", client: "agents" },
      { path: at("home", ".claude", "skills"), scope: "user", client: "claude" },
    ]);
  });

  it("outside a repository looks at cwd only", async () => {
    expect(await discoverSkillRoots({ cwd: at("plain", "inner"), home: at("nowhere") })).toEqual([
      { path: at("plain", "inner", ".claude", "skills"), scope: "project", client: "claude" },
    ]);
  });

  it("accepts a .git file (worktrees) and custom client lists", async () => {
    await writeTree(tmp, {
      "wt/.git": "gitdir: elsewhere\n",
      "wt/.cursor/skills": { dir: true },
      "wt/a/.claude/skills": { dir: true },
    });
    expect(
      await discoverSkillRoots({ cwd: at("wt", "a"), home: at("nowhere"), clients: ["cursor", "claude"] }),
    ).toEqual([
      { path: at("wt", "a", ".claude", "skills"), scope: "project", client: "claude" },
      { path: at("wt", ".cursor", "skills"), scope: "project", client: "cursor" },
    ]);
    await expect(discoverSkillRoots({ cwd: tmp, clients: ["../etc"] })).rejects.toBeInstanceOf(RangeError);
  });

  it("follows linked roots and lists a directory once, where first seen", async () => {
    await writeTree(tmp, {
      "home/.claude/skills-real/x/SKILL.md": skillMd("x"),
      "linked/.agents/skills": { link: "../../home/.claude/skills-real" },
    });
    const roots = await discoverSkillRoots({ cwd: at("linked"), home: at("home") });
    expect(roots[0]).toEqual({ path: at("home", ".claude", "skills-real"), scope: "project", client: "agents" });
    await writeTree(tmp, { "dup/.agents/skills": { dir: true }, "dup/.claude/skills": { link: "../.agents/skills" } });
    expect(await discoverSkillRoots({ cwd: at("dup"), home: at("dup") })).toEqual([
      { path: at("dup", ".agents", "skills"), scope: "project", client: "agents" },
    ]);
  });

  it("with nested, also finds client folders below cwd, skipping node_modules and dot-dirs, within maxDepth", async () => {
    const roots = await discoverSkillRoots({ cwd: at("repo"), home: at("nowhere"), nested: true });
    expect(roots.map((r) => path.relative(tmp, r.path))).toEqual([
      path.join("repo", ".agents", "skills"),
      path.join("repo", "pkg", ".claude", "skills"),
      path.join("repo", "pkg", "sub", "deeper", ".agents", "skills"),
    ]);
    const shallow = await discoverSkillRoots({ cwd: at("repo"), home: at("nowhere"), nested: true, maxDepth: 2 });
    expect(shallow.map((r) => path.relative(tmp, r.path))).toEqual([
      path.join("repo", ".agents", "skills"),
      path.join("repo", "pkg", ".claude", "skills"),
    ]);
    const budget = await discoverSkillRoots({ cwd: at("repo"), home: at("nowhere"), nested: true, maxDirs: 2 });
    expect(budget.map((r) => path.relative(tmp, r.path))).toEqual([
      path.join("repo", ".agents", "skills"),
      path.join("repo", "pkg", ".claude", "skills"),
    ]);
  });

  it("a missing cwd or home yields no roots for it, never an error", async () => {
    expect(await discoverSkillRoots({ cwd: at("missing"), home: at("missing") })).toEqual([]);
  });
});

describe("createRootProviders", () => {
  it("builds one named provider per root, in order", async () => {
    await writeTree(tmp, {
      "repo/.git/HEAD": "x",
      "repo/.agents/skills/p/SKILL.md": skillMd("p"),
      "repo/a/.agents/skills/q/SKILL.md": skillMd("q"),
      "home/.claude/skills/u/SKILL.md": skillMd("u"),
    });
    const providers = await discoverSkillProviders({ cwd: at("repo", "a"), home: at("home") });
    expect(providers.map((p) => p.provider.name)).toEqual([
      "fs:project:agents",
      "fs:project:agents#2",
      "fs:user:claude",
    ]);
    expect(await Promise.all(providers.map((p) => p.provider.discover()))).toEqual([["q"], ["p"], ["u"]]);
    expect(createRootProviders([{ path: at("gone"), scope: "user", client: "agents" }])).toEqual([]);
  });

  it("project skills override user skills of the same name in a registry; the user one stays reachable and is reported", async () => {
    await writeTree(tmp, {
      "repo/.git/HEAD": "x",
      "repo/.claude/skills/pdf/SKILL.md": skillMd("pdf", "Project pdf."),
      "home/.agents/skills/pdf/SKILL.md": skillMd("pdf", "User pdf."),
      "home/.agents/skills/git/SKILL.md": skillMd("git"),
    });
    const registry = new SkillRegistry();
    for (const { provider } of await discoverSkillProviders({ cwd: at("repo"), home: at("home") }))
      await registry.addProvider(provider, { watch: false });
    expect(registry.get("pdf").getMetadata().description).toBe("Project pdf.");
    expect(registry.get("fs:user:agents:pdf").getMetadata().description).toBe("User pdf.");
    expect(registry.shadowed).toEqual([{ id: "pdf", winner: "fs:project:claude:pdf", shadowed: "fs:user:agents:pdf" }]);
    expect(registry.list().map((e) => e.qualifiedId)).toEqual(["fs:user:agents:git", "fs:project:claude:pdf"]);
  });
});
