import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, writeTree } from "@skillport/testing";
import { NpmSkillSource } from "./npm/source.js";

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody.\n`;
const json = (value: unknown) => JSON.stringify(value);

let project: string;

beforeAll(async () => {
  project = await makeTempDir("skillport-npm-");
  await writeTree(project, {
    "package.json": json({ name: "app", private: true }),
    "src/deep/file.txt": "",
    // skills/ by convention
    "node_modules/plain-skills/package.json": json({ name: "plain-skills", version: "1.2.3" }),
    "node_modules/plain-skills/skills/alpha/SKILL.md": skillMd("alpha"),
    "node_modules/plain-skills/skills/alpha/references/notes.md": "# Notes\n",
    "node_modules/plain-skills/skills/not-a-skill/readme.txt": "",
    // agentSkills naming a skill folder and a folder of skills; an exports map that hides package.json
    "node_modules/@acme/skills/package.json": json({
      name: "@acme/skills",
      exports: { ".": "./index.js" },
      agentSkills: ["lib/solo", "./more/"],
    }),
    "node_modules/@acme/skills/index.js": "export {};\n",
    "node_modules/@acme/skills/lib/solo/SKILL.md": skillMd("solo"),
    "node_modules/@acme/skills/more/beta/SKILL.md": skillMd("beta"),
    "node_modules/@acme/skills/more/solo/SKILL.md": skillMd("solo"),
    // declared folders that escape the package
    "node_modules/escape-dots/package.json": json({ name: "escape-dots", agentSkills: "../plain-skills/skills" }),
    "node_modules/escape-link/package.json": json({ name: "escape-link", agentSkills: "linked" }),
    "node_modules/escape-link/linked": { link: "../plain-skills/skills" },
    "node_modules/empty-pkg/package.json": json({ name: "empty-pkg" }),
  });
});
afterAll(async () => removeDir(project));

describe("NpmSkillSource", () => {
  it("serves skills/ of a package found through node_modules lookup, from a nested folder", async () => {
    const source = new NpmSkillSource({ package: "plain-skills", from: path.join(project, "src", "deep") });
    expect(source.name).toBe("npm:plain-skills");
    expect(source.version).toBe("1.2.3");
    expect(await source.discover()).toEqual(["alpha"]);
    expect(source.skipped().map((s) => s.where)).toEqual(["skills/not-a-skill"]);
    expect(new TextDecoder().decode(await source.getReference("alpha", "notes.md"))).toBe("# Notes\n");
  });

  it("serves the folders an agentSkills field names, whatever the exports map says; the first folder wins an id", async () => {
    const source = new NpmSkillSource({ package: "@acme/skills", from: project });
    expect(await source.discover()).toEqual(["beta", "solo"]);
    expect(await source.getLocation("solo")).toBe(path.join(project, "node_modules/@acme/skills/lib/solo/SKILL.md"));
    expect(source.skipped()).toEqual([
      expect.objectContaining({ where: "more/solo", message: expect.stringContaining("a second skill") }),
    ]);
  });

  it.each([
    ["escape-dots", /not a folder inside the package/],
    ["escape-link", /leads outside the package/],
    ["empty-pkg", /no skills\/ folder and no "agentSkills" field/],
    ["not-installed", /not installed where .* can resolve it/],
    ["../plain-skills", /not an npm package name/],
  ])("refuses %s", (name, message) => {
    expect(() => new NpmSkillSource({ package: name, from: project })).toThrow(message);
  });
});
