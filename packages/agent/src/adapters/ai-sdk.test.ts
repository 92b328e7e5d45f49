// Type test and behaviour of the AI SDK adapter against `ai` v5 (the lowest version the optional peer allows).
import { generateText, type ToolSet } from "ai";
import { describe, expect, expectTypeOf, it } from "vitest";
import { Skill } from "@skillport/core";
import { SkillBox } from "../index.js";
import { toAiSdkTools } from "./ai-sdk.js";

describe("toAiSdkTools", () => {
  it("returns an AI SDK ToolSet usable with generateText, whose execute goes through callTool", async () => {
    const box = new SkillBox();
    await box.registerSkill(Skill.builder().name("hi").description("Say hi.").skillContent("# Hi\n").build());
    const session = box.session("ai");
    const tools = toAiSdkTools(box.allTools(), session);
    expectTypeOf(tools).toEqualTypeOf<ToolSet>();
    expectTypeOf<Parameters<typeof generateText>[0]["tools"]>().toMatchTypeOf<ToolSet | undefined>();
    expect(Object.keys(tools)).toEqual(["load_skill_through_path", "search_skills"]);
    const load = tools.load_skill_through_path;
    const output = await load?.execute?.({ skillId: "hi_custom", path: "SKILL.md" }, { toolCallId: "1", messages: [] });
    expect(String(output)).toContain("Successfully loaded skill hi_custom.");
    expect(session.isActive("hi_custom")).toBe(true);
  });
});
