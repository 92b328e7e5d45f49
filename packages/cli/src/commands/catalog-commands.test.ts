import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

const twoRoots = {
  "team/pdf/SKILL.md": skillMd("pdf", "Team PDF tools. Use when the user works with PDF files."),
  "team/pdf/references/forms.md": "# Forms\n",
  "user/pdf/SKILL.md": skillMd("pdf", "User PDF tools. Use when the user works with PDF files."),
  "user/csv/SKILL.md": skillMd("csv", "Summarise CSV spreadsheets. Use when the user shares a .csv export."),
  "user/broken/SKILL.md": "---\nname: broken\n---\nno description\n",
};

describe("skillport list", () => {
  it("lists the winning skills sorted by id, reports shadowing and skipped skills", async () => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["list", "team", "user", "--json"], dir);
    expect(run.code).toBe(1); // user/broken failed to load
    const out = JSON.parse(run.stdout);
    expect(out.skills.map((s: { qualifiedId: string }) => s.qualifiedId)).toEqual(["fs:user:csv", "fs:team:pdf"]);
    expect(out.shadowed).toEqual([{ id: "pdf", winner: "fs:team:pdf", shadowed: "fs:user:pdf" }]);
    expect(out.failures.map((f: { id: string }) => f.id)).toEqual(["broken"]);
  });

  it("--all includes shadowed skills; text output warns on stderr", async () => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["list", "team", "user", "--all"], dir);
    expect(run.stdout).toMatch(/^pdf +User PDF tools.*\(shadowed: fs:user:pdf\)$/m);
    expect(run.stderr).toContain("fs:user:pdf is shadowed by fs:team:pdf");
    expect(run.stderr).toContain("skipped fs:user:broken");
  });

  it("finds .agents/skills and .claude/skills around the working directory when no root is given", async () => {
    const dir = await tree({
      ".git/HEAD": "ref: refs/heads/main\n",
      ".agents/skills/alpha/SKILL.md": skillMd("alpha"),
      ".claude/skills/beta/SKILL.md": skillMd("beta"),
    });
    await import("node:fs/promises").then((fs) => fs.mkdir(path.join(dir, "sub"), { recursive: true }));
    const run = await runInProcess(["list", "--json"], path.join(dir, "sub"));
    expect(JSON.parse(run.stdout).skills.map((s: { id: string }) => s.id)).toEqual(["alpha", "beta"]);
  });
});

describe("skillport show", () => {
  it("shows a skill by id, by qualified id and by path", async () => {
    const dir = await tree(twoRoots);
    const byId = JSON.parse((await runInProcess(["show", "pdf", "-r", "team", "user", "--json"], dir)).stdout);
    expect(byId.qualifiedId).toBe("fs:team:pdf");
    expect(byId.files.map((f: { path: string }) => f.path)).toEqual(["SKILL.md", "references/forms.md"]);
    expect(byId.body).toBe("# pdf\n\nSteps.\n");
    const shadowed = JSON.parse((await runInProcess(["show", "fs:user:pdf", "-r", "team", "user", "--json"], dir)).stdout);
    expect(shadowed.metadata.description).toMatch(/^User PDF/);
    const byPath = JSON.parse((await runInProcess(["show", "user/csv/SKILL.md", "--json"], dir)).stdout);
    expect(byPath.id).toBe("csv");
  });

  it("prints one file, confined to the skill", async () => {
    const dir = await tree(twoRoots);
    const file = await runInProcess(["show", "team/pdf", "--file", "references/forms.md"], dir);
    expect(file.stdout).toBe("# Forms\n");
    for (const escape of ["../../user/csv/SKILL.md", "/etc/passwd", "references/../../pdf/SKILL.md"]) {
      const run = await runInProcess(["show", "team/pdf", "--file", escape], dir);
      expect(run.code, escape).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toContain(dir); // errors never name host paths
    }
  });

  it("names the known skills when an id is unknown", async () => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["show", "nope", "-r", "user"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('skillport: no skill "nope" (known: csv, pdf)\n');
  });
});

