import fs, { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { AGENTS, agentEnvironment, agentSkillsDir, detectAgents } from "./agents.js";
import { computedHash, type SkillFileBytes } from "./digest.js";
import { installSkills } from "./installer.js";
import { InstallError } from "./errors.js";
import { LOCK_FILE, readLock, readSidecar, writeLock } from "./lock.js";
import { openTarget, writeFolder } from "./place.js";

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir("skillport-install-unit-");
});
afterEach(async () => {
  await removeDir(dir);
});

const bytes = (s: string) => new TextEncoder().encode(s);

describe("agents table", () => {
  it("covers the most used agents with unique ids and relative project folders", () => {
    const ids = AGENTS.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(20);
    for (const id of [
      "claude-code",
      "codex",
      "cursor",
      "github-copilot",
      "gemini-cli",
      "opencode",
      "windsurf",
      "cline",
      "roo",
      "goose",
      "amp",
      "kiro-cli",
      "junie",
      "qwen-code",
      "trae",
      "continue",
      "augment",
      "crush",
      "openhands",
      "droid",
    ]) {
      expect(ids).toContain(id);
    }
    for (const a of AGENTS) {
      expect(a.projectDir).toMatch(/^\.?[a-z]+(\/[a-z]+)*$/);
      expect(a.source).not.toBe("");
    }
  });

  it("detects agents by their markers in HOME and the project, and reads HOME and XDG from the environment", () => {
    const home = path.join(dir, "home");
    mkdirSync(path.join(home, ".cursor"), { recursive: true });
    mkdirSync(path.join(dir, "xdg/goose"), { recursive: true });
    mkdirSync(path.join(dir, "proj/.continue"), { recursive: true });
    const env = agentEnvironment({ HOME: home, XDG_CONFIG_HOME: path.join(dir, "xdg") }, path.join(dir, "proj"));
    expect(detectAgents(env).map((a) => a.id)).toEqual(["continue", "cursor", "goose"]);
    const goose = AGENTS.find((a) => a.id === "goose");
    expect(goose && agentSkillsDir(goose, env, true)).toBe(path.join(dir, "xdg/goose/skills"));
  });
});

describe("computedHash (Vercel's skills-lock.json digest)", () => {
  const fileArb = fc.record({ path: fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,6}){0,2}$/), text: fc.string() });
  it("does not depend on the order files are listed in, and changes with a path or a byte", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fileArb, { selector: (f) => f.path, minLength: 1, maxLength: 8 }), (list) => {
        const files: SkillFileBytes[] = list.map((f) => ({ path: f.path, bytes: bytes(f.text) }));
        expect(computedHash([...files].reverse())).toBe(computedHash(files));
        const [first, ...rest] = files;
        if (first === undefined) return;
        expect(computedHash([{ path: `${first.path}x`, bytes: first.bytes }, ...rest])).not.toBe(computedHash(files));
        expect(
          computedHash([{ path: first.path, bytes: bytes(`${new TextDecoder().decode(first.bytes)}!`) }, ...rest]),
        ).not.toBe(computedHash(files));
      }),
    );
  });

  it("skips .git and node_modules folders, as the skills CLI does", () => {
    const base = [{ path: "SKILL.md", bytes: bytes("x") }];
    expect(
      computedHash([
        ...base,
        { path: ".git/HEAD", bytes: bytes("y") },
        { path: "a/node_modules/p.js", bytes: bytes("z") },
      ]),
    ).toBe(computedHash(base));
  });
});

