// Issue 23's remaining parts through the BUILT binary against a real `git daemon` on 127.0.0.1 (GitHub shorthand
// mapped to it, temp HOME): `add --as` (decision 0420), `doctor --agent` (0421), plugin layouts from git (0422).
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { computedHash, readFolder } from "@skillport/install";
import {
  commitAndPush,
  makeRepo,
  startGitDaemon,
  type RunningServer,
} from "../../remote/src/test-support/git-servers.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const skillMd = (name: string, body = "Steps.", extra = "") =>
  `---\nname: ${name}\ndescription: Does ${name} things. Use when asked for ${name}.\n${extra}---\n\n# ${name}\n\n${body}\n`;

let root: string;
let daemon: RunningServer & { port: number };
let skillsWork: string;
let otherWork: string;
let marketHead: string;
let project: string;
let home: string;
let n = 0;

function skillport(
  args: string[],
  cwd = project,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    SKILLPORT_CACHE_DIR: path.join(root, "cache"),
    SKILLPORT_GITHUB_BASE_URL: `git://127.0.0.1:${daemon.port}`,
    NO_COLOR: "1",
    ...extraEnv,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const readJson = (file: string) =>
  JSON.parse(readFileSync(file, "utf8")) as { skills: Record<string, Record<string, unknown>> };

async function freshCopyOfLocks(): Promise<string> {
  const fresh = path.join(root, `fresh${n}-${Math.random().toString(36).slice(2, 8)}`);
  await mkdir(fresh);
  for (const file of ["skills-lock.json", "skillport-lock.json"])
    await copyFile(path.join(project, file), path.join(fresh, file));
  return fresh;
}

type Found = { code: string; skill: string; agent?: string; note?: boolean };
const codes = (out: string) =>
  (JSON.parse(out) as { findings: Found[] }).findings
    .map((f) => `${f.code} ${f.skill}${f.agent ? ` ${f.agent}` : ""}${f.note ? " note" : ""}`)
    .sort();

beforeAll(async () => {
  root = await makeTempDir("skillport-install-agents-");
  const srv = path.join(root, "srv");
  await mkdir(path.join(srv, "acme"), { recursive: true });
  daemon = await startGitDaemon(srv);
  ({ work: skillsWork } = await makeRepo(path.join(srv, "acme"), "skills"));
  await commitAndPush(skillsWork, {
    "skills/alpha/SKILL.md": skillMd("alpha"),
    "skills/alpha/scripts/run.sh": "echo alpha\n",
    "skills/beta/SKILL.md": skillMd("beta"),
  });
  ({ work: otherWork } = await makeRepo(path.join(srv, "acme"), "other"));
  await commitAndPush(otherWork, {
    "skills/alpha/SKILL.md": skillMd("alpha", "The other alpha."),
    "skills/alpha/notes.md": "Other notes.\n",
  });
  const market = await makeRepo(path.join(srv, "acme"), "market");
  marketHead = await commitAndPush(market.work, {
    ".claude-plugin/marketplace.json": JSON.stringify({
      name: "acme-market",
      plugins: [
        { name: "code", source: "./plugins/code" },
        { name: "docs", source: "./plugins/docs" },
        { name: "elsewhere", source: { source: "github", repo: "x/y" } },
      ],
    }),
    "plugins/code/skills/review/SKILL.md": skillMd("review"),
    "plugins/code/skills/review/checklist.md": "- tests\n",
    "plugins/docs/.claude-plugin/plugin.json": JSON.stringify({ name: "docs", skills: ["./more"] }),
    "plugins/docs/more/write/SKILL.md": skillMd("write"),
    "README.md": "A marketplace.\n",
  });
  const plugin = await makeRepo(path.join(srv, "acme"), "plugin");
  await commitAndPush(plugin.work, {
    "plugin.json": JSON.stringify({ name: "toolkit" }),
    "skills/lint/SKILL.md": skillMd("lint"),
  });
});
afterAll(async () => {
  await daemon?.stop();
  if (root) await removeDir(root);
});
beforeEach(async () => {
  project = path.join(root, `p${++n}`);
  home = path.join(root, `home${n}`);
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
});

describe.skipIf(!existsSync(bin))("add --as (decision 0420)", () => {
  it("installs a second source's skill of one name under another name: only SKILL.md's name line changes; install --frozen, update and remove follow it", async () => {
    expect((await skillport(["add", "acme/skills", "--skill", "alpha", "--agent", "claude-code"])).code).toBe(0);
    const refused = await skillport(["add", "acme/other", "--skill", "alpha", "--agent", "claude-code"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("under another name with --as NAME, or --force replaces it");

    const added = await skillport([
      "add",
      "acme/other",
      "--skill",
      "alpha",
      "--as",
      "alpha-other",
      "--agent",
      "claude-code",
    ]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    const installed = path.join(project, ".agents/skills/alpha-other");
    expect(readFileSync(path.join(installed, "SKILL.md"), "utf8")).toBe(
      skillMd("alpha", "The other alpha.").replace("name: alpha\n", "name: alpha-other\n"),
    );
    expect(readFileSync(path.join(installed, "notes.md"), "utf8")).toBe("Other notes.\n");
    expect(readlinkSync(path.join(project, ".claude/skills/alpha-other"))).toBe("../../.agents/skills/alpha-other");
    // The first alpha is untouched; the lock names both, each with the digest of what is on disk.
    expect(readFileSync(path.join(project, ".agents/skills/alpha/SKILL.md"), "utf8")).toBe(skillMd("alpha"));
    const lock = readJson(path.join(project, "skills-lock.json"));
    expect(lock.skills["alpha-other"]).toEqual({
      source: "acme/other",
      sourceType: "github",
      skillPath: "skills/alpha/SKILL.md",
      computedHash: computedHash(readFolder(installed)),
    });
    const sidecar = readJson(path.join(project, "skillport-lock.json"));
    expect(sidecar.skills["alpha-other"]?.upstream).toEqual({
      name: "alpha",
      computedHash: computedHash([
        { path: "SKILL.md", bytes: Buffer.from(skillMd("alpha", "The other alpha.")) },
        { path: "notes.md", bytes: Buffer.from("Other notes.\n") },
      ]),
    });

    // Restored elsewhere from the lock: the same rewritten bytes, verified against the lock's digest.
    const fresh = await freshCopyOfLocks();
    const restored = await skillport(["install", "--frozen"], fresh);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(readFileSync(path.join(fresh, ".agents/skills/alpha-other/SKILL.md"), "utf8")).toBe(
      readFileSync(path.join(installed, "SKILL.md"), "utf8"),
    );

    // Upstream moves: outdated and update see it, and the new bytes are installed under the same new name.
    await commitAndPush(otherWork, { "skills/alpha/SKILL.md": skillMd("alpha", "The other alpha, v2.") }, "v2");
    const outdated = await skillport(["outdated"]);
    expect(outdated.code).toBe(1);
    expect(outdated.stdout).toContain("alpha-other");
    const updated = await skillport(["update", "alpha-other"]);
    expect(updated.stderr).toBe("");
    expect(updated.stdout).toMatch(/^updated alpha-other .* ~SKILL\.md\n$/);
    expect(readFileSync(path.join(installed, "SKILL.md"), "utf8")).toBe(
      skillMd("alpha", "The other alpha, v2.").replace("name: alpha\n", "name: alpha-other\n"),
    );
    expect(readJson(path.join(project, "skills-lock.json")).skills["alpha-other"]?.computedHash).toBe(
      computedHash(readFolder(installed)),
    );

    const removed = await skillport(["remove", "alpha-other"]);
    expect(removed.code).toBe(0);
    expect(existsSync(installed)).toBe(false);
    expect(lstatSync(path.join(project, ".claude/skills/alpha-other"), { throwIfNoEntry: false })).toBeUndefined();
    expect(Object.keys(readJson(path.join(project, "skills-lock.json")).skills)).toEqual(["alpha"]);
  });

  it("--as takes one skill and a valid name (exit 2, nothing written)", async () => {
    const two = await skillport(["add", "acme/skills", "--skill", "alpha", "beta", "--as", "x", "--agent", "codex"]);
    expect([two.code, two.stderr]).toEqual([
      2,
      "skillport: --as names one skill; 2 are chosen (pick one with --skill)\n",
    ]);
    const bad = await skillport(["add", "acme/skills", "--skill", "alpha", "--as", "Not_Valid", "--agent", "codex"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('skillport: --as "Not_Valid" is not a skill name (name "Not_Valid" must be lowercase)\n');
    expect(existsSync(path.join(project, ".agents"))).toBe(false);
  });
});

describe.skipIf(!existsSync(bin))("doctor per agent (decision 0421)", () => {
  it("finds a planted collision, a skill an asked-for agent cannot see, a hidden skill (a note) and a listing over the agent's budget", async () => {
    expect((await skillport(["add", "acme/skills", "--skill", "alpha", "beta", "--agent", "claude-code"])).code).toBe(
      0,
    );
    // A skill of the user's own that only they may call: the agent lists it for people, not for the model.
    await mkdir(path.join(project, ".claude/skills/quiet"));
    writeFileSync(
      path.join(project, ".claude/skills/quiet/SKILL.md"),
      skillMd("quiet", "Only when asked.", "disable-model-invocation: true\n"),
    );
    const healthy = await skillport(["doctor", "--json"]);
    expect(codes(healthy.stdout)).toEqual(["hidden quiet claude-code note"]);
    expect(healthy.code).toBe(0); // a note is not a problem

    // A folder of another name that says `name: alpha`: Claude Code sees two alphas.
    await mkdir(path.join(project, ".claude/skills/alpha-copy"));
    writeFileSync(path.join(project, ".claude/skills/alpha-copy/SKILL.md"), skillMd("alpha", "A copy."));
    const found = await skillport(["doctor", "--json", "--agent", "claude-code", "windsurf"]);
    expect(found.code).toBe(1);
    expect(codes(found.stdout)).toEqual([
      "collision alpha claude-code",
      "hidden quiet claude-code note",
      "not-visible alpha windsurf",
      "not-visible beta windsurf",
    ]);
    const text = await skillport(["doctor", "--agent", "windsurf"]);
    expect(text.stdout).toContain(
      ".windsurf/skills/alpha  not-visible  Windsurf will not see alpha: it reads .windsurf/skills, which has no alpha\n  fix: skillport add acme/skills --skill alpha --agent windsurf\n",
    );

    // Claude Code's listing at a (set) budget of 100 characters cannot hold the skills it sees.
    const tight = await skillport(["doctor", "--json"], project, { SLASH_COMMAND_TOOL_CHAR_BUDGET: "100" });
    const over = codes(tight.stdout).filter((c) => c.startsWith("over-budget"));
    expect(over.length).toBeGreaterThan(0);
    expect(over.every((c) => c.endsWith(" claude-code"))).toBe(true);
    expect(tight.code).toBe(1);
  });

  it("finds a link an agent would not follow (Cursor's global folder) and says to install a copy", async () => {
    const added = await skillport(["add", "acme/skills", "--skill", "beta", "--agent", "cursor", "-g"]);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain(
      "Cursor is reported not to list skill folders that are links (runkids/skillshare#42 (2026-02: linked skills not discovered in Antigravity, Cursor, OpenCode)); add them for it with --copy",
    );
    expect(lstatSync(path.join(home, ".cursor/skills/beta")).isSymbolicLink()).toBe(true);
    const found = await skillport(["doctor", "-g", "--json"]);
    expect(found.code).toBe(1);
    expect(codes(found.stdout)).toEqual(["link-ignored beta cursor"]);
    const text = await skillport(["doctor", "-g"]);
    expect(text.stdout).toContain(
      "fix: install a copy for it: skillport add <its source> --skill beta --agent cursor --copy -g",
    );
    // Global installs have no lock, so replacing the link with a copy takes --force.
    const copied = await skillport([
      "add",
      "acme/skills",
      "--skill",
      "beta",
      "--agent",
      "cursor",
      "-g",
      "--copy",
      "--force",
    ]);
    expect(copied.code).toBe(0);
    expect(lstatSync(path.join(home, ".cursor/skills/beta")).isDirectory()).toBe(true);
    const fixed = await skillport(["doctor", "-g", "--json"]);
    expect([fixed.code, codes(fixed.stdout)]).toEqual([0, []]);
  });
});

describe.skipIf(!existsSync(bin))("plugin layouts from git (decision 0422)", () => {
  it("reads a marketplace from GitHub shorthand, a git URL with a ref and a tree URL; the lock points at each skill in the repository and install --frozen restores them", async () => {
    const listed = await skillport(["add", "acme/market", "--list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n").map((l) => l.split("  ")[0])).toEqual(["code/review", "docs/write", ""]);
    expect(listed.stderr).toContain('plugin "elsewhere" of the marketplace is not a folder inside it; left out');

    expect((await skillport(["add", "acme/market", "--skill", "review", "--agent", "claude-code"])).code).toBe(0);
    const viaUrl = await skillport([
      "add",
      `git://127.0.0.1:${daemon.port}/acme/market.git#main`,
      "--skill",
      "docs/write",
      "--agent",
      "claude-code",
    ]);
    expect(viaUrl.code).toBe(0);
    expect(readFileSync(path.join(project, ".agents/skills/review/checklist.md"), "utf8")).toBe("- tests\n");
    const lock = readJson(path.join(project, "skills-lock.json"));
    expect(lock.skills.review).toMatchObject({ source: "acme/market", sourceType: "github" });
    expect(lock.skills.review?.skillPath).toBe("plugins/code/skills/review/SKILL.md");
    expect(lock.skills.write).toMatchObject({ sourceType: "git", ref: "main" });
    expect(lock.skills.write?.skillPath).toBe("plugins/docs/more/write/SKILL.md");
    expect(readJson(path.join(project, "skillport-lock.json")).skills.review?.commit).toBe(marketHead);

    const fresh = await freshCopyOfLocks();
    const restored = await skillport(["install", "--frozen"], fresh);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    for (const name of ["review", "write"])
      expect(computedHash(readFolder(path.join(fresh, ".agents/skills", name)))).toBe(lock.skills[name]?.computedHash);

    // A tree URL to one plugin folder (its manifest names `more/`).
    const tree = await skillport(["add", "https://github.com/acme/market/tree/main/plugins/docs", "--list"]);
    expect(tree.code).toBe(0);
    expect(tree.stdout.split("  ")[0]).toBe("docs/write");
  });

  it("reads an Agent Plugins 1.0 repository (plugin.json and skills/ at the root)", async () => {
    const listed = await skillport(["add", "acme/plugin", "--list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("  ")[0]).toBe("toolkit/lint");
    expect((await skillport(["add", "acme/plugin", "--agent", "codex"])).code).toBe(0);
    expect(readJson(path.join(project, "skills-lock.json")).skills.lint?.skillPath).toBe("skills/lint/SKILL.md");
    await rm(path.join(project, ".agents"), { recursive: true });
    expect((await skillport(["install", "--frozen"])).code).toBe(0);
    expect(existsSync(path.join(project, ".agents/skills/lint/SKILL.md"))).toBe(true);
  });
});
