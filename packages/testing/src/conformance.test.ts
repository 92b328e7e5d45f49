import { describe, expect, it } from "vitest";
import {
  DiscoveryNotSupportedError,
  InMemorySkillRepository,
  ResourceListingNotSupportedError,
  ResourceNotFoundError,
  Skill,
  type Frontmatter,
  type SkillProvider,
} from "@skillport/core";
import {
  conformanceCases,
  describeConformance,
  runConformance,
  type ConformanceOptions,
  type ProviderFactory,
} from "./index.js";
import { conformanceFixtureSkill, fixtureSkillMd, FIXTURE_BODY } from "./fixture.js";

const healthy = (options: { maxFileBytes?: number } = {}) =>
  new InMemorySkillRepository({ skills: [conformanceFixtureSkill()], ...options });

/** A provider that delegates everything to a healthy memory repository, except what `overrides` replaces. */
function broken(overrides: (base: InMemorySkillRepository) => Partial<SkillProvider>): ProviderFactory {
  return () => {
    const base = healthy();
    const delegate: SkillProvider = {
      name: "broken",
      discover: () => base.discover(),
      getMetadata: (id) => base.getMetadata(id),
      getBody: (id) => base.getBody(id),
      getReference: (id, name) => base.getReference(id, name),
      getScript: (id, name) => base.getScript(id, name),
      getAsset: (id, name) => base.getAsset(id, name),
      listResources: (id) => base.listResources(id),
      listFiles: (id) => base.listFiles(id),
      readFile: (id, path) => base.readFile(id, path),
      getSkill: (id) => base.getSkill(id),
      getAllSkills: () => base.getAllSkills(),
    };
    return { ...delegate, ...overrides(base) };
  };
}

const traversalIds = [1, 2, 3, 4, 5, 6, 7];
const kinds = ["references", "scripts", "assets"] as const;

