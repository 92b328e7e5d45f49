import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemorySkillRepository, Skill, SkillRegistry, type SkillSource } from "@skillport/core";
import { LocalFileSystemSkillProvider } from "@skillport/fs";
import { tempTree, type TempTree } from "@skillport/testing";
import { z } from "zod";
import { defineTool, resultText, SkillBox, SkillBoxSession, skillDirName, skillIdOf, type Tool } from "./index.js";

const skill = (
  name: string,
  body = `# ${name}\n`,
  extra: Record<string, string | Uint8Array> = {},
  source?: string,
) => {
  const b = Skill.builder()
    .name(name)
    .description(`Does ${name} things. Use when the user asks for ${name}.`)
    .skillContent(body);
  for (const [p, c] of Object.entries(extra)) b.addResource(p, c);
  if (source) b.source(source);
  return b.build();
};

const echo = (name: string): Tool =>
  defineTool({
    name,
    description: `echo ${name}`,
    input: z.object({ text: z.string() }),
    handler: ({ text }) => `${name}:${text}`,
  });
const text = async (p: Promise<{ content: unknown[]; isError: boolean }>) => {
  const r = (await p) as Parameters<typeof resultText>[0];
  return { text: resultText(r), isError: r.isError };
};
const load = (box: SkillBox | ReturnType<SkillBox["session"]>, skillId: string, path: string) =>
  text(box.callTool("load_skill_through_path", { skillId, path }));

