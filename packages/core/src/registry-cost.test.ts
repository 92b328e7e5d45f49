// Registering skills one at a time through refresh({ source, ids }) must cost O(ids) each, not a rebuild of the whole
// snapshot (which made n registrations quadratic). Counted, not timed: the whole-snapshot builders are wrapped.
import { beforeEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { InMemorySkillRepository } from "./memory.js";
import { SkillRegistry } from "./registry.js";
import { Skill } from "./skill.js";

const whole = vi.hoisted(() => ({ builds: 0, copies: 0 }));
vi.mock("./registry-snapshot.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./registry-snapshot.js")>();
  return {
    ...real,
    buildSnapshot: (...args: Parameters<typeof real.buildSnapshot>) => (whole.builds++, real.buildSnapshot(...args)),
    copySnapshot: (...args: Parameters<typeof real.copySnapshot>) => (whole.copies++, real.copySnapshot(...args)),
  };
});

/** A memory source whose metadata read fails for chosen ids (a failure, not a missing skill). */
class Flaky extends InMemorySkillRepository {
  readonly broken = new Set<string>();
  override async getMetadata(id: string) {
    if (this.broken.has(id)) throw new Error(`${id} is broken`);
    return super.getMetadata(id);
  }
}

const skill = (name: string, description = `The ${name} skill.`) =>
  new Skill({ frontmatter: { name, description }, body: `\n# ${name}\n` });

beforeEach(() => {
  whole.builds = 0;
  whole.copies = 0;
});

describe("refresh({ source, ids }) costs O(ids), whatever the registry holds", () => {
  it("n registrations then one read: no whole-snapshot build or copy, no discover", async () => {
    const registry = new SkillRegistry();
    await registry.addProvider(new InMemorySkillRepository({ name: "given", skills: [skill("given-one")] }), {
      watch: false,
    });
    const mem = new InMemorySkillRepository({ name: "custom" });
    await registry.addProvider(mem, { watch: false });
    const discover = vi.spyOn(mem, "discover");
    whole.builds = 0;
    const n = 300;
    for (let i = 0; i < n; i++) {
      await mem.save([skill(`s-${i}`)]);
      await registry.refresh({ source: "custom", ids: [`s-${i}`] });
      expect(registry.has(`custom:s-${i}`)).toBe(true); // a read between registrations, as SkillBox makes
    }
    expect(registry.list()).toHaveLength(n + 1);
    expect(whole).toEqual({ builds: 0, copies: 0 });
    expect(discover).not.toHaveBeenCalled();
  });

  it("a snapshot the search index holds is copied once before the next patch, never edited under it", async () => {
    const mem = new InMemorySkillRepository({ name: "custom", skills: [skill("alpha")] });
    const registry = new SkillRegistry();
    await registry.addProvider(mem, { watch: false });
    const shadowedBefore = registry.shadowed;
    expect((await registry.search("alpha")).map((h) => h.id)).toEqual(["alpha"]);
    for (const name of ["beta", "gamma", "delta"]) {
      await mem.save([skill(name)]);
      await registry.refresh({ source: "custom", ids: [name] });
    }
    expect(whole.copies).toBe(1);
    expect((await registry.search("gamma")).map((h) => h.id)).toEqual(["gamma"]);
    expect(registry.shadowed).toBe(shadowedBefore); // nothing shadowed changed: the same array, never edited
  });
});

describe("a patch reaches the state a full refresh reads", () => {
  it("for any sequence of saves and deletes across sources (precedence, shadowing, failures)", async () => {
    const names = ["a", "b", "c", "d"];
    const seen = { failures: false, shadowed: false };
    const op = fc.record({
      source: fc.integer({ min: 0, max: 2 }),
      name: fc.constantFrom(...names),
      kind: fc.constantFrom("save", "delete", "bad"),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const repos = [0, 1, 2].map((i) => new Flaky({ name: `s${i}` }));
        const patched = new SkillRegistry();
        for (const repo of repos) await patched.addProvider(repo, { watch: false });
        for (const [step, { source, name, kind }] of ops.entries()) {
          const repo = repos[source] as Flaky;
          if (kind === "delete") await repo.delete(name);
          else await repo.save([skill(name, `step ${step}`)], { force: true });
          if (kind === "bad") repo.broken.add(name);
          else repo.broken.delete(name);
          await patched.refresh({ source: `s${source}`, ids: [name] });
        }
        const full = new SkillRegistry();
        for (const repo of repos) await full.addProvider(repo, { watch: false });
        const view = (r: SkillRegistry) => ({
          winners: r.list().map((e) => [e.qualifiedId, e.getMetadata()]),
          all: r.list({ includeShadowed: true }).map((e) => e.qualifiedId),
          shadowed: r.shadowed,
          failures: r.failures.map((f) => [f.source, f.id, f.message]),
        });
        expect(view(patched)).toEqual(view(full));
        seen.failures ||= full.failures.length > 0;
        seen.shadowed ||= full.shadowed.length > 0;
      }),
      { numRuns: 80 },
    );
    expect(seen).toEqual({ failures: true, shadowed: true }); // the runs did reach both
  });
});