describe("the conformance kit", () => {
  it("has the 48 reference cases, plus 4 content-limit cases when asked", () => {
    const core = conformanceCases().filter((c) => c.suite === "core");
    expect(core).toHaveLength(48);
    const limited = conformanceCases({ contentLimit: { makeProvider: () => healthy({ maxFileBytes: 4 }) } }).filter(
      (c) => c.suite === "content-limit",
    );
    expect(limited.map((c) => c.id)).toEqual(["limit.skill-md", "limit.references", "limit.scripts", "limit.assets"]);
    const ids = conformanceCases({
      contentLimit: { makeProvider: () => healthy() },
      filesystem: { root: "/nowhere" },
    }).map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("the in-memory repository passes every case, content limits included", async () => {
    const report = await runConformance(() => healthy(), {
      contentLimit: { makeProvider: () => healthy({ maxFileBytes: 4 }) },
    });
    expect(report.failed).toEqual([]);
    expect(report.passed).toHaveLength(48 + 4 + 7 + 4);
  });

  it("the content-limit suite fails a provider that ignores its limit", async () => {
    const report = await runConformance(() => healthy(), { contentLimit: { makeProvider: () => healthy() } });
    expect(report.failed.map((f) => f.id)).toEqual([
      "limit.skill-md",
      "limit.references",
      "limit.scripts",
      "limit.assets",
    ]);
  });

  it("the fixture SKILL.md parses back to the fixture skill", async () => {
    const repo = healthy();
    expect(new TextDecoder().decode(await repo.readFile("conformance-skill", "SKILL.md"))).toBe(fixtureSkillMd());
    expect(await repo.getBody("conformance-skill")).toBe(FIXTURE_BODY);
  });
});

// The negative meta-tests: each deliberately broken provider MUST fail exactly the listed cases.
const brokenProviders: Array<{
  label: string;
  make: ProviderFactory;
  options?: ConformanceOptions;
  failing: string[];
}> = [
  {
    label: "{} metadata for unknown ids",
    make: broken((base) => ({ getMetadata: async (id) => (id === "conformance-skill" ? base.getMetadata(id) : {}) })),
    failing: ["6.unknown-skill", ...traversalIds.map((n) => `14.traversal-id.${n}`)],
  },
  {
    label: "resolving traversal with a naive path join",
    make: broken((base) => {
      // Reads whatever `<kind>/<name>` normalises to, in a tree that also holds host-like files.
      const host = new Map<string, string>([
        ["etc/passwd", "root:x:0:0"],
        ["windows/system32", "dll"],
      ]);
      const naive = async (kind: string, id: string, name: string) => {
        const parts: string[] = [];
        for (const seg of `${kind}/${name}`.split(/[\\/]/)) {
          if (seg === "..") parts.pop();
          else if (seg !== "" && seg !== ".") parts.push(seg);
        }
        const rel = parts.join("/");
        if (
          rel === "SKILL.md" ||
          rel.startsWith("references/") ||
          rel.startsWith("scripts/") ||
          rel.startsWith("assets/")
        )
          return base.readFile(id, rel);
        const hit = host.get(rel);
        if (hit === undefined) throw new ResourceNotFoundError(id, rel);
        return new TextEncoder().encode(hit);
      };
      return {
        getReference: (id, name) => naive("references", id, name),
        getScript: (id, name) => naive("scripts", id, name),
        getAsset: (id, name) => naive("assets", id, name),
      };
    }),
    failing: [
      ...kinds.flatMap((k) => [`15.traversal-name.${k}.1`, `15.traversal-name.${k}.5`]),
      "confine.references.skill-md",
      "confine.scripts.cross-kind",
    ],
  },
  {
    label: "metadata containing the body",
    make: broken((base) => ({
      getMetadata: async (id) => ({ ...(await base.getMetadata(id)), content: await base.getBody(id) }),
    })),
    failing: ["3.metadata-without-body"],
  },
  {
    label: "the same metadata object returned every call",
    make: broken((base) => {
      let cached: Frontmatter | undefined;
      return { getMetadata: async (id) => (cached ??= await base.getMetadata(id)) };
    }),
    failing: ["4.metadata-fresh"],
  },
  {
    label: "advertises listing, then raises",
    make: broken(() => ({
      listResources: async () => {
        throw new ResourceListingNotSupportedError("broken");
      },
    })),
    failing: ["10.listing", "11.listing-unknown-skill"],
  },
  {
    label: "script getter returning a string",
    make: broken((base) => ({
      getScript: async (id, name) => new TextDecoder().decode(await base.getScript(id, name)) as unknown as Uint8Array,
    })),
    failing: ["7.bytes.scripts"],
  },
  {
    label: "body empty on the second read",
    make: broken((base) => {
      let reads = 0;
      return { getBody: async (id) => (reads++ === 0 ? base.getBody(id) : "") };
    }),
    failing: ["5.repeatable", "16.concurrent-body"],
  },
  {
    label: "empty bytes for a missing asset",
    make: broken((base) => ({
      getAsset: async (id, name) => {
        try {
          return await base.getAsset(id, name);
        } catch {
          return new Uint8Array();
        }
      },
    })),
    failing: [
      "8.unknown-resource.assets",
      "9.resource-of-unknown-skill.assets",
      ...traversalIds.map((n) => `15.traversal-name.assets.${n}`),
      "confine.assets.sibling",
    ],
  },
  {
    label: "a description of spaces",
    make: broken((base) => ({ getMetadata: async (id) => ({ ...(await base.getMetadata(id)), description: "   " }) })),
    failing: ["2.metadata"],
  },
  {
    label: "listing returning empty lists for unknown ids",
    make: broken((base) => ({
      listResources: async (id) =>
        id === "conformance-skill" ? base.listResources(id) : { references: [], scripts: [], assets: [] },
    })),
    failing: ["11.listing-unknown-skill"],
  },
  {
    label: "advertises discovery, then raises",
    make: broken(() => ({
      discover: async () => {
        throw new DiscoveryNotSupportedError("broken");
      },
    })),
    failing: ["12.discovery", "13.discovered-readable"],
  },
  {
    label: "discover returning a phantom id",
    make: broken((base) => ({ discover: async () => [...(await base.discover()), "phantom-skill"] })),
    failing: ["12.discovery", "13.discovered-readable"],
  },
  {
    label: "discovery unsupported but returning []",
    make: broken(() => ({ discover: async () => [] })),
    options: { supportsDiscovery: false },
    failing: ["12.discovery"],
  },
  {
    label: "a whole-skill read that drops the resources",
    make: broken((base) => ({
      getSkill: async (id) => {
        const whole = await base.getSkill(id);
        return Skill.builder().name(whole.name).description(whole.description).skillContent(whole.body).build();
      },
    })),
    failing: ["files.whole-skill"],
  },
];

describe("negative meta-tests: the kit catches broken providers", () => {
  it("there are 14 of them", () => expect(brokenProviders).toHaveLength(14));

  it.each(brokenProviders)("$label", async ({ make, options, failing }) => {
    const report = await runConformance(make, options);
    expect(report.failed.map((f) => f.id).sort()).toEqual([...failing].sort());
    for (const failure of report.failed) expect(failure.error).not.toBe("");
  });

  it("a failure explains itself in one line", async () => {
    const report = await runConformance(brokenProviders[0]!.make);
    expect(report.failed[0]).toEqual({
      id: "6.unknown-skill",
      title: "unknown skill → SkillNotFoundError from getMetadata and getBody",
      error: 'getMetadata("no-such-skill-anywhere"): expected SkillNotFoundError, but it returned {}',
    });
  });
});

describe("capabilities declared unsupported", () => {
  const unsupported = broken(() => ({
    discover: async () => {
      throw new DiscoveryNotSupportedError("limited");
    },
    listResources: async () => {
      throw new ResourceListingNotSupportedError("limited");
    },
  }));

  it("a provider that truly lacks listing and discovery passes when it says so", async () => {
    const report = await runConformance(unsupported, { supportsDiscovery: false, supportsListing: false });
    expect(report.failed).toEqual([]);
  });
});

// The convenience wrapper, driven by vitest itself.
describeConformance(
  "InMemorySkillRepository",
  () => healthy(),
  { describe, it },
  { contentLimit: { makeProvider: () => healthy({ maxFileBytes: 4 }) } },
);
