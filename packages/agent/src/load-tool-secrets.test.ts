// Issue 19 weakness "Load tool serves .env and .git/config with a token": the load tool and code-execution uploads
// apply core's one credential list (decision 0255), for skills from real folders and for registered skills alike.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Skill, SkillRegistry } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "@skillport/fs";
import { makeTempDir, removeDir, writeTree } from "@skillport/testing";
import { NOT_SECRET_FILES, SECRET_FILE_CASES, SERVICE_ACCOUNT_KEY } from "../../core/src/__fixtures__/secret-files.js";
import { resultText, SkillBox } from "./index.js";

const TOKEN = "ghp_0123456789abcdefTOKEN";
const SKILL_MD =
  "---\nname: leaky\ndescription: A skill folder that also holds credentials. Use in tests.\n---\n# Leaky\n";

let root: string;
let fsBox: SkillBox;
let registeredBox: SkillBox;

const filesOf = (): Record<string, string> => ({
  ...Object.fromEntries(SECRET_FILE_CASES.map(([file]) => [file, `TOKEN=${TOKEN}\n`])),
  ...Object.fromEntries(NOT_SECRET_FILES.map((file) => [file, "ordinary\n"])),
  "data/project.json": SERVICE_ACCOUNT_KEY,
});

beforeAll(async () => {
  root = await makeTempDir("skillport-load-secrets-");
  await writeTree(path.join(root, "skills/leaky"), { "SKILL.md": SKILL_MD, ...filesOf() });
  // Harmless names that lead to secrets inside the skill: judged by their target, as pack judges a followed link.
  await writeTree(path.join(root, "skills/leaky"), {
    "notes.txt": { link: ".env" },
    "refs/remote.cfg": { link: "../.git/config" },
  });
  const registry = new SkillRegistry();
  await registry.addProvider(new LocalFileSystemSkillProvider(path.join(root, "skills"), { name: "fs" }), {
    watch: false,
  });
  fsBox = new SkillBox({ registry });
  // Every file passes the upload filter: only the credential rule keeps secrets out of the work dir.
  fsBox
    .codeExecution()
    .workDir(path.join(root, "work-fs"))
    .fileFilter(() => true)
    .enable();

  registeredBox = new SkillBox();
  const builder = Skill.builder()
    .name("leaky")
    .description("A registered skill that also holds credentials. Use in tests.")
    .skillContent("# Leaky\n");
  for (const [file, content] of Object.entries(filesOf())) builder.addResource(file, content);
  await registeredBox.registerSkill(builder.build());
  registeredBox
    .codeExecution()
    .workDir(path.join(root, "work-registered"))
    .fileFilter(() => true)
    .enable();
});

afterAll(async () => {
  await fsBox.close();
  await registeredBox.close();
  await removeDir(root);
});

// Boxes are made in beforeAll, after describe.each has read this table: each row carries a getter.
const BOXES = [
  ["fs", () => fsBox, "leaky_fs"],
  ["registered", () => registeredBox, "leaky_custom"],
] as const;
const load = async (box: SkillBox, skillId: string, file: string) => {
  const result = await box.callTool("load_skill_through_path", { skillId, path: file });
  return { text: resultText(result), isError: result.isError };
};

describe.each(BOXES)("load tool (%s skill)", (_kind, boxOf, skillId) => {
  it.each(SECRET_FILE_CASES)("refuses %s (%s)", async (file, pattern) => {
    const result = await load(boxOf(), skillId, file);
    expect(result.isError).toBe(true);
    expect(result.text).not.toContain(TOKEN);
    expect(result.text).toContain(`is not served: its name matches ${pattern}`);
  });

  it("refuses a service-account key under a harmless name", async () => {
    const result = await load(boxOf(), skillId, "data/project.json");
    expect(result).toEqual({ isError: true, text: expect.stringContaining("it holds a service-account key") });
    expect(result.text).not.toContain("PRIVATE KEY");
  });

  it.each(NOT_SECRET_FILES)("serves the look-alike %s", async (file) => {
    expect(await load(boxOf(), skillId, file)).toEqual({ isError: false, text: expect.stringContaining("ordinary") });
  });

  it("never lists a secret among the available paths", async () => {
    const result = await load(boxOf(), skillId, "missing.md");
    expect(result.text).toContain("Available paths:");
    const listed = new Set(
      result.text
        .split("\n")
        .map((line) => /^\d+\. (.*)$/.exec(line)?.[1])
        .filter((p) => p !== undefined),
    );
    for (const [file] of SECRET_FILE_CASES) expect(listed.has(file), file).toBe(false);
    for (const file of NOT_SECRET_FILES) expect(listed.has(file), file).toBe(true);
  });
});

describe("links inside a skill folder that lead to a secret", () => {
  it.each([
    ["notes.txt", ".env", ".env"],
    ["refs/remote.cfg", ".git/config", ".git"],
  ])("%s (-> %s) is refused by its target", async (file, target, pattern) => {
    const result = await load(fsBox, "leaky_fs", file);
    expect(result.isError).toBe(true);
    expect(result.text).not.toContain(TOKEN);
    expect(result.text).toContain(`is not served: it is a link to ${target}, which matches ${pattern}`);
  });
});

describe.each(BOXES)("code-execution upload (%s skill)", (_kind, boxOf, skillId) => {
  it("copies every file the filter admits except the credential files", async () => {
    const loaded = await load(boxOf(), skillId, "SKILL.md");
    expect(loaded.isError).toBe(false);
    const dir = path.join(boxOf().codeExecutionConfig!.uploadDir, skillId);
    const copied = (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
      .filter((e) => e.isFile())
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
      .sort();
    expect(copied).toEqual([...NOT_SECRET_FILES].sort());
    for (const [file] of SECRET_FILE_CASES) expect(existsSync(path.join(dir, file)), file).toBe(false);
  });
});