describe("skills-lock.json", () => {
  it("keeps fields it does not know, sorts skills by name and ends with a newline", async () => {
    writeFileSync(
      path.join(dir, LOCK_FILE),
      JSON.stringify({
        version: 1,
        skills: {
          zed: { source: "a/b", sourceType: "github", computedHash: "1", extra: [1] },
          abc: { source: "./x", sourceType: "local", computedHash: "2" },
        },
      }),
    );
    const { lock } = await readLock(dir);
    await writeLock(dir, lock);
    const text = readFileSync(path.join(dir, LOCK_FILE), "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys((JSON.parse(text) as { skills: object }).skills)).toEqual(["abc", "zed"]);
    expect(text).toContain('"extra": [\n        1\n      ]');
  });

  it.each([
    ["not JSON", "{", /^skills-lock\.json: not valid JSON/],
    ["no skills map", '{"version":1}', /^skills-lock\.json: not a skills lockfile/],
    [
      "a name that climbs out of the skills folder",
      '{"version":1,"skills":{"../../evil":{"source":"x","sourceType":"local","computedHash":"1"}}}',
      /^skills-lock\.json: "\.\.\/\.\.\/evil" is not a skill name$/,
    ],
    [
      "a name with a folder in it",
      '{"version":1,"skills":{"a/b":{"source":"x","sourceType":"local","computedHash":"1"}}}',
      /^skills-lock\.json: "a\/b" is not a skill name$/,
    ],
    [
      "an entry without computedHash",
      '{"version":1,"skills":{"a":{"source":"x","sourceType":"local"}}}',
      /^skills-lock\.json: skill "a" needs string source, sourceType and computedHash$/,
    ],
  ])("refuses %s with one line naming the file", async (_what, text, message) => {
    writeFileSync(path.join(dir, LOCK_FILE), text);
    const error = await readLock(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstallError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("\n");
  });

  it("drops sidecar entries whose computedHash no longer matches the lock (another tool rewrote it)", async () => {
    writeFileSync(
      path.join(dir, "skillport-lock.json"),
      JSON.stringify({
        version: 1,
        skills: {
          a: { computedHash: "old", files: {}, agents: {} },
          b: { computedHash: "same", files: {}, agents: {} },
        },
      }),
    );
    const lock = {
      version: 1,
      skills: {
        a: { source: "x", sourceType: "local", computedHash: "new" },
        b: { source: "x", sourceType: "local", computedHash: "same" },
      },
    };
    expect(Object.keys(await readSidecar(dir, lock))).toEqual(["b"]);
  });
});

describe("writeFolder (atomic skill folder)", () => {
  it("a write that fails half-way leaves the previous folder whole and no temp folder behind", () => {
    const parent = openTarget(dir, path.join(dir, ".agents/skills"));
    try {
      writeFolder(parent, "s", [{ path: "SKILL.md", bytes: bytes("old") }]);
      expect(() =>
        writeFolder(parent, "s", [
          { path: "SKILL.md", bytes: bytes("new") },
          { path: "../escape", bytes: bytes("x") },
        ]),
      ).toThrow();
      expect(readFileSync(path.join(dir, ".agents/skills/s/SKILL.md"), "utf8")).toBe("old");
      expect(readdirSync(path.join(dir, ".agents/skills"))).toEqual(["s"]);
      expect(existsSync(path.join(dir, ".agents/escape"))).toBe(false);
      writeFolder(parent, "s", [
        { path: "SKILL.md", bytes: bytes("new") },
        { path: "a/b/c.txt", bytes: bytes("c") },
      ]);
      expect(readFileSync(path.join(dir, ".agents/skills/s/a/b/c.txt"), "utf8")).toBe("c");
      expect(readdirSync(path.join(dir, ".agents/skills"))).toEqual(["s"]);
    } finally {
      parent.close();
    }
  });
});

describe("writeFolder's system calls", () => {
  it("makes each folder once, opens none that is missing first, and closes every descriptor it opened", () => {
    const parent = openTarget(dir, path.join(dir, ".agents/skills"));
    const opened: number[] = [];
    let failed = 0;
    const real = fs.openSync;
    const open = vi.spyOn(fs, "openSync").mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      try {
        const fd = real(...args);
        opened.push(fd);
        return fd;
      } catch (error) {
        failed++;
        throw error;
      }
    });
    const close = vi.spyOn(fs, "closeSync");
    const mkdir = vi.spyOn(fs, "mkdirSync");
    try {
      // Out of order on purpose: a folder left and come back to (a/) is reopened, never made twice.
      writeFolder(parent, "s", [
        { path: "SKILL.md", bytes: bytes("s") },
        { path: "a/one.md", bytes: bytes("1") },
        { path: "a/b/two.md", bytes: bytes("2") },
        { path: "c/three.md", bytes: bytes("3") },
        { path: "a/four.md", bytes: bytes("4") },
      ]);
    } finally {
      open.mockRestore();
      parent.close();
    }
    const closed = new Set(close.mock.calls.map(([fd]) => fd));
    close.mockRestore();
    const made = mkdir.mock.calls.length;
    mkdir.mockRestore();
    expect(failed).toBe(0); // was 4: the staged folder and a/, a/b/, c/ were each opened before they were made
    expect(made).toBe(4); // the staged folder, a, a/b, c
    expect(opened.every((fd) => closed.has(fd))).toBe(true);
    const written: Array<[string, string]> = [
      ["SKILL.md", "s"],
      ["a/one.md", "1"],
      ["a/b/two.md", "2"],
      ["c/three.md", "3"],
      ["a/four.md", "4"],
    ];
    for (const [file, text] of written)
      expect(readFileSync(path.join(dir, ".agents/skills/s", file), "utf8")).toBe(text);
    expect(readdirSync(path.join(dir, ".agents/skills"))).toEqual(["s"]);
  });
});

