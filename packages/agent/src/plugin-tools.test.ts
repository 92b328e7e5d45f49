// FastGPT plugin tools (a real built plugin in a real PluginHost) as neutral tools bound to a skill's group.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Skill } from "@skillport/core";
import { makeTempDir, removeDir } from "@skillport/testing";
import { PluginHost } from "@skillport/plugin-host";
import { pluginTools, resultText, SkillBox } from "./index.js";

const SOURCE = `
import { createToolHandler, defineTool } from "@skillport/plugin";
import { z } from "zod";
export default defineTool({
  manifest: { pluginId: "shout", version: "1.0.0", name: { en: "Shout", "zh-CN": "Shout" }, description: { en: "Upper-cases text", "zh-CN": "x" } },
  handler: createToolHandler({
    inputSchema: z.object({ text: z.string().min(1) }),
    outputSchema: z.object({ text: z.string() }),
    handler: async ({ text }) => ({ text: text.toUpperCase() }),
  }),
});
`;

let root: string;
let host: PluginHost;
beforeAll(async () => {
  root = await makeTempDir("skillport-agent-plugin-");
  const dist = path.join(root, "dist");
  await mkdir(dist, { recursive: true });
  const schema = (properties: object, required: string[]) => ({ type: "object", properties, required });
  await writeFile(path.join(dist, "index.js"), SOURCE);
  await writeFile(path.join(dist, "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(
    path.join(dist, "manifest.json"),
    JSON.stringify({
      pluginId: "shout",
      version: "1.0.0",
      name: { en: "Shout", "zh-CN": "Shout" },
      description: { en: "Upper-cases text", "zh-CN": "x" },
      type: "tool",
      permission: [],
      icon: "logo.svg",
      toolDescription: "Upper-cases text",
      inputSchema: schema({ text: { type: "string" } }, ["text"]),
      outputSchema: schema({ text: { type: "string" } }, ["text"]),
    }),
  );
  host = await PluginHost.load(dist, { maxHeapMb: 64 });
}, 60_000);
afterAll(async () => {
  await host?.close();
  await removeDir(root);
});

describe("pluginTools", () => {
  it("wraps each plugin tool; bound to a skill it appears when the skill loads; bad input is an error result", async () => {
    const [shout] = pluginTools(host);
    expect(shout?.name).toBe("shout");
    expect(shout?.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: ["text"],
    });
    const box = new SkillBox();
    await box
      .registration()
      .skill(Skill.builder().name("loud").description("Shout things.").skillContent("# Loud\n").build())
      .tool(shout!)
      .apply();
    expect(box.tools().map((t) => t.name)).toEqual(["load_skill_through_path"]);
    await box.callTool("load_skill_through_path", { skillId: "loud_custom", path: "SKILL.md" });
    const ok = await box.callTool("shout", { text: "hi" });
    expect([resultText(ok), ok.isError]).toEqual(['{"text":"HI"}', false]);
    const bad = await box.callTool("shout", { text: "" });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/^Error: shout: /);
  }, 60_000);
});
