// n registerSkill calls must not each re-read or rebuild the whole registry (that made them quadratic). Counted, not
// timed: the code skills' memory source is never asked to list itself, and the registry never builds its snapshot.
import { describe, expect, it, vi } from "vitest";
import { InMemorySkillRepository, Skill } from "@skillport/core";
import { SkillBox } from "./skill-box.js";

const whole = vi.hoisted(() => ({ builds: 0 }));
vi.mock("../../core/src/registry-snapshot.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../core/src/registry-snapshot.js")>();
  return {
    ...real,
    buildSnapshot: (...args: Parameters<typeof real.buildSnapshot>) => (whole.builds++, real.buildSnapshot(...args)),
  };
});

const skill = (i: number) =>
  Skill.builder().name(`skill-${i}`).description(`Skill number ${i}.`).skillContent(`# Skill ${i}\n`).build();

describe("registerSkill × n", () => {
  it("lists no source and builds no whole snapshot per registration; one read after sees all n", async () => {
    const discover = vi.spyOn(InMemorySkillRepository.prototype, "discover");
    const box = new SkillBox();
    await box.registerSkill(skill(0)); // the memory source is added (one full pass)
    expect(whole.builds).toBeGreaterThan(0); // the counter is wired to the registry's builder
    discover.mockClear();
    whole.builds = 0;
    const n = 200;
    for (let i = 1; i < n; i++) expect((await box.registerSkill(skill(i))).status).toBe("added");
    expect(box.listSkills()).toHaveLength(n);
    expect(discover).not.toHaveBeenCalled();
    expect(whole.builds).toBe(0);
    discover.mockRestore();
  });
});
