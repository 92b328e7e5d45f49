import { bytesEqual, check, deepEqual, describeValue, expectError, fail, isSortedStrings } from "../check.js";
import { FIXTURE_RESOURCES, MISSING_RESOURCE_NAME, MISSING_SKILL_ID } from "../fixture.js";
import {
  DISCOVERY_NOT_SUPPORTED,
  encoder,
  GETTER,
  getKind,
  id,
  KINDS,
  LISTING_NOT_SUPPORTED,
  RESOURCE_NOT_FOUND,
  show,
  SKILL_NOT_FOUND,
  stringValues,
  TRAVERSAL_IDENTIFIERS,
} from "./shared.js";
import type { ConformanceCase, ConformanceOptions } from "./types.js";

/** The 48 cases of the reference suite (numbered as there). */
export function coreCases(options: ConformanceOptions): ConformanceCase[] {
  const listing = options.supportsListing ?? true;
  const discovery = options.supportsDiscovery ?? true;
  const cases: ConformanceCase[] = [];
  const add = (caseId: string, title: string, run: ConformanceCase["run"]) =>
    cases.push({ id: caseId, title, suite: "core", run });

  add("1.provider", "it is a provider (a name and every contract method)", async ({ provider }) => {
    check(typeof provider === "object" && provider !== null, "the factory did not return an object");
    check(
      typeof provider.name === "string" && provider.name.trim() !== "",
      `provider.name must be a non-blank string, got ${describeValue(provider.name)}`,
    );
    const methods = [
      "discover",
      "getMetadata",
      "getBody",
      "getReference",
      "getScript",
      "getAsset",
      "listResources",
      "listFiles",
      "readFile",
    ] as const;
    for (const method of methods) check(typeof provider[method] === "function", `provider.${method} is not a function`);
  });

  add("2.metadata", "metadata has name == id and a non-blank string description", async ({ provider }) => {
    const metadata = await provider.getMetadata(id);
    check(
      metadata !== null && typeof metadata === "object" && !Array.isArray(metadata),
      `getMetadata returned ${describeValue(metadata)}, not an object`,
    );
    check(metadata.name === id, `metadata.name is ${describeValue(metadata.name)}, expected ${show(id)}`);
    check(
      typeof metadata.description === "string" && metadata.description.trim() !== "",
      `metadata.description must be a non-blank string, got ${describeValue(metadata.description)}`,
    );
  });

  add("3.metadata-without-body", "no metadata value equals the body", async ({ provider }) => {
    const [metadata, body] = await Promise.all([provider.getMetadata(id), provider.getBody(id)]);
    const trimmed = body.trim();
    check(trimmed !== "", "the fixture body came back blank");
    const leak = stringValues(metadata).find((v) => v === body || v.trim() === trimmed);
    check(leak === undefined, "getMetadata returned the body as a metadata value (metadata must be frontmatter only)");
  });

  add("4.metadata-fresh", "mutating returned metadata does not change the next call", async ({ provider }) => {
    const first = await provider.getMetadata(id);
    const before = JSON.parse(JSON.stringify(first)) as unknown;
    first.name = "mutated";
    first.description = "mutated";
    first["x-conformance-added"] = true;
    const second = await provider.getMetadata(id);
    check(second !== first, "getMetadata returned the same object twice; it must be a fresh object per call");
    check(deepEqual(second, before), `metadata changed after mutating an earlier result: ${describeValue(second)}`);
  });

  add("5.repeatable", "repeated getBody/getMetadata agree", async ({ provider }) => {
    const body1 = await provider.getBody(id);
    const meta1 = await provider.getMetadata(id);
    const body2 = await provider.getBody(id);
    const meta2 = await provider.getMetadata(id);
    check(typeof body1 === "string", `getBody returned ${describeValue(body1)}, not a string`);
    check(body1 === body2, `getBody changed between calls: ${describeValue(body1)} then ${describeValue(body2)}`);
    check(
      deepEqual(meta1, meta2),
      `getMetadata changed between calls: ${describeValue(meta1)} then ${describeValue(meta2)}`,
    );
  });

  add("6.unknown-skill", "unknown skill → SkillNotFoundError from getMetadata and getBody", async ({ provider }) => {
    await expectError(`getMetadata(${show(MISSING_SKILL_ID)})`, () => provider.getMetadata(MISSING_SKILL_ID), [
      SKILL_NOT_FOUND,
    ]);
    await expectError(`getBody(${show(MISSING_SKILL_ID)})`, () => provider.getBody(MISSING_SKILL_ID), [
      SKILL_NOT_FOUND,
    ]);
  });

  for (const kind of KINDS) {
    const file = FIXTURE_RESOURCES[kind];
    add(`7.bytes.${kind}`, `${GETTER[kind]} returns the exact bytes of ${kind}/${file.name}`, async ({ provider }) => {
      const value: unknown = await getKind(provider, kind, id, file.name);
      check(
        value instanceof Uint8Array,
        `${GETTER[kind]} returned ${typeof value === "string" ? "a string" : describeValue(value)}, not a byte array`,
      );
      check(
        bytesEqual(value, encoder.encode(file.content)),
        `${GETTER[kind]} returned different bytes (${value.byteLength} bytes, expected ${encoder.encode(file.content).byteLength})`,
      );
    });
  }

  for (const kind of KINDS) {
    add(`8.unknown-resource.${kind}`, `unknown ${kind} name → ResourceNotFoundError`, async ({ provider }) => {
      await expectError(
        `${GETTER[kind]}(${show(id)}, ${show(MISSING_RESOURCE_NAME)})`,
        () => getKind(provider, kind, id, MISSING_RESOURCE_NAME),
        [RESOURCE_NOT_FOUND],
      );
    });
  }

  for (const kind of KINDS) {
    const file = FIXTURE_RESOURCES[kind];
    add(
      `9.resource-of-unknown-skill.${kind}`,
      `${kind} of an unknown skill → SkillNotFound or ResourceNotFound`,
      async ({ provider }) => {
        await expectError(
          `${GETTER[kind]}(${show(MISSING_SKILL_ID)}, ${show(file.name)})`,
          () => getKind(provider, kind, MISSING_SKILL_ID, file.name),
          [SKILL_NOT_FOUND, RESOURCE_NOT_FOUND],
        );
      },
    );
  }

  add(
    "10.listing",
    listing
      ? "listResources: three sorted keys holding the fixture files"
      : "listResources raises ResourceListingNotSupportedError",
    async ({ provider }) => {
      if (!listing) {
        await expectError("listResources (declared unsupported)", () => provider.listResources(id), [
          LISTING_NOT_SUPPORTED,
        ]);
        return;
      }
      const result = await provider.listResources(id);
      check(result !== null && typeof result === "object", `listResources returned ${describeValue(result)}`);
      const keys = Object.keys(result).sort();
      check(
        deepEqual(keys, ["assets", "references", "scripts"]),
        `listResources keys are ${describeValue(keys)}, expected exactly references, scripts, assets`,
      );
      for (const kind of KINDS) {
        const names: unknown = result[kind];
        check(Array.isArray(names), `listResources().${kind} is ${describeValue(names)}, not an array`);
        check(
          isSortedStrings(names),
          `listResources().${kind} is not a sorted list of strings: ${describeValue(names)}`,
        );
        check(
          names.includes(FIXTURE_RESOURCES[kind].name),
          `listResources().${kind} lacks ${show(FIXTURE_RESOURCES[kind].name)}: ${describeValue(names)}`,
        );
      }
    },
  );

  add(
    "11.listing-unknown-skill",
    listing
      ? "listResources of an unknown skill → SkillNotFoundError"
      : "listResources of an unknown skill raises (listing unsupported)",
    async ({ provider }) => {
      await expectError(
        `listResources(${show(MISSING_SKILL_ID)})`,
        () => provider.listResources(MISSING_SKILL_ID),
        listing ? [SKILL_NOT_FOUND] : [LISTING_NOT_SUPPORTED, SKILL_NOT_FOUND],
      );
    },
  );

  add(
    "12.discovery",
    discovery
      ? "discover() returns exactly [conformance-skill]"
      : "discover() raises DiscoveryNotSupportedError (never [])",
    async ({ provider }) => {
      if (!discovery) {
        await expectError("discover (declared unsupported)", () => provider.discover(), [DISCOVERY_NOT_SUPPORTED]);
        return;
      }
      const ids = await provider.discover();
      check(deepEqual(ids, [id]), `discover() returned ${describeValue(ids)}, expected ${describeValue([id])}`);
    },
  );

  add("13.discovered-readable", "every discovered id's metadata is readable", async ({ provider }) => {
    if (!discovery) return; // nothing is discovered; case 12 checks the refusal
    const ids = await provider.discover();
    check(Array.isArray(ids), `discover() returned ${describeValue(ids)}`);
    for (const skillId of ids) {
      try {
        await provider.getMetadata(skillId);
      } catch (error) {
        fail(`discover() listed ${show(skillId)} but getMetadata failed: ${(error as Error).message}`);
      }
    }
  });

  for (const [index, traversal] of TRAVERSAL_IDENTIFIERS.entries()) {
    add(`14.traversal-id.${index + 1}`, `skill id ${show(traversal)} → SkillNotFoundError`, async ({ provider }) => {
      await expectError(`getMetadata(${show(traversal)})`, () => provider.getMetadata(traversal), [SKILL_NOT_FOUND]);
      await expectError(`getBody(${show(traversal)})`, () => provider.getBody(traversal), [SKILL_NOT_FOUND]);
    });
  }

  for (const kind of KINDS) {
    for (const [index, traversal] of TRAVERSAL_IDENTIFIERS.entries()) {
      add(
        `15.traversal-name.${kind}.${index + 1}`,
        `${kind} name ${show(traversal)} → ResourceNotFoundError`,
        async ({ provider }) => {
          await expectError(
            `${GETTER[kind]}(${show(id)}, ${show(traversal)})`,
            () => getKind(provider, kind, id, traversal),
            [RESOURCE_NOT_FOUND],
          );
        },
      );
    }
  }

  add("16.concurrent-body", "20 concurrent getBody calls return one value", async ({ provider }) => {
    const bodies = await Promise.all(Array.from({ length: 20 }, () => provider.getBody(id)));
    const distinct = new Set(bodies);
    check(distinct.size === 1, `20 concurrent getBody calls returned ${distinct.size} different values`);
    check(bodies[0] === (await provider.getBody(id)), "concurrent getBody disagreed with a later sequential read");
  });

  return cases;
}