describe("installSkills", () => {
  it("the audit seam runs after validation and before the first write: a refusal writes nothing", async () => {
    const env = agentEnvironment({ HOME: path.join(dir, "home") }, dir);
    const skill = {
      name: "s",
      files: [{ path: "SKILL.md", bytes: bytes("x") }],
      origin: { source: "./x", sourceType: "local" },
    };
    const target = { env, global: false, agents: AGENTS.filter((a) => a.id === "roo"), copy: false, force: false };
    const refused = installSkills([skill], {
      ...target,
      auditGate: () => Promise.reject(new InstallError("s: verdict malicious", "INSTALL_REFUSED")),
    });
    await expect(refused).rejects.toThrow("s: verdict malicious");
    expect(readdirSync(dir)).toEqual([]);
    const [installed] = await installSkills([skill], target);
    expect(installed?.agents).toEqual({ roo: "link" });
    expect(readdirSync(dir).sort()).toEqual([".agents", ".roo", "skillport-lock.json", "skills-lock.json"]);
  });

  it("records what the audit gate returns in the sidecar, and reads back only a well-formed consent", async () => {
    const env = agentEnvironment({ HOME: path.join(dir, "home") }, dir);
    const files = [{ path: "SKILL.md", bytes: bytes("x") }];
    const hash = computedHash(files);
    const record = {
      verdict: "warn",
      accepted: { verdict: "warn", by: "--yes", computedHash: hash },
      inventory: ["domain example.com"],
    };
    const skill = { name: "s", files, origin: { source: "./x", sourceType: "local" } };
    await installSkills([skill], {
      env,
      global: false,
      agents: [],
      copy: false,
      force: false,
      auditGate: () => Promise.resolve({ s: record }),
    });
    const { lock } = await readLock(dir);
    expect((await readSidecar(dir, lock)).s?.audit).toEqual(record);
    const file = path.join(dir, "skillport-lock.json");
    const raw = JSON.parse(readFileSync(file, "utf8")) as { skills: { s: { audit: { accepted: unknown } } } };
    raw.skills.s.audit.accepted = { verdict: "warn", by: 1 };
    writeFileSync(file, JSON.stringify(raw));
    expect((await readSidecar(dir, lock)).s?.audit).toEqual({ verdict: "warn", inventory: ["domain example.com"] });
  });
});
