import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SkillRegistry, type RegistryChange, type SearchDocumentCache, type Shadowing } from "./registry.js";
import type { AnalysedSkill } from "./search/index.js";
import { InMemorySkillRepository } from "./memory.js";
import { Skill } from "./skill.js";
import { toSkillProvider } from "./source.js";
import { ProviderUnavailableError, SkillNotFoundError, SkillValidationError } from "./errors.js";
import type { Frontmatter, SkillProvider } from "./types.js";

const skill = (name: string, description = `The ${name} skill.`, extra: Frontmatter = {}) =>
  new Skill({ frontmatter: { name, description, ...extra }, body: `\n# ${name} body\n` });

const repo = (name: string, ...skills: Skill[]) => new InMemorySkillRepository({ name, skills });

/** A source serving frontmatter as stored, blank fields included (a Skill object refuses those, as AgentScope's does). */
const rawSource = (name: string, stored: Record<string, Frontmatter>): SkillProvider =>
  toSkillProvider({
    name,
    discover: async () => Object.keys(stored).sort(),
    getMetadata: async (id) => {
      const frontmatter = stored[id];
      if (frontmatter === undefined) throw new SkillNotFoundError(id);
      return structuredClone(frontmatter);
    },
    getBody: async (id) => `# ${id}\n`,
    listFiles: async () => [{ path: "SKILL.md", size: 1 }],
    readFile: async () => new Uint8Array(),
  });

/** Counts calls, so tests can prove what the registry does NOT read. */
function counting(provider: InMemorySkillRepository) {
  const calls = { getMetadata: 0, getBody: 0, discover: 0 };
  const wrapped: SkillProvider = Object.create(provider) as SkillProvider;
  Object.assign(wrapped, {
    name: provider.name,
    discover: () => (calls.discover++, provider.discover()),
    getMetadata: (id: string) => (calls.getMetadata++, provider.getMetadata(id)),
    getBody: (id: string) => (calls.getBody++, provider.getBody(id)),
    watch: provider.watch.bind(provider),
    getLocation: provider.getLocation.bind(provider),
  });
  return { wrapped, calls };
}

