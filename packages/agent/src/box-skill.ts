import type { Frontmatter, Skill } from "@skillport/core";

/** Reads one skill's content on demand: nothing is read until the model loads the skill. */
export interface SkillReader {
  body(): Promise<string>;
  /** Every file of the skill, SKILL.md included, as POSIX paths relative to the skill. */
  listFiles(): Promise<string[]>;
  /** Original bytes; the source confines the path to the skill. */
  readFile(path: string): Promise<Uint8Array>;
  /** Where a file that is a link inside the skill folder leads (skill-relative), for skills served from folders. */
  linkTarget?(path: string): Promise<string | undefined>;
}

/** One skill as the box holds it. */
export interface BoxSkill {
  /** `<name>_<source>`: what the model passes as `skillId`. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly source: string;
  /** The frontmatter (name and description included), in insertion order. Do not mutate. */
  readonly frontmatter: Frontmatter;
  /** `registered` = given to `registerSkill`; `registry` = served by a SkillRegistry (a provider). */
  readonly origin: "registered" | "registry";
  /** 1 for the first registration, +1 for each new content digest (registered skills; registry skills: 1). */
  readonly version: number;
  /** Content digest (registered skills). */
  readonly digest: string | undefined;
  /** Hidden from the model's catalog, enum and search (`disable-model-invocation: true`). */
  readonly hidden: boolean;
  /** The registry id (directory name) of a registry skill. */
  readonly registryId: string | undefined;
  readonly reader: SkillReader;
}

/** One version of a skill registered in code. */
export interface SkillVersion {
  version: number;
  digest: string;
  skill: Skill;
}

export interface RegisterResult {
  skillId: string;
  /** `added`: first version; `updated`: a new content digest (a new version); `unchanged`: same digest, nothing done. */
  status: "added" | "updated" | "unchanged";
  version: number;
}