describe("tools are validated before they run", () => {
  it.each([
    [{}, "missing required argument 'text'"],
    [{ text: 3 }, "invalid argument 'text': expected string, received number"],
    [null, "missing required argument 'text'"],
  ])("%j → an error result naming the field", async (args, message) => {
    const result = await echo("say").execute(args, { sessionId: "s" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain(message);
  });

  it("a handler that throws becomes an error result", async () => {
    const boom = defineTool({
      name: "boom",
      description: "",
      input: z.object({}),
      handler: () => {
        throw new Error("kaput");
      },
    });
    expect(await text(boom.execute({}, { sessionId: "s" }))).toEqual({
      text: "Error: boom failed: kaput",
      isError: true,
    });
  });

  it("schemas are JSON Schema 2020-12 from zod", () => {
    expect(echo("say").inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });
});

describe("SkillBox registration, versions and ids", () => {
  it("ids are <name>_<source>; same digest is a no-op, a new digest a new version kept until cleared", async () => {
    const box = new SkillBox();
    expect(await box.registerSkill(skill("data_analysis"))).toEqual({
      skillId: "data_analysis_custom",
      status: "added",
      version: 1,
    });
    expect(await box.registerSkill(skill("data_analysis"))).toEqual({
      skillId: "data_analysis_custom",
      status: "unchanged",
      version: 1,
    });
    expect(await box.registerSkill(skill("data_analysis", "# v2\n"))).toEqual({
      skillId: "data_analysis_custom",
      status: "updated",
      version: 2,
    });
    expect(box.getSkillVersions("data_analysis_custom").map((v) => v.version)).toEqual([1, 2]);
    expect(box.getSkill("data_analysis_custom")?.version).toBe(2);
    expect(box.clearSkillOldVersions()).toBe(1);
    expect(box.getSkillVersions("data_analysis_custom").map((v) => v.version)).toEqual([2]);
  });

  it("re-registration with new content resets activation in every session", async () => {
    const box = new SkillBox();
    await box.registerSkill(skill("a"));
    await load(box.session("u1"), "a_custom", "SKILL.md");
    expect(box.session("u1").isActive("a_custom")).toBe(true);
    await box.registerSkill(skill("a")); // same digest: stays active
    expect(box.session("u1").isActive("a_custom")).toBe(true);
    await box.registerSkill(skill("a", "# changed\n"));
    expect(box.session("u1").isActive("a_custom")).toBe(false);
  });

  it.each([
    ["git-owner/repo@main", "x_git-owner_repo_main-"],
    ["nacos:ns", "x_nacos_ns-"],
    ["plain", "x_plain"],
  ])("an id from source %j becomes one safe directory name", (source, prefix) => {
    const id = skillIdOf("x", source);
    const dir = skillDirName(id);
    expect(dir.startsWith(prefix)).toBe(true);
    expect(dir).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(skillDirName("x_git-owner_repo_main")).not.toBe(skillDirName("x_git-owner/repo_main")); // no collisions
  });

  it("reads no body until a skill is loaded (progressive disclosure through any source)", async () => {
    const repo = new InMemorySkillRepository({ skills: [skill("lazy-one"), skill("lazy-two")] });
    const reads: string[] = [];
    const counting: SkillSource = {
      name: "counting",
      discover: () => repo.discover(),
      getMetadata: (id) => repo.getMetadata(id),
      getBody: (id) => (reads.push(`body:${id}`), repo.getBody(id)),
      listFiles: (id) => (reads.push(`list:${id}`), repo.listFiles(id)),
      readFile: (id, p) => (reads.push(`read:${id}/${p}`), repo.readFile(id, p)),
    };
    const box = await SkillBox.create({ sources: [counting] });
    expect(box.listSkills().map((s) => s.id)).toEqual(["lazy-one_counting", "lazy-two_counting"]);
    box.getSkillPrompt();
    box.tools();
    expect(reads).toEqual([]);
    await load(box, "lazy-one_counting", "SKILL.md");
    expect(reads).toEqual(["body:lazy-one"]);
  });
});

describe("tool groups and sessions", () => {
  let box: SkillBox;
  beforeAll(async () => {
    box = new SkillBox();
    const shared = echo("shared_tool");
    await box.registration().skill(skill("pdf")).tool(echo("pdf_fill")).tool(shared).apply();
    await box.registration().skill(skill("csv")).tool(shared).apply();
  });

  it("a bound tool is hidden until its skill loads; a tool in several groups appears when any is active", async () => {
    const s = box.session("groups");
    expect(s.toolNames()).toEqual(["load_skill_through_path"]);
    expect(box.toolGroups("shared_tool")).toEqual(["pdf_custom_skill_tools", "csv_custom_skill_tools"]);
    expect((await load(s, "csv_custom", "SKILL.md")).isError).toBe(false);
    expect(s.toolNames()).toEqual(["load_skill_through_path", "shared_tool"]);
    await load(s, "pdf_custom", "SKILL.md");
    expect(s.toolNames()).toEqual(["load_skill_through_path", "pdf_fill", "shared_tool"]);
  });

  it("calling a hidden tool is an error naming its group; an unknown tool names the tools there are", async () => {
    const s = box.session("hidden");
    expect(await text(s.callTool("pdf_fill", { text: "x" }))).toEqual({
      text: 'Error: tool "pdf_fill" is not available yet: load "pdf_custom" with load_skill_through_path first (it belongs to pdf_custom_skill_tools).',
      isError: true,
    });
    expect(await text(s.callTool("nope", {}))).toEqual({
      text: 'Error: unknown tool "nope". Available tools: load_skill_through_path.',
      isError: true,
    });
  });

  it("two sessions never see each other's activations", async () => {
    await load(box.session("alice"), "pdf_custom", "SKILL.md");
    expect(box.session("alice").toolNames()).toContain("pdf_fill");
    expect(box.session("bob").toolNames()).not.toContain("pdf_fill");
    expect(box.session("bob").isActive("pdf_custom")).toBe(false);
    expect((await box.session("bob").callTool("pdf_fill", { text: "x" })).isError).toBe(true);
    expect(await text(box.session("alice").callTool("pdf_fill", { text: "x" }))).toEqual({
      text: "pdf_fill:x",
      isError: false,
    });
  });

  it("deactivateAll hides the group tools again (upstream left them on)", async () => {
    const s = box.session("deactivate");
    await load(s, "pdf_custom", "SKILL.md");
    expect(s.toolNames()).toContain("pdf_fill");
    s.deactivateAll();
    expect(s.isActive("pdf_custom")).toBe(false);
    expect(s.toolNames()).toEqual(["load_skill_through_path"]);
    expect((await s.callTool("pdf_fill", { text: "x" })).isError).toBe(true);
  });

  it("a different tool under a used name is refused; reserved names too", () => {
    expect(() => box.addTool(echo("pdf_fill"))).toThrow(/already registered/);
    expect(() => box.addTool(echo("load_skill_through_path"))).toThrow(/reserved/);
  });
});

describe("load_skill_through_path", () => {
  let box: SkillBox;
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
  beforeAll(async () => {
    box = new SkillBox();
    await box.registerSkill(
      skill("report", "# Report\nUse references/style.md.\n", {
        "references/style.md": "Be brief.\n",
        "assets/logo.png": png,
        "scripts/run.py": "print(1)\n",
      }),
    );
  });

  it.each([
    [
      { skillId: "report_custom", path: "SKILL.md" },
      false,
      "Successfully loaded skill report_custom.\nName: report\nDescription: Does report things. Use when the user asks for report.\nSource: custom\n\n===== SKILL.md =====\n# Report\nUse references/style.md.\n\n===== end of SKILL.md =====",
    ],
    [
      { skillId: "report_custom", path: "references/style.md" },
      false,
      "Successfully loaded resource references/style.md of skill report_custom.\n\nBe brief.\n",
    ],
    [
      { skillId: "report_custom", resourcePath: "references/style.md" },
      false,
      "Successfully loaded resource references/style.md of skill report_custom.\n\nBe brief.\n",
    ],
    [
      { skillId: "report_custom", path: "assets/logo.png" },
      false,
      `Successfully loaded resource assets/logo.png of skill report_custom.\n\nbase64:${Buffer.from(png).toString("base64")}`,
    ],
    [
      { skillId: "report_custom", path: "references/missing.md" },
      true,
      'Error: resource "references/missing.md" not found in skill report_custom. Available paths:\n1. SKILL.md\n2. assets/logo.png\n3. references/style.md\n4. scripts/run.py',
    ],
    [
      { skillId: "reprt_custom", path: "SKILL.md" },
      true,
      'Error: skill "reprt_custom" not found. Did you mean "report_custom"?',
    ],
    [{ skillId: "report", path: "SKILL.md" }, false, "Successfully loaded skill report_custom."],
    [
      { skillId: "  ", path: "SKILL.md" },
      true,
      "Error: load_skill_through_path: missing required argument 'skillId' (it must not be blank)",
    ],
    [{ skillId: "report_custom", path: "" }, true, "Error: load_skill_through_path: missing required argument 'path'"],
    [{ skillId: "report_custom" }, true, "missing required argument 'path'"],
    [
      { skillId: "report_custom", path: "../other/SKILL.md" },
      true,
      'Error: path "../other/SKILL.md" is not allowed: segment ".." is not allowed.',
    ],
    [
      { skillId: "report_custom", path: "/etc/passwd" },
      true,
      'Error: path "/etc/passwd" is not allowed: absolute path.',
    ],
    [{ skillId: "report_custom", path: "%2e%2e/x" }, true, "is not allowed: encoded form is unsafe"],
    [{ skillId: 7, path: "SKILL.md" }, true, "invalid argument 'skillId': expected string, received number"],
  ])("%j", async (args, isError, expected) => {
    const s = box.session(`load-${JSON.stringify(args)}`);
    const result = await text(s.callTool("load_skill_through_path", args));
    expect(result.isError).toBe(isError);
    expect(result.text).toContain(expected);
    expect(s.isActive("report_custom")).toBe(!isError); // failed loads never activate
  });

  it("skillId is an enum while the catalog is small, a free string above the limit (with did-you-mean)", async () => {
    const schema = box.tools()[0]?.inputSchema as { properties: { skillId: { enum?: string[] } }; required: string[] };
    expect(schema.properties.skillId.enum).toEqual(["report_custom"]);
    expect(schema.required).toEqual(["skillId", "path"]);
    const big = new SkillBox({ enumLimit: 3 });
    for (const n of ["alpha", "beta", "gamma", "delta"]) await big.registerSkill(skill(n));
    const bigSchema = big.tools()[0]?.inputSchema as { properties: { skillId: { enum?: string[] } } };
    expect(bigSchema.properties.skillId.enum).toBeUndefined();
    expect((await load(big, "gama_custom", "SKILL.md")).text).toBe(
      'Error: skill "gama_custom" not found. Did you mean "gamma_custom"?',
    );
  });
});

describe("the system prompt", () => {
  it("no skills: no section", () => {
    expect(new SkillBox().getSkillPrompt()).toBe("");
  });

  it("AgentScope's layout: header, <available_skills> with metadata in order, skill-id last; expose-all switch; custom header", async () => {
    const box = new SkillBox();
    const s = Skill.builder()
      .name("data_analysis")
      .description("Analyse <data> & report")
      .skillContent("# x\n")
      .putMetadata("homepage", "https://e.x")
      .putMetadata("metadata", { clawdbot: { requires: { env: ["API_KEY"] } } })
      .build();
    await box.registerSkill(s);
    const prompt = box.getSkillPrompt();
    expect(prompt).toContain("load_skill_through_path");
    expect(prompt).toContain(
      [
        "<available_skills>",
        "<skill>",
        "  <name>data_analysis</name>",
        "  <description>Analyse &lt;data&gt; &amp; report</description>",
        "  <homepage>https://e.x</homepage>",
        "  <metadata>",
        "    <clawdbot>",
        "      <requires>",
        "        <env>",
        "          <item>API_KEY</item>",
        "        </env>",
        "      </requires>",
        "    </clawdbot>",
        "  </metadata>",
        "  <skill-id>data_analysis_custom</skill-id>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
    box.setExposeAllSkillMetadata(false);
    expect(box.getSkillPrompt()).not.toContain("homepage");
    box.setCatalogLayout("compact");
    expect(box.getSkillPrompt()).toMatch(/\n- data_analysis: [^\n]+\n<\/available_skills>$/);
    expect(
      (await box.callTool("load_skill_through_path", { skillId: "data_analysis", path: "SKILL.md" })).isError,
    ).toBeFalsy();
    box.setCatalogLayout("agentscope");
    expect(box.getSkillPrompt()).toContain("<skill-id>data_analysis_custom</skill-id>");
    box.setInstruction("## My skills");
    expect(box.getSkillPrompt().startsWith("## My skills\n\n<available_skills>")).toBe(true);
    box.setInstruction("  ");
    expect(box.getSkillPrompt().startsWith("## Available Skills")).toBe(true);
  });

  it("past the budget: pinned skills listed, the rest counted, and search_skills offered and working", async () => {
    const box = new SkillBox({ catalog: { maxChars: 1200, pinned: ["zeta_custom"] } });
    for (const n of ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]) await box.registerSkill(skill(n));
    await box.registerSkill(
      Skill.builder().name("tax-forms").description("Fill in tax forms and returns").skillContent("# Tax\n").build(),
    );
    const prompt = box.getSkillPrompt();
    expect(prompt).toContain("<skill-id>zeta_custom</skill-id>");
    expect(prompt).toMatch(/\d+ more skills are not listed here \(\d of 7 shown\); call search_skills to find them/);
    expect(box.tools().map((t) => t.name)).toEqual(["load_skill_through_path", "search_skills"]);
    const found = await text(box.callTool("search_skills", { query: "tax returns" }));
    expect(found.text).toMatch(/^Skills matching "tax returns":\n1\. tax-forms_custom \(\d+%\)/);
    const small = new SkillBox();
    await small.registerSkill(skill("alpha"));
    expect(small.tools().map((t) => t.name)).toEqual(["load_skill_through_path"]);
  });

  it("search_skills shows every ranked match with its confidence; it abstains only when asked (decision 0265)", async () => {
    const box = new SkillBox({ catalog: { maxChars: 300 } });
    for (const n of ["alpha", "beta", "gamma"]) await box.registerSkill(skill(n));
    // Modelled on real skills whose description is only a title: the situation's words are in the body.
    const body =
      "# Incident Commander\n\nRuns a production incident: declares severity, assigns roles (commander, scribe), keeps a timeline.\n";
    await box.registerSkill(
      Skill.builder().name("incident-commander").description("Incident Commander").skillContent(body).build(),
    );
    expect(box.tools().map((t) => t.name)).toContain("search_skills");
    const query = "assign a scribe and keep a timeline while prod is broken";
    const [top] = await box.searchSkills(query);
    expect(top?.skill.id).toBe("incident-commander_custom");
    expect(top?.confidence).toBeLessThan(0.3);
    const shown = await text(box.callTool("search_skills", { query }));
    expect(shown.text).toMatch(/^Skills matching ".*":\n1\. incident-commander_custom \(\d+%\)/);
    const strict = await text(box.callTool("search_skills", { query, minConfidence: 0.3 }));
    expect(strict.text).toBe(`No skill matches ${JSON.stringify(query)} with confidence ≥ 0.3.`);
    expect(await box.searchSkills(query, 5, { minConfidence: 0.3 })).toEqual([]);
    const refused = await text(box.callTool("search_skills", { query, minConfidence: 2 }));
    expect(refused.isError).toBe(true);
  });

  it("serves skills from a registry of real folders (fs provider)", async () => {
    const tree: TempTree = await tempTree({
      "hello/SKILL.md": "---\nname: hello\ndescription: Say hello. Use when greeted.\n---\n# Hello\n",
      "hello/references/a.md": "A\n",
    });
    try {
      const registry = new SkillRegistry();
      await registry.addProvider(new LocalFileSystemSkillProvider(tree.dir, { name: "fs-test" }), { watch: false });
      const box = new SkillBox({ registry });
      expect(box.listSkills().map((s) => s.id)).toEqual(["hello_fs-test"]);
      expect((await load(box, "hello_fs-test", "references/a.md")).text).toContain("\n\nA\n");
      await box.close();
    } finally {
      await tree.cleanup();
    }
  });
});

afterAll(() => undefined);

describe("skills the box leaves out are reported (issue 20, item 9)", () => {
  let tree: TempTree;
  beforeAll(async () => {
    tree = await tempTree({
      "good/SKILL.md": "---\nname: good\ndescription: Say good things. Use when asked.\n---\n# Good\n",
      "nodesc/SKILL.md": "---\nname: nodesc\n---\n# No description\n",
      "blank/SKILL.md": '---\nname: blank\ndescription: "  "\n---\n# Blank\n',
    });
  });
  afterAll(() => tree.cleanup());

  it("a skill with no (or a blank) description is in `failures`, named with the reason, and nowhere else", async () => {
    const box = await SkillBox.create({ sources: [new LocalFileSystemSkillProvider(tree.dir, { name: "fs-test" })] });
    expect(box.listSkills().map((s) => s.name)).toEqual(["good"]);
    expect(box.getSkillPrompt()).not.toMatch(/nodesc|blank/);
    expect(box.failures.map((f) => [f.source, f.id, f.message])).toEqual([
      ["fs-test", "blank", "skill \"blank\": 'description' must be a non-empty string"],
      ["fs-test", "nodesc", "skill \"nodesc\": required field 'description' is missing"],
    ]);
    expect(box.failures.flatMap((f) => f.diagnostics.map((d) => d.code)).sort()).toEqual([
      "description-empty",
      "description-missing",
    ]);
    await box.close();
  });

  it("a box over a given registry reports the registry's failures; a box with no sources reports none", async () => {
    const registry = new SkillRegistry();
    await registry.addProvider(new LocalFileSystemSkillProvider(tree.dir, { name: "given" }), { watch: false });
    const box = new SkillBox({ registry });
    expect(box.failures.map((f) => f.id)).toEqual(["blank", "nodesc"]);
    expect(new SkillBox().failures).toEqual([]);
    await box.close();
  });
});

describe("one store: code skills are an in-memory source of the box's registry (issue 21 §2)", () => {
  it("a registered skill is in the registry, found by the registry's search, and read through it", async () => {
    const box = new SkillBox();
    await box.registerSkill(
      skill("invoice", "# Invoice\nHow to total an invoice with VAT.\n", { "references/vat.md": "VAT rules\n" }),
    );
    expect(box.registry.list().map((e) => e.qualifiedId)).toEqual(["custom:invoice"]);
    expect((await box.registry.search("VAT invoice")).map((h) => h.id)).toEqual(["invoice"]);
    expect((await box.searchSkills("VAT invoice")).map((h) => h.skill.id)).toEqual(["invoice_custom"]);
    expect((await load(box, "invoice_custom", "references/vat.md")).text).toContain("\n\nVAT rules\n");
    await box.registerSkill(skill("invoice", "# Invoice v2\nNow with discounts.\n"));
    expect((await box.registry.search("discounts")).map((h) => h.id)).toEqual(["invoice"]); // the same store, updated
  });

  it("skills of another source name get a source of their own; code skills are listed first, in registration order", async () => {
    const tree = await tempTree({
      "hello/SKILL.md": "---\nname: hello\ndescription: Say hello. Use when greeted.\n---\n# Hello\n",
    });
    try {
      const box = await SkillBox.create({ sources: [new LocalFileSystemSkillProvider(tree.dir, { name: "fs-test" })] });
      await box.registerSkill(skill("zulu"));
      await box.registerSkill(skill("alpha", "# a\n", {}, "git-owner/repo"));
      expect(box.listSkills().map((s) => s.id)).toEqual(["zulu_custom", "alpha_git-owner/repo", "hello_fs-test"]);
      expect(box.registry.sources).toEqual(["fs-test", "custom", "git-owner/repo"]);
      expect(box.listSkills().map((s) => s.origin)).toEqual(["registered", "registered", "registry"]);
      await box.close();
    } finally {
      await tree.cleanup();
    }
  });

  it("a name another source already serves is refused, never shadowed silently", async () => {
    const tree = await tempTree({
      "hello/SKILL.md": "---\nname: hello\ndescription: Say hello. Use when greeted.\n---\n# Hello\n",
    });
    try {
      const box = await SkillBox.create({ sources: [new LocalFileSystemSkillProvider(tree.dir, { name: "fs-test" })] });
      await expect(box.registerSkill(skill("hello"))).rejects.toThrow(
        /cannot register hello_custom: the name "hello" is already served by source "fs-test"/,
      );
      expect(box.listSkills().map((s) => s.id)).toEqual(["hello_fs-test"]);
      expect(box.registry.shadowed).toEqual([]);
      await box.close();
    } finally {
      await tree.cleanup();
    }
  });

  it("a skill the registry refuses is an error at registration, and leaves nothing behind", async () => {
    const box = new SkillBox();
    const unsafe = new Skill({ frontmatter: { name: "../up", description: "Climbs." }, body: "# x\n" });
    await expect(box.registerSkill(unsafe)).rejects.toThrow(/cannot be used as a skill id/);
    expect(box.listSkills()).toEqual([]);
    expect(box.failures).toEqual([]);
  });

  it("a removed code skill leaves the registry too, and can come back", async () => {
    const box = new SkillBox();
    await box.registerSkill(skill("gone"));
    expect(box.removeSkill("gone_custom")).toBe(true);
    expect(box.listSkills()).toEqual([]);
    await box.registry.refresh();
    expect(box.registry.list()).toEqual([]);
    expect(await box.registerSkill(skill("gone"))).toEqual({ skillId: "gone_custom", status: "added", version: 1 });
    expect(box.listSkills().map((s) => s.id)).toEqual(["gone_custom"]);
  });
});

describe("the box reads its own catalog's counts, never its text", () => {
  it("an instruction that contains the truncation marker does not turn search on", async () => {
    const box = new SkillBox({ instruction: 'Skills below. <available_skills truncated="true" shown="0" total="9">' });
    await box.registerSkill(skill("alpha"));
    expect(box.getSkillPrompt()).toContain('truncated="true"');
    expect(box.tools().map((t) => t.name)).toEqual(["load_skill_through_path"]);
  });
});

describe("sessions own their activations", () => {
  it("a closed session's view holds nothing; other sessions keep theirs; a new view starts empty", async () => {
    const box = new SkillBox();
    await box.registerSkill(skill("a"));
    const kept = box.session("kept");
    const other = box.session("other");
    kept.activate("a_custom");
    other.activate("a_custom");
    box.closeSession("kept");
    expect(kept.isActive("a_custom")).toBe(false);
    expect(box.session("kept").activeSkills()).toEqual([]);
    expect(other.activeSkills()).toEqual(["a_custom"]);
    expect(() => other.activate("nope_custom")).toThrow(/no skill "nope_custom"/);
  });

  it("the box has no public internals: no `_` methods, and a session is made by its box", () => {
    const names = Object.getOwnPropertyNames(SkillBox.prototype);
    expect(names.filter((n) => n.startsWith("_"))).toEqual([]);
    expect(() => new SkillBoxSession({} as SkillBox, "x")).toThrow(/use box.session/);
  });
});
