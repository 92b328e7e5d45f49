import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Skill, type Frontmatter } from "@skillport/core";

/** The one skill a provider under test must serve. */
export const CONFORMANCE_SKILL_ID = "conformance-skill";
/** Ids and names that must not exist anywhere. */
export const MISSING_SKILL_ID = "no-such-skill-anywhere";
export const MISSING_RESOURCE_NAME = "no-such-resource.txt";
/**
 * A directory written next to the skill that is NOT a skill (it has no SKILL.md), so traversal targets really exist
 * on disk while discovery still finds exactly one skill.
 */
export const CONFINEMENT_SIBLING_DIR = "other";
export const CONFINEMENT_SIBLING_FILE = "references/x.md";
export const CONFINEMENT_SIBLING_CONTENT = "# Not yours\n\nA file of a sibling directory; no provider may serve it.\n";

export const FIXTURE_FRONTMATTER: Readonly<Frontmatter> = Object.freeze({
  name: CONFORMANCE_SKILL_ID,
  description: "Checks that a skill provider keeps the Agent Skills provider contract. Use when testing a provider.",
});

export const FIXTURE_BODY =
  "\n# Conformance skill\n\nRead references/notes.md, then run scripts/run.sh and show assets/diagram.svg.\n";

/** Resource files of the fixture, exactly as the reference suite defines them. */
export const FIXTURE_RESOURCES: Readonly<
  Record<"references" | "scripts" | "assets", { name: string; content: string }>
> = Object.freeze({
  references: { name: "notes.md", content: "# Notes\n\nA reference document.\n" },
  scripts: { name: "run.sh", content: "#!/bin/sh\necho conformance\n" },
  assets: { name: "diagram.svg", content: "<svg></svg>\n" },
});

/** The fixture's SKILL.md text. */
export function fixtureSkillMd(): string {
  return `---\nname: ${FIXTURE_FRONTMATTER.name}\ndescription: ${FIXTURE_FRONTMATTER.description}\n---\n${FIXTURE_BODY}`;
}

/** The fixture as a `Skill`, for in-memory and database repositories (save it, then run the kit). */
export function conformanceFixtureSkill(): Skill {
  const resources = new Map<string, string>();
  for (const [kind, file] of Object.entries(FIXTURE_RESOURCES)) resources.set(`${kind}/${file.name}`, file.content);
  return new Skill({ frontmatter: { ...FIXTURE_FRONTMATTER }, body: FIXTURE_BODY, resources, source: "conformance" });
}

export interface WrittenFixture {
  /** The directory given: the provider root. */
  root: string;
  /** `<root>/conformance-skill`. */
  skillDir: string;
}

/**
 * Writes `conformance-skill/` (SKILL.md and the three resources) under `dir`, plus the non-skill sibling
 * `other/references/x.md` that confinement cases try to reach. `dir` is created if needed.
 */
export async function writeConformanceFixture(dir: string): Promise<WrittenFixture> {
  const skillDir = path.join(dir, CONFORMANCE_SKILL_ID);
  for (const [kind, file] of Object.entries(FIXTURE_RESOURCES)) {
    await mkdir(path.join(skillDir, kind), { recursive: true });
    await writeFile(path.join(skillDir, kind, file.name), file.content);
  }
  await writeFile(path.join(skillDir, "SKILL.md"), fixtureSkillMd());
  const sibling = path.join(dir, CONFINEMENT_SIBLING_DIR, ...CONFINEMENT_SIBLING_FILE.split("/"));
  await mkdir(path.dirname(sibling), { recursive: true });
  await writeFile(sibling, CONFINEMENT_SIBLING_CONTENT);
  return { root: dir, skillDir };
}
