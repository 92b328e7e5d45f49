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
    label: "dangling",
    link: "references/gone.md",
    target: (_root, outside) => path.join(outside, "no-such-file.md"),
    readThrough: "references/gone.md",
    referenceName: "gone.md",
  },
  {
    label: "dir-to-sibling",
    link: "linked",
    target: (root) => path.join(root, CONFINEMENT_SIBLING_DIR),
    readThrough: `linked/${CONFINEMENT_SIBLING_FILE}`,
  },
];

/**
 * Filesystem-only cases, for providers over real folders (THE skill-directory link rule, docs/decisions/0121):
 * - a link leaving the skill (to a sibling folder, out of the provider root) or dangling: listFiles and readFile
 *   raise (never serve or silently skip it), the kind getter says not found, and listResources never lists it (it
 *   may raise, since the listing it derives from is refused);
 * - a link that stays inside the skill: served by every method — listed by listFiles with the target's size, read
 *   by readFile and the kind getter, listed by listResources.
 * Each case adds its link, makes a NEW provider, and removes the link afterwards.
 */
export function filesystemCases(options: FilesystemConformanceOptions): ConformanceCase[] {
  const refused = PLANS.map((plan): ConformanceCase => ({
    id: `fs.symlink.${plan.label}`,
    title: `a link ${plan.link} leaving the skill is refused by listFiles/readFile${plan.referenceName ? ", getReference and listResources" : ""}`,
    suite: "filesystem",
    run: async ({ makeProvider }) => {
      const outside = await mkdtemp(path.join(os.tmpdir(), "skillport-conformance-outside-"));
      const linkPath = path.join(options.root, id, ...plan.link.split("/"));
      try {
        await writeFile(path.join(outside, "secret.md"), "secret\n");
        await symlink(plan.target(options.root, outside), linkPath);
        const provider: SkillProvider = await makeProvider();
        await expectError(`listFiles with ${plan.link} leaving the skill`, () => provider.listFiles(id), [
          ANY_SKILL_ERROR,
        ]);
        await expectError(
          `readFile(${JSON.stringify(plan.readThrough)}) through a link`,
          () => provider.readFile(id, plan.readThrough),
          [ANY_SKILL_ERROR],
        );
        if (plan.referenceName) {
          const name = plan.referenceName;
          await expectError(
            `getReference(${JSON.stringify(name)}) through a link`,
            () => provider.getReference(id, name),
            [RESOURCE_NOT_FOUND],
          );
          const listing = await provider.listResources(id).catch(() => undefined);
          if (listing !== undefined) {
            check(
              !listing.references.includes(name),
              `listResources().references includes the link leaving the skill: ${describeValue(listing.references)}`,
            );
          }
        }
      } finally {
        await unlink(linkPath).catch(() => undefined);
        await rm(outside, { recursive: true, force: true });
      }
    },
  }));
  const inside: ConformanceCase = {
    id: "fs.symlink.inside-skill",
    title: "a link that stays inside the skill is served by listFiles, readFile, getReference and listResources",
    suite: "filesystem",
    run: async ({ makeProvider }) => {
      const linkPath = path.join(options.root, id, "references", "alias.md");
      try {
        await symlink("notes.md", linkPath);
        const provider: SkillProvider = await makeProvider();
        const expected = await provider.readFile(id, "references/notes.md");
        const files = await provider.listFiles(id);
        const listed = files.find((f) => f.path === "references/alias.md");
        check(
          listed !== undefined && listed.size === expected.byteLength,
          `listFiles lists the link with the target's size: ${describeValue(files)}`,
        );
        const read = await provider.readFile(id, "references/alias.md");
        check(Buffer.from(read).equals(Buffer.from(expected)), "readFile through the link returns the target's bytes");
        const viaGetter = await provider.getReference(id, "alias.md");
        check(
          Buffer.from(viaGetter).equals(Buffer.from(expected)),
          "getReference through the link returns the target's bytes",
        );
        const listing = await provider.listResources(id);
        check(
          listing.references.includes("alias.md"),
          `listResources().references lists the link: ${describeValue(listing.references)}`,
        );
      } finally {
        await unlink(linkPath).catch(() => undefined);
      }
    },
  };
  return [...refused, inside];
}
