import { expectError } from "../check.js";
import { FIXTURE_RESOURCES } from "../fixture.js";
import { ANY_SKILL_ERROR, GETTER, getKind, id, KINDS } from "./shared.js";
import type { ConformanceCase } from "./types.js";

/** The opt-in content-limit suite (×4): every fixture file is over the provider's limit. */
export function contentLimitCases(): ConformanceCase[] {
  const cases: ConformanceCase[] = [
    {
      id: "limit.skill-md",
      title: "an oversized SKILL.md raises the base error (getMetadata and getBody)",
      suite: "content-limit",
      run: async ({ provider }) => {
        await expectError("getMetadata with SKILL.md over the limit", () => provider.getMetadata(id), [
          ANY_SKILL_ERROR,
        ]);
        await expectError("getBody with SKILL.md over the limit", () => provider.getBody(id), [ANY_SKILL_ERROR]);
      },
    },
  ];
  for (const kind of KINDS) {
    cases.push({
      id: `limit.${kind}`,
      title: `an oversized ${kind} file raises the base error`,
      suite: "content-limit",
      run: async ({ provider }) => {
        await expectError(
          `${GETTER[kind]} over the limit`,
          () => getKind(provider, kind, id, FIXTURE_RESOURCES[kind].name),
          [ANY_SKILL_ERROR],
        );
      },
    });
  }
  return cases;
}
