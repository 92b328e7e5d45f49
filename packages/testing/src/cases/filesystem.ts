import { mkdtemp, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SkillProvider } from "@skillport/core";
import { check, describeValue, expectError } from "../check.js";
import type { ConformanceCase, FilesystemConformanceOptions } from "./types.js";
import { CONFINEMENT_SIBLING_DIR, CONFINEMENT_SIBLING_FILE } from "../fixture.js";
import { ANY_SKILL_ERROR, id, RESOURCE_NOT_FOUND } from "./shared.js";

interface LinkPlan {
  label: string;
  /** Link location relative to the skill directory. */
  link: string;
  /** Absolute target, made by `prepare` (which may create an outside directory). */
  target: (root: string, outside: string) => string;
  /** A file path, relative to the skill, that reads through the link. */
  readThrough: string;
  /** When the link sits in references/: the name a kind getter would use. */
  referenceName?: string;
}

const PLANS: readonly LinkPlan[] = [
  {
    label: "file-to-sibling",
    link: "references/escape.md",
    target: (root) => path.join(root, CONFINEMENT_SIBLING_DIR, ...CONFINEMENT_SIBLING_FILE.split("/")),
    readThrough: "references/escape.md",
    referenceName: "escape.md",
  },
  {
    label: "file-outside-root",
    link: "references/outside.md",
    target: (_root, outside) => path.join(outside, "secret.md"),
    readThrough: "references/outside.md",
    referenceName: "outside.md",
  },
  {
    label: "dir-to-sibling",
    link: "linked",
    target: (root) => path.join(root, CONFINEMENT_SIBLING_DIR),
    readThrough: `linked/${CONFINEMENT_SIBLING_FILE}`,
  },
];

/**
 * Filesystem-only cases: a symbolic link inside the skill that points outside it (to a sibling directory, or out of
 * the provider root) must make listFiles and readFile raise, never serve or silently skip it; kind getters refuse
 * it; listResources leaves it out. Each case adds its link, makes a NEW provider, and removes the link afterwards.
 */
export function filesystemCases(options: FilesystemConformanceOptions): ConformanceCase[] {
  return PLANS.map((plan) => ({
    id: `fs.symlink.${plan.label}`,
    title: `a link ${plan.link} escaping the skill is refused by listFiles/readFile${plan.referenceName ? ", getReference, and skipped by listResources" : ""}`,
    suite: "filesystem",
    run: async ({ makeProvider }) => {
      const outside = await mkdtemp(path.join(os.tmpdir(), "skillport-conformance-outside-"));
      const linkPath = path.join(options.root, id, ...plan.link.split("/"));
      try {
        await writeFile(path.join(outside, "secret.md"), "secret\n");
        await symlink(plan.target(options.root, outside), linkPath);
        const provider: SkillProvider = await makeProvider();
        await expectError(`listFiles with ${plan.link} linking outside the skill`, () => provider.listFiles(id), [ANY_SKILL_ERROR]);
        await expectError(`readFile(${JSON.stringify(plan.readThrough)}) through a link`, () => provider.readFile(id, plan.readThrough), [ANY_SKILL_ERROR]);
        if (plan.referenceName) {
          const name = plan.referenceName;
          await expectError(`getReference(${JSON.stringify(name)}) through a link`, () => provider.getReference(id, name), [RESOURCE_NOT_FOUND]);
          const listing = await provider.listResources(id);
          check(!listing.references.includes(name), `listResources().references includes the escaping link: ${describeValue(listing.references)}`);
        }
      } finally {
        await unlink(linkPath).catch(() => undefined);
        await rm(outside, { recursive: true, force: true });
      }
    },
  }));
}