describe("skillport prompt", () => {
  it("renders the skills-ref layout by default, with absolute locations", async () => {
    const dir = await tree({ "s/csv/SKILL.md": skillMd("csv", "Summarise CSV <files> & more.") });
    const run = await runInProcess(["prompt", "s"], dir);
    expect(run.stdout).toBe(
      `<available_skills>\n<skill>\n<name>\ncsv\n</name>\n<description>\nSummarise CSV &lt;files&gt; &amp; more.\n</description>\n<location>\n${path.join(dir, "s/csv/SKILL.md")}\n</location>\n</skill>\n</available_skills>\n`,
    );
  });

  it("drops whole skills to fit --max-chars and says so", async () => {
    const dir = await tree(twoRoots);
    const full = (await runInProcess(["prompt", "team", "user"], dir)).stdout;
    const cut = (await runInProcess(["prompt", "team", "user", "--max-chars", String(full.length - 2)], dir)).stdout;
    expect(cut).toContain('truncated="true" shown="1" total="2"');
    expect(cut.length).toBeLessThan(full.length);
  });

  it.each(["agentscope", "markdown", "json"])("renders the %s format", async (format) => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["prompt", "team", "user", "--format", format], dir);
    expect(run.code).toBe(1); // user/broken failed to load; the others are rendered
    expect(run.stdout).toContain("csv");
    if (format === "agentscope") expect(run.stdout).toContain("load_skill_through_path");
    if (format === "json") expect(() => JSON.parse(run.stdout)).not.toThrow();
  });

  it("prints nothing when there are no skills", async () => {
    const dir = await tree({ "empty/.keep": "" });
    const run = await runInProcess(["prompt", "empty", "--format", "markdown"], dir);
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("skillport search", () => {
  it("ranks by relevance", async () => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["search", "csv spreadsheet", "team", "user", "--json"], dir);
    const { results } = JSON.parse(run.stdout);
    expect(results[0].id).toBe("csv");
    const none = await runInProcess(["search", "zebra", "team", "user"], dir);
    expect(none.stdout).toBe('No skill matches "zebra".\n');
  });
});

describe("skillport init", () => {
  it("creates a skill that validates, and refuses to overwrite or to take a bad name", async () => {
    const dir = await tree({});
    const created = await runInProcess(["init", "my-skill"], dir);
    expect(created.code).toBe(0);
    expect(await readFile(path.join(dir, "my-skill/SKILL.md"), "utf8")).toMatch(/^---\nname: my-skill\n/);
    expect((await runInProcess(["validate", "my-skill"], dir)).code).toBe(0);
    expect((await runInProcess(["init", "my-skill"], dir)).stderr).toContain("already exists");
    for (const bad of ["Bad-Name", "a--b", "../escape", "-lead"]) {
      const run = await runInProcess(["init", bad], dir);
      expect(run.code, bad).toBe(2); // a usage error, as for plugin create
    }
  });
});

describe("bad roots are reported and the rest still load (issue 9)", () => {
  const roots = {
    "a/good/SKILL.md": skillMd("good"),
    "single/SKILL.md": "---\nname: single\ndescription: \"\"\n---\nbody\n",
    "c/bad/SKILL.md": "---\nname: bad\ndescription: \"\"\n---\nbody\n",
  };

  it.each([
    ["list", ["list", "a", "single", "c"]],
    ["prompt", ["prompt", "a", "single", "c"]],
    ["search", ["search", "good", "a", "single", "c"]],
  ])("%s: a failing single skill folder and a failing skill in a folder are both warned about; exit 1", async (_label, args) => {
    const dir = await tree(roots);
    const run = await runInProcess(args, dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("good");
    expect(run.stderr).toMatch(/skipped fs:single:single: .*'description' must be a non-empty string/);
    expect(run.stderr).toMatch(/skipped fs:c:bad: .*'description' must be a non-empty string/);
  });

  it("list --json lists both failures", async () => {
    const dir = await tree(roots);
    const run = await runInProcess(["list", "a", "single", "c", "--json"], dir);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { failures: Array<{ source: string; id: string }> };
    expect(json.failures.map((f) => `${f.source}:${f.id}`).sort()).toEqual(["fs:c:bad", "fs:single:single"]);
  });
});

describe("names and descriptions read as text, stripped (issue 9)", () => {
  it.each([
    ["description: 42", "42"],
    ["description: true", "true"],
    ["description: |\n  Two lines.\n  Use when asked.\n", "Two lines.\nUse when asked."],
    ["description: '  padded. Use when asked.  '", "padded. Use when asked."],
  ])("%s", async (line, expected) => {
    const dir = await tree({ "s/x/SKILL.md": `---\nname: '  x  '\n${line}\n---\nbody\n` });
    const list = JSON.parse((await runInProcess(["list", "s", "--json"], dir)).stdout) as { skills: Array<{ name: string; description: string }> };
    expect(list.skills.map((s) => [s.name, s.description])).toEqual([["x", expected]]);
    const catalog = JSON.parse((await runInProcess(["prompt", "s", "--format", "json"], dir)).stdout) as { skills: Array<{ name: string; description: string }> };
    expect(catalog.skills.map((s) => [s.name, s.description])).toEqual([["x", expected]]);
  });
});
