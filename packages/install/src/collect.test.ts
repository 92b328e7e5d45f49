// What `add` refuses and what it only says (decisions 0302, 0357): a skill agents would not load, or whose name breaks
// the spec's rules or differs from its folder, is refused; what only the spec's strict validator objects to (fields it
// does not list, flow-style YAML) installs, with the findings as notes.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalFileSystemSkillProvider } from "@skillport/fs";
import { makeTempDir, removeDir } from "@skillport/testing";
import { collectSkill } from "./collect.js";
import { InstallError } from "./errors.js";

const DESCRIPTION = "description: Turns rough notes into a tidy report. Use when asked for a report.";
const CASES: Array<{ folder: string; skillMd: string; outcome: "installs" | "refused"; notes?: string[] }> = [
  {
    folder: "claude-fields",
    skillMd: `---\nname: claude-fields\n${DESCRIPTION}\ndisable-model-invocation: true\nargument-hint: "[file]"\nversion: 1.0.0\n---\n# Steps\n`,
    outcome: "installs",
    notes: ["field-unexpected", "field-unexpected", "field-unexpected"],
  },
  {
    folder: "flow-yaml",
    skillMd: `---\nname: flow-yaml\n${DESCRIPTION}\nmetadata: { tags: [a, b] }\n---\n# Steps\n`,
    outcome: "installs",
    notes: ["yaml-strict", "yaml-strict"], // the mapping and the sequence inside it
  },
  { folder: "plain", skillMd: `---\nname: plain\n${DESCRIPTION}\n---\n# Steps\n`, outcome: "installs", notes: [] },
  { folder: "other-folder", skillMd: `---\nname: mismatch\n${DESCRIPTION}\n---\n`, outcome: "refused" },
  { folder: "Bad_Name", skillMd: `---\nname: Bad_Name\n${DESCRIPTION}\n---\n`, outcome: "refused" },
  { folder: "no-frontmatter", skillMd: "# Just a heading\n", outcome: "refused" },
  { folder: "broken-yaml", skillMd: `---\nname: broken-yaml\ndescription: [unclosed\n---\n`, outcome: "refused" },
  { folder: "no-description", skillMd: "---\nname: no-description\n---\n# Steps\n", outcome: "refused" },
  { folder: "empty-description", skillMd: '---\nname: empty-description\ndescription: ""\n---\n', outcome: "refused" },
];

let root: string;
let provider: LocalFileSystemSkillProvider;
beforeAll(async () => {
  root = await makeTempDir("skillport-collect-");
  for (const c of CASES) {
    mkdirSync(path.join(root, c.folder));
    writeFileSync(path.join(root, c.folder, "SKILL.md"), c.skillMd);
  }
  provider = new LocalFileSystemSkillProvider(root, { name: "fs:collect" });
});
afterAll(async () => {
  await removeDir(root);
});

describe("collectSkill: refuse what breaks loading or naming, note the rest", () => {
  it.each(CASES)("$folder $outcome", async (c) => {
    const result = await collectSkill(provider, c.folder).catch((e: unknown) => e);
    if (c.outcome === "refused") {
      expect(result).toBeInstanceOf(InstallError);
      expect((result as InstallError).code).toBe("INSTALL_REFUSED");
      expect((result as InstallError).message).toContain(`${c.folder}/SKILL.md`);
      return;
    }
    expect(result).not.toBeInstanceOf(Error);
    const skill = result as Awaited<ReturnType<typeof collectSkill>>;
    expect(skill.name).toBe(c.folder);
    expect(skill.notes.map((n) => n.code)).toEqual(c.notes);
    expect(skill.notes.every((n) => n.severity === "warning")).toBe(true);
  });
});
