import type { ResourceKind } from "@skillport/core";
import { expectError } from "../check.js";
import { CONFINEMENT_SIBLING_DIR, CONFINEMENT_SIBLING_FILE, FIXTURE_RESOURCES } from "../fixture.js";
import { GETTER, getKind, id, INVALID_PATH, RESOURCE_NOT_FOUND, show } from "./shared.js";
import type { ConformanceCase, ConformanceOptions } from "./types.js";

/** Skillport's own: reads are confined to the skill (and a kind getter to its folder) even when the target exists. */
export function confinementCases(options: ConformanceOptions): ConformanceCase[] {
  const sibling = `../../${CONFINEMENT_SIBLING_DIR}/${CONFINEMENT_SIBLING_FILE}`;
  const attempts: Array<[string, ResourceKind, string]> = [
    ["sibling", "references", sibling],
    ["skill-md", "references", "../SKILL.md"],
    ["cross-kind", "scripts", `../references/${FIXTURE_RESOURCES.references.name}`],
    ["sibling", "assets", sibling],
  ];
  const cases: ConformanceCase[] = attempts.map(([label, kind, name]) => ({
    id: `confine.${kind}.${label}`,
    title: `${GETTER[kind]}(${show(name)}) is refused with ResourceNotFoundError`,
    suite: "confinement",
    run: async ({ provider }) => {
      await expectError(`${GETTER[kind]}(${show(id)}, ${show(name)})`, () => getKind(provider, kind, id, name), [
        RESOURCE_NOT_FOUND,
      ]);
    },
  }));
  if (options.supportsFileAccess ?? true) {
    for (const [label, path] of [
      ["sibling", `../${CONFINEMENT_SIBLING_DIR}/${CONFINEMENT_SIBLING_FILE}`],
      ["provider-root", "../"],
      ["absolute", "/etc/passwd"],
    ] as const) {
      cases.push({
        id: `confine.read-file.${label}`,
        title: `readFile(${show(path)}) is refused (ResourceNotFoundError or InvalidPathError)`,
        suite: "confinement",
        run: async ({ provider }) => {
          await expectError(`readFile(${show(id)}, ${show(path)})`, () => provider.readFile(id, path), [
            RESOURCE_NOT_FOUND,
            INVALID_PATH,
          ]);
        },
      });
    }
  }
  return cases;
}
