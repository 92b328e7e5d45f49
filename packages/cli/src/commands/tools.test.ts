// `tools`: the tool definitions a model gets for a set of roots, in each API's shape; the skill ids are the roots'.
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

interface NeutralTool {
  name: string;
  inputSchema: { properties: { skillId: { enum: string[] } } };
}

describe("skillport tools", () => {
  it("json: the load tool offers exactly the skills of the roots; a skill that fails to load is not offered", async () => {
    const dir = await tree({
      "skills/alpha/SKILL.md": skillMd("alpha"),
      "skills/beta/SKILL.md": skillMd("beta"),
      "skills/broken/SKILL.md": "no frontmatter\n",
    });
    const run = await runInProcess(["tools", "skills", "--format", "json"], dir);
    expect(run.code).toBe(1); // the broken skill is a problem found
    const tools = JSON.parse(run.stdout) as NeutralTool[];
    const load = tools.find((t) => t.name === "load_skill_through_path");
    expect(load?.inputSchema.properties.skillId.enum.map((id) => id.split("_fs:")[0]).sort()).toEqual([
      "alpha",
      "beta",
    ]);
    expect(run.stderr).toMatch(/broken/);
  });

  it("each API's shape: OpenAI wraps a function, Anthropic has input_schema, MCP a tools list", async () => {
    const dir = await tree({ "skills/alpha/SKILL.md": skillMd("alpha") });
    const openai = JSON.parse((await runInProcess(["tools", "skills"], dir)).stdout) as Array<{
      type: string;
      function: { name: string };
    }>;
    expect(openai[0]).toMatchObject({ type: "function", function: { name: "load_skill_through_path" } });
    const anthropic = JSON.parse(
      (await runInProcess(["tools", "skills", "--format", "anthropic"], dir)).stdout,
    ) as Array<{ name: string; input_schema: object }>;
    expect(anthropic[0]?.name).toBe("load_skill_through_path");
    expect(anthropic[0]?.input_schema).toMatchObject({ type: "object" });
    const mcp = JSON.parse((await runInProcess(["tools", "skills", "--format", "mcp"], dir)).stdout) as {
      tools: Array<{ name: string; inputSchema: object }>;
    };
    expect(mcp.tools.map((t) => t.name)).toContain("load_skill_through_path");
  });

  it("--all adds the tools that appear only after a skill is loaded", async () => {
    const dir = await tree({ "skills/alpha/SKILL.md": skillMd("alpha") });
    const names = async (args: string[]) =>
      (
        JSON.parse((await runInProcess(["tools", "skills", "--format", "json", ...args], dir)).stdout) as NeutralTool[]
      ).map((t) => t.name);
    const before = await names([]);
    const all = await names(["--all"]);
    expect(all.length).toBeGreaterThanOrEqual(before.length);
    expect(all).toEqual(expect.arrayContaining(before));
  });
});
