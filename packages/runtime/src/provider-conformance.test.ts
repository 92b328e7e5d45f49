import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { runConformance, writeConformanceFixture } from "@skillport/testing";
import { scanDeployedSkills, WorkspaceSkillProvider, type DeployedSkill } from "./scan.js";
import { tempDir } from "./__fixtures__/helpers.js";

// The deployed-skills provider against the shared provider conformance kit, on a real workspace layout:
// projects/<versionId>/skills/<skill>/ with a sibling directory for the confinement cases.
const VERSION = "0123456789abcdef01234567";
let ws: { dir: string; cleanup: () => Promise<void> };
let skillsRoot: string;
let skills: DeployedSkill[];

beforeAll(async () => {
  ws = await tempDir();
  skillsRoot = path.join(ws.dir, "projects", VERSION, "skills");
  await mkdir(skillsRoot, { recursive: true });
  await writeConformanceFixture(skillsRoot);
  await writeFile(path.join(ws.dir, "projects", VERSION, "entrypoint.sh"), "true\n");
  skills = (await scanDeployedSkills(path.join(ws.dir, "projects"), [VERSION])).skills;
});
afterAll(() => ws.cleanup());

describe("WorkspaceSkillProvider conformance", () => {
  it("finds exactly the fixture skill", () => {
    expect(skills.map((s) => [s.id, s.relativeDir])).toEqual([["conformance-skill", "skills/conformance-skill"]]);
  });

  it("passes every case of the kit, symlink cases included", async () => {
    const report = await runConformance(() => new WorkspaceSkillProvider(skills), {
      filesystem: { root: skillsRoot },
      contentLimit: { makeProvider: () => new WorkspaceSkillProvider(skills, { maxFileBytes: 4 }) },
    });
    expect(report.failed).toEqual([]);
    expect(report.passed.length).toBeGreaterThan(50);
  });
});