describe("SkillRegistry", () => {
  it("registerAll lists sorted entries with qualified ids and lazy content", async () => {
    const registry = new SkillRegistry();
    const report = await registry.registerAll(repo("project", skill("zeta"), skill("alpha")));
    expect(report).toEqual({ registered: ["project:alpha", "project:zeta"], failed: [], shadowed: [] });
    expect(registry.list().map((e) => [e.id, e.qualifiedId, e.source])).toEqual([
      ["alpha", "project:alpha", "project"],
      ["zeta", "project:zeta", "project"],
    ]);
    const alpha = registry.get("alpha");
    expect(await alpha.getBody()).toBe("\n# alpha body\n");
    expect(registry.get("project:alpha")).toBe(alpha);
    expect(() => registry.get("nope")).toThrow(SkillNotFoundError);
    // The seed's spelling: registry.get_skill(id), then await skill.get_metadata().
    expect(registry.getSkill("alpha")).toBe(alpha);
    expect(await registry.getSkill("alpha").getMetadata()).toEqual({ name: "alpha", description: "The alpha skill." });
    expect(() => registry.getSkill("nope")).toThrow(SkillNotFoundError);
  });

  it("earlier providers win; every shadowing is reported, as data and as an event; qualified ids reach the hidden one", async () => {
    const registry = new SkillRegistry();
    const events: Shadowing[] = [];
    registry.on("shadow", (s) => events.push(s));
    await registry.addProvider(repo("project", skill("pdf", "Project pdf.")));
    const report = await registry.addProvider(repo("user", skill("pdf", "User pdf."), skill("git")));
    const expected = [{ id: "pdf", winner: "project:pdf", shadowed: "user:pdf" }];
    expect(report.shadowed).toEqual(expected);
    expect(registry.shadowed).toEqual(expected);
    expect(events).toEqual(expected);
    expect(registry.get("pdf").getMetadata().description).toBe("Project pdf.");
    expect(registry.get("user:pdf").getMetadata().description).toBe("User pdf.");
    expect(registry.list().map((e) => e.qualifiedId)).toEqual(["user:git", "project:pdf"]);
    expect(registry.list({ includeShadowed: true }).map((e) => e.qualifiedId)).toEqual([
      "project:pdf",
      "user:git",
      "user:pdf",
    ]);
    expect(registry.sources).toEqual(["project", "user"]);
  });

  it("skills that fail validation are reported, never thrown, and never hide the others", async () => {
    const registry = new SkillRegistry();
    const failures: string[] = [];
    registry.on("failure", (f) => failures.push(`${f.source}/${f.id}`));
    const report = await registry.registerAll(
      rawSource("p", {
        good: { name: "good", description: "Good." },
        "no-description": { name: "no-description", description: "" },
        "wrong-name": { name: "wrong-name", description: "d" },
      }),
    );
    expect(report.registered).toEqual(["p:good", "p:wrong-name"]);
    expect(report.failed.map((f) => [f.id, f.diagnostics.map((d) => d.code)])).toEqual([
      ["no-description", ["description-empty"]],
    ]);
    expect(failures).toEqual(["p/no-description"]);
  });

  it("a name that differs from the id is a warning on the entry", async () => {
    const provider = repo("p", skill("real-name"));
    // Serve the skill under another id to mimic a directory whose name differs from the frontmatter name.
    const renamed: SkillProvider = {
      ...bind(provider),
      discover: async () => ["dir-name"],
      getMetadata: () => provider.getMetadata("real-name"),
    };
    const registry = new SkillRegistry();
    await registry.registerAll(renamed, { source: "renamed" });
    expect(registry.get("dir-name").diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["name-dir-mismatch", "warning"],
    ]);
  });

  it("register and registerBatch validate all-or-nothing and reject duplicates", async () => {
    const a = rawSource("a", {
      one: { name: "one", description: "One." },
      two: { name: "two", description: "Two." },
      bad: { name: "bad", description: " " },
    });
    const registry = new SkillRegistry();
    const entry = await registry.register("one", a);
    expect(entry.qualifiedId).toBe("a:one");

    const dupe = await registry
      .registerBatch([
        { id: "two", provider: a },
        { id: "two", provider: a },
      ])
      .catch((e: unknown) => e);
    expect(dupe).toBeInstanceOf(SkillValidationError);
    expect((dupe as SkillValidationError).diagnostics.map((d) => d.code)).toEqual(["id-duplicate"]);

    const mixed = await registry
      .registerBatch([
        { id: "two", provider: a },
        { id: "bad", provider: a },
        { id: "ghost", provider: a },
      ])
      .catch((e: unknown) => e);
    expect(mixed).toBeInstanceOf(SkillValidationError);
    expect((mixed as SkillValidationError).diagnostics.map((d) => d.code)).toEqual([
      "description-empty",
      "registry-load-failed",
    ]);
    expect(registry.list().map((e) => e.id)).toEqual(["one"]); // nothing from the failed batch

    await expect(registry.register("one", a)).rejects.toThrow(/already registered/);
    const ok = await registry.registerBatch([{ id: "two", provider: a }]);
    expect(ok.registered).toEqual(["a:one", "a:two"]);
  });

  it("refuses a second provider under a source name already in use", async () => {
    const registry = new SkillRegistry();
    await registry.addProvider(repo("memory", skill("a")));
    await expect(registry.addProvider(repo("memory", skill("b")))).rejects.toThrow(/already used by another provider/);
    await registry.addProvider(repo("memory", skill("b")), { source: "memory-2" });
    expect(registry.list().map((e) => e.qualifiedId)).toEqual(["memory:a", "memory-2:b"]);
  });

  it("listing reads metadata once per refresh and never reads bodies", async () => {
    const { wrapped, calls } = counting(repo("p", skill("a"), skill("b")));
    const registry = new SkillRegistry();
    await registry.addProvider(wrapped);
    registry.list();
    registry.get("a").getMetadata();
    registry.get("a").getMetadata();
    await registry.catalog();
    expect(calls).toEqual({ discover: 1, getMetadata: 2, getBody: 0 });
    const meta = registry.get("a").getMetadata();
    meta.name = "changed";
    expect(registry.get("a").getMetadata().name).toBe("a");
  });

  it("provider changes trigger a refresh and a change event", async () => {
    const provider = repo("p", skill("a"));
    const registry = new SkillRegistry();
    await registry.addProvider(provider);
    const changes: RegistryChange[] = [];
    const done = new Promise<void>((resolve) => {
      registry.on("change", (c) => {
        changes.push(c);
        if (changes.length === 2) resolve();
      });
    });
    await provider.save([skill("b")]);
    await registry.refresh(); // lets the watch-triggered refresh settle
    await provider.save([skill("a", "Updated.")], { force: true });
    await registry.refresh();
    await done;
    expect(changes).toEqual([
      { added: ["b"], removed: [], updated: [] },
      { added: [], removed: [], updated: ["a"] },
    ]);
    // Same metadata, new body: the provider reported "a", so the registry reports it too.
    await provider.save([new Skill({ frontmatter: { name: "a", description: "Updated." }, body: "\nA new body.\n" })], {
      force: true,
    });
    await registry.refresh();
    expect(changes[2]).toEqual({ added: [], removed: [], updated: ["a"] });
    expect(await registry.get("a").getBody()).toBe("\nA new body.\n");
    // An explicit refresh with nothing reported and nothing changed emits nothing.
    await registry.refresh();
    expect(changes).toHaveLength(3);
    registry.close();
    await provider.delete("b");
    await registry.refresh(); // explicit refresh still works after close
    expect(registry.list().map((e) => e.id)).toEqual(["a"]);
  });

  it("concurrent refreshes coalesce: one running pass plus at most one follow-up", async () => {
    const { wrapped, calls } = counting(repo("p", skill("a")));
    const registry = new SkillRegistry();
    await registry.addProvider(wrapped, { watch: false });
    calls.discover = 0;
    const all = Array.from({ length: 10 }, () => registry.refresh());
    expect(new Set(all.slice(1)).size).toBe(1); // every call during the pass shares one follow-up promise
    await Promise.all(all);
    expect(calls.discover).toBe(2);
  });

  it("readers never see a half-built snapshot", async () => {
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const bEntered = new Promise<void>((r) => (entered = r));
    const base = repo("slow", skill("a"), skill("b"));
    const slow: SkillProvider = {
      ...bind(base),
      getMetadata: async (id) => {
        if (id === "b") {
          entered();
          await gate;
        }
        return base.getMetadata(id);
      },
    };
    const registry = new SkillRegistry({ concurrency: 1 });
    const adding = registry.addProvider(slow, { source: "slow" });
    await bEntered; // "a" has been read; "b" is still pending
    expect(registry.list()).toEqual([]); // "a" is loaded but not visible until the swap
    release();
    await adding;
    expect(registry.list().map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("a provider outage keeps the skills it served before and reports the failure", async () => {
    const base = repo("flaky", skill("a"));
    let down = false;
    const flaky: SkillProvider = {
      ...bind(base),
      discover: async () => {
        if (down) throw new ProviderUnavailableError("flaky is down", { retryAfter: 5 });
        return base.discover();
      },
    };
    const registry = new SkillRegistry();
    await registry.addProvider(flaky, { source: "flaky" });
    down = true;
    await registry.refresh();
    expect(registry.list().map((e) => e.id)).toEqual(["a"]);
    expect(registry.failures).toEqual([
      { source: "flaky", id: undefined, message: "discovery failed: flaky is down", diagnostics: [] },
    ]);
  });

  it("catalog renders winners in precedence order, hidden skills left out", async () => {
    const registry = new SkillRegistry();
    await registry.addProvider(repo("project", skill("zz-project")));
    await registry.addProvider(
      repo("user", skill("aa-user"), skill("secret", "Hidden.", { "disable-model-invocation": true })),
    );
    expect(await registry.catalog({ layout: "indented" })).toBe(
      [
        "<available_skills>",
        "  <skill>",
        "    <name>zz-project</name>",
        "    <description>The zz-project skill.</description>",
        "  </skill>",
        "  <skill>",
        "    <name>aa-user</name>",
        "    <description>The aa-user skill.</description>",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });
});

function bind(provider: InMemorySkillRepository): SkillProvider {
  return {
    name: provider.name,
    discover: () => provider.discover(),
    getMetadata: (id) => provider.getMetadata(id),
    getBody: (id) => provider.getBody(id),
    getReference: (id, n) => provider.getReference(id, n),
    getScript: (id, n) => provider.getScript(id, n),
    getAsset: (id, n) => provider.getAsset(id, n),
    listResources: (id) => provider.listResources(id),
    listFiles: (id) => provider.listFiles(id),
    readFile: (id, p) => provider.readFile(id, p),
    getSkill: (id) => provider.getSkill(id),
    getAllSkills: () => provider.getAllSkills(),
  };
}

describe("SkillRegistry.search", () => {
  it("searches the winning skills and follows refreshes", async () => {
    const provider = repo("p", skill("pdf-tools", "Extract text from PDF files."), skill("git", "Commit and branch."));
    const registry = new SkillRegistry();
    await registry.addProvider(provider);
    expect((await registry.search("pdf text")).map((h) => h.id)).toEqual(["pdf-tools"]);
    await provider.save([skill("pdf-forms", "Fill PDF forms.")]);
    await registry.refresh();
    expect((await registry.search("pdf forms")).map((h) => h.id)).toEqual(["pdf-forms", "pdf-tools"]);
    expect(await registry.search("kubernetes")).toEqual([]);
  });

  it("indexes the start of each body, reads each body once, and re-reads after a refresh of an unwatched source", async () => {
    const withBody = (body: string) =>
      new Skill({ frontmatter: { name: "certs", description: "Operations helper." }, body });
    const provider = repo(
      "p",
      withBody("# Certs\n\n## Rotating TLS certificates\n"),
      skill("git", "Commit and branch."),
    );
    const { wrapped, calls } = counting(provider);
    const registry = new SkillRegistry();
    await registry.addProvider(wrapped, { watch: false });
    expect((await registry.search("rotate tls certificates"))[0]).toMatchObject({ id: "certs", matched: ["headings"] });
    await registry.search("commit");
    expect(calls.getBody).toBe(2);
    await provider.save([withBody("# Certs\n\n## Renewing DNS records\n")], { force: true });
    await registry.refresh();
    expect((await registry.search("dns records"))[0]?.id).toBe("certs");
    expect(await registry.search("rotate tls certificates", { minConfidence: 0.3 })).toEqual([]);
  });

  it("hides skills marked disable-model-invocation unless includeHidden", async () => {
    const hidden = skill("deploy-prod", "Deploy to production.", { "disable-model-invocation": true });
    const registry = new SkillRegistry();
    await registry.addProvider(repo("p", hidden, skill("deploy-docs", "Deploy the documentation site.")));
    expect((await registry.search("deploy production")).map((h) => h.id)).toEqual(["deploy-docs"]);
    expect((await registry.search("deploy production", { includeHidden: true })).map((h) => h.id)).toEqual([
      "deploy-prod",
      "deploy-docs",
    ]);
  });

  it("asks a SearchDocumentCache before reading a body, and fills it", async () => {
    const stored = new Map<string, AnalysedSkill>();
    const cache: SearchDocumentCache = {
      get: (e) => stored.get(e.qualifiedId),
      set: (e, doc) => void stored.set(e.qualifiedId, doc),
    };
    const provider = repo("p", skill("pdf-tools", "Extract text from PDF files."));
    const first = new SkillRegistry({ search: { cache } });
    await first.addProvider(provider);
    await first.search("pdf");
    expect([...stored.keys()]).toEqual(["p:pdf-tools"]);
    const { wrapped, calls } = counting(provider);
    const second = new SkillRegistry({ search: { cache } });
    await second.addProvider(wrapped);
    expect((await second.search("pdf text"))[0]?.id).toBe("pdf-tools");
    expect(calls.getBody).toBe(0);
  });
});

describe("precedence property", () => {
  it("the earliest source holding an id wins; every other copy is reported shadowed", async () => {
    const names = ["a", "b", "c", "d", "e"];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.subarray(names), { minLength: 1, maxLength: 4 }), async (layout) => {
        const registry = new SkillRegistry();
        for (const [i, ids] of layout.entries())
          await registry.addProvider(repo(`s${i}`, ...ids.map((id) => skill(id))), { watch: false });
        for (const id of new Set(layout.flat())) {
          const first = layout.findIndex((ids) => ids.includes(id));
          expect(registry.get(id).qualifiedId).toBe(`s${first}:${id}`);
        }
        expect(registry.shadowed.length).toBe(layout.flat().length - new Set(layout.flat()).size);
        expect(registry.list({ includeShadowed: true }).length).toBe(layout.flat().length);
      }),
      { numRuns: 60 },
    );
  });
});

describe("refresh({ source, ids }): one source's ids read again, nothing else", () => {
  it("adds, updates and removes just those ids; other skills are not read; the change event names them", async () => {
    const other = new InMemorySkillRepository({ name: "other", skills: [skill("keep")] });
    let otherReads = 0;
    const counting: SkillProvider = toSkillProvider({
      name: "other",
      discover: () => other.discover(),
      getMetadata: (id) => (otherReads++, other.getMetadata(id)),
      getBody: (id) => other.getBody(id),
      listFiles: (id) => other.listFiles(id),
      readFile: (id, p) => other.readFile(id, p),
    });
    const mem = new InMemorySkillRepository({ name: "mem", skills: [skill("first")] });
    const registry = new SkillRegistry();
    await registry.addProvider(counting, { watch: false });
    await registry.addProvider(mem, { watch: false });
    const changes: RegistryChange[] = [];
    registry.on("change", (c) => changes.push(c));
    const before = otherReads;
    await mem.save([skill("second")]);
    await registry.refresh({ source: "mem", ids: ["second"] });
    expect(registry.list().map((e) => e.qualifiedId)).toEqual(["mem:first", "other:keep", "mem:second"]);
    await mem.save([skill("second", "Changed.")], { force: true });
    await registry.refresh({ source: "mem", ids: ["second"] });
    expect(registry.get("second").getMetadata().description).toBe("Changed.");
    await mem.delete("first");
    await registry.refresh({ source: "mem", ids: ["first"] });
    expect(registry.has("first")).toBe(false);
    expect(otherReads).toBe(before); // the other source was never read again
    expect(changes).toEqual([
      { added: ["second"], removed: [], updated: [] },
      { added: [], removed: [], updated: ["second"] },
      { added: [], removed: ["first"], updated: [] },
    ]);
  });
});
