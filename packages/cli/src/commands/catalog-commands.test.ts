import { readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadTokenCounter } from "@skillport/core/internal";
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
    const shadowed = JSON.parse(
      (await runInProcess(["show", "fs:user:pdf", "-r", "team", "user", "--json"], dir)).stdout,
    );
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
    expect(cut).toMatch(/truncated="true" shown="[01]" total="2"/);
    expect(cut.length).toBeLessThanOrEqual(full.length - 1); // the printed text plus its newline
    expect(cut.trimEnd().split("\n").at(-1)).toMatch(
      /^\d more skills? (is|are) not listed here \(\d of 2 shown\); call search_skills to find them by what they do\.$/,
    );
  });

  it("--format json shows no metadata unless --metadata is given", async () => {
    const dir = await tree({
      "s/csv/SKILL.md": "---\nname: csv\ndescription: Summarise CSV files.\nlicense: MIT\n---\nBody.\n",
    });
    const plain = JSON.parse((await runInProcess(["prompt", "s", "--format", "json"], dir)).stdout);
    expect(plain.skills[0]).not.toHaveProperty("metadata");
    const full = JSON.parse((await runInProcess(["prompt", "s", "--format", "json", "--metadata"], dir)).stdout);
    expect(full.skills[0].metadata.license).toBe("MIT");
    const agentscope = (await runInProcess(["prompt", "s", "--format", "agentscope"], dir)).stdout;
    expect(agentscope).toContain("<license>MIT</license>");
    expect((await runInProcess(["prompt", "s", "--format", "agentscope", "--no-metadata"], dir)).stdout).not.toContain(
      "<license>",
    );
  });

  it("--max-tokens stays within the budget as the named tokenizer counts, for English and Chinese catalogs, and keeps every source", async () => {
    const files: Record<string, string> = {};
    for (const source of ["one", "two", "three"]) {
      for (let i = 0; i < 12; i++) {
        files[`${source}/en-${source}-${i}/SKILL.md`] = skillMd(
          `en-${source}-${i}`,
          `Summarise quarterly finance report ${i} for the ${source} team: revenue, churn and forecasts.`,
        );
        files[`${source}/zh-${source}-${i}/SKILL.md`] = skillMd(
          `zh-${source}-${i}`,
          `清洗第${i}号表格数据：去除重复行、统一日期格式、修剪空白字符，并生成质量报告。`,
        );
      }
    }
    const dir = await tree(files);
    for (const tokenizer of ["o200k_base", "cl100k_base"] as const) {
      const counter = await loadTokenCounter(tokenizer);
      for (const budget of [400, 1200]) {
        const run = await runInProcess(
          [
            "prompt",
            "one",
            "two",
            "three",
            "--format",
            "markdown",
            "--max-tokens",
            String(budget),
            "--tokenizer",
            tokenizer,
          ],
          dir,
        );
        const text = run.stdout.replace(/\n$/, "");
        expect(counter.count(text), `${tokenizer} ${budget}`).toBeLessThanOrEqual(budget);
        for (const source of ["one", "two", "three"]) expect(text).toContain(`-${source}-`);
        expect(text.split("\n").at(-1)).toMatch(/not listed here .*call search_skills/);
      }
    }
  });

  it("--pin and --priority choose what a tight budget keeps", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`s/skill-${i}/SKILL.md`] = skillMd(`skill-${i}`, `Does thing number ${i}.`);
    const dir = await tree(files);
    const run = await runInProcess(
      [
        "prompt",
        "s",
        "--format",
        "markdown",
        "--max-chars",
        "420",
        "--pin",
        "skill-9",
        "--priority",
        "skill-7=5",
        "--search-tool",
        "find_skills",
      ],
      dir,
    );
    expect(run.stdout).toContain("**skill-9**");
    expect(run.stdout).toContain("**skill-7**");
    expect(run.stdout).toMatch(/call find_skills to find them/);
    expect((await runInProcess(["prompt", "s", "--max-chars", "300", "--no-search-tool"], dir)).stdout).toMatch(
      /not listed here \(\d+ of 10 shown\)\.\n$/,
    );
  });

  it.each(["agentscope", "markdown", "json"])("renders the %s format", async (format) => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["prompt", "team", "user", "--format", format], dir);
    expect(run.code).toBe(1); // user/broken failed to load; the others are rendered
    expect(run.stdout).toContain("csv");
    if (format === "agentscope") expect(run.stdout).toContain("load_skill_through_path");
    if (format === "json") expect(() => JSON.parse(run.stdout)).not.toThrow();
  });

  it("says so when there are no skills, exit 1 (an empty catalog is not a success; decision 0262)", async () => {
    const dir = await tree({ "empty/.keep": "" });
    const run = await runInProcess(["prompt", "empty", "--format", "markdown"], dir);
    expect(run).toEqual({ code: 1, stdout: "", stderr: "skillport: no skills found in empty\n" });
  });
});

describe("skillport search", () => {
  it("ranks by relevance, with confidence and matched fields; says so when nothing fits", async () => {
    const dir = await tree(twoRoots);
    const run = await runInProcess(["search", "csv spreadsheet", "team", "user", "--json", "--no-cache"], dir);
    const { results } = JSON.parse(run.stdout);
    expect(results[0].id).toBe("csv");
    expect(results[0].matched).toEqual(expect.arrayContaining(["name", "description"]));
    expect(results[0].confidence).toBeGreaterThan(0.3);
    const none = await runInProcess(["search", "zebra", "team", "user", "--no-cache"], dir);
    expect(none.stdout).toBe('No skill fits "zebra".\n');
    const asked = await runInProcess(
      ["search", "pdf files", "team", "user", "--no-cache", "--min-confidence", "0.99"],
      dir,
    );
    expect(asked.stdout).toBe(
      'No skill fits "pdf files" (confidence ≥ 0.99; --min-confidence 0 shows weaker matches).\n',
    );
    const bad = await runInProcess(["search", "csv", "team", "--min-confidence", "2"], dir);
    expect(bad.code).toBe(2);
  });

  // Issue 20 item 10 / decision 0265: a threshold calibrated on one corpus hid right answers on another, so by default
  // every ranked hit is shown with its confidence. The fixture is our own text, modelled on real public skills whose
  // description is only a title or whose situation words live in the body; each right answer ranks first with a
  // confidence under the old default threshold (0.3).
  const unseen = fileURLToPath(new URL("../__fixtures__/search-unseen", import.meta.url));
  it.each([
    ["assign a scribe and keep a timeline while prod is broken", "incident-commander"],
    ["production outage roles and timeline", "incident-commander"],
    ["customers whose card payment failed", "churn-prevention"],
  ])("shows a right answer of low confidence by default: %j → %s", async (query, id) => {
    const dir = await tree({});
    const json = JSON.parse((await runInProcess(["search", query, unseen, "--json", "--no-cache"], dir)).stdout);
    expect(json.minConfidence).toBe(0);
    expect(json.results[0].id).toBe(id);
    expect(json.results[0].confidence).toBeLessThan(0.3);
    const text = await runInProcess(["search", query, unseen, "--no-cache"], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${id}  \\d+%\n`));
    // Abstention is still there when asked for.
    const strict = await runInProcess(["search", query, unseen, "--no-cache", "--min-confidence", "0.3"], dir);
    expect(strict.stdout).toBe(
      `No skill fits ${JSON.stringify(query)} (confidence ≥ 0.3; --min-confidence 0 shows weaker matches).\n`,
    );
  });

  it("finds Chinese, accented and symbol-bearing queries", async () => {
    const dir = await tree({
      "s/数据清洗/SKILL.md": skillMd("数据清洗", "清洗表格数据：去除重复行、统一日期格式、修剪空白字符。"),
      "s/resume/SKILL.md": skillMd("resume", "Write a résumé tailored to a job posting."),
      "s/cpp-review/SKILL.md": skillMd("cpp-review", "Review C++ code for undefined behaviour."),
      "s/dotnet-api/SKILL.md": skillMd("dotnet-api", "Build ASP.NET Core web APIs in C#."),
    });
    for (const [query, id] of [
      ["数据清洗", "数据清洗"],
      ["résumé", "resume"],
      ["C++", "cpp-review"],
      ["C#", "dotnet-api"],
      [".NET", "dotnet-api"],
    ]) {
      const run = await runInProcess(["search", query!, "s", "--json", "--no-cache"], dir);
      expect(JSON.parse(run.stdout).results[0]?.id, query).toBe(id);
    }
  });

  it("finds skills hidden from models only with --all", async () => {
    const dir = await tree({
      "s/deploy-prod/SKILL.md":
        "---\nname: deploy-prod\ndescription: Deploy to production.\ndisable-model-invocation: true\n---\nRun it.\n",
      "s/deploy-docs/SKILL.md": skillMd("deploy-docs", "Deploy the documentation site."),
    });
    const ids = async (...extra: string[]) =>
      JSON.parse(
        (
          await runInProcess(
            ["search", "deploy production", "s", "--json", "--no-cache", "--min-confidence", "0", ...extra],
            dir,
          )
        ).stdout,
      ).results.map((r: { id: string }) => r.id);
    expect(await ids()).toEqual(["deploy-docs"]);
    expect(await ids("--all")).toEqual(["deploy-prod", "deploy-docs"]);
    expect((await runInProcess(["show", "deploy-prod", "-r", "s", "--json"], dir)).code).toBe(0);
  });

  it("keeps an on-disk index: a second search reads no skill again, a change re-reads just that skill", async () => {
    const dir = await tree({
      "s/alpha/SKILL.md": skillMd("alpha", "Does alpha things.", "# Alpha\n\n## Rotating TLS certificates\n"),
      "s/beta/SKILL.md": skillMd("beta", "Does beta things."),
    });
    const old = new Date(Date.now() - 60_000);
    for (const id of ["alpha", "beta"]) await utimes(path.join(dir, "s", id, "SKILL.md"), old, old);
    const cache = path.join(dir, "cache");
    const search = async (query: string) =>
      JSON.parse(
        (await runInProcess(["search", query, "s", "--json", "--cache-dir", "cache", "--min-confidence", "0"], dir))
          .stdout,
      );
    expect((await search("tls certificates")).index).toEqual({ skills: 2, reused: 0, analysed: 2, cached: true });
    expect((await readdir(cache)).sort()).toEqual([
      expect.stringMatching(/^metadata-/),
      expect.stringMatching(/^search-/),
    ]);
    const again = await search("tls certificates");
    expect(again.index).toEqual({ skills: 2, reused: 2, analysed: 0, cached: true });
    expect(again.results[0].id).toBe("alpha");
    // Same size, new content: the stamp (inode times) changes, so alpha is read again and the old heading is gone.
    await writeFile(
      path.join(dir, "s/alpha/SKILL.md"),
      skillMd("alpha", "Does alpha things.", "# Alpha\n\n## Renewing DNS zone records\n"),
    );
    await utimes(path.join(dir, "s/alpha/SKILL.md"), old, new Date(Date.now() - 30_000));
    const changed = await search("dns zone records");
    expect(changed.index).toEqual({ skills: 2, reused: 1, analysed: 1, cached: true });
    expect(changed.results[0].id).toBe("alpha");
    expect((await search("rotating tls certificates")).results.map((r: { id: string }) => r.id)).not.toContain("alpha");
    // A removed skill leaves the index; a corrupt index file is ignored, never an error.
    await rm(path.join(dir, "s/beta"), { recursive: true });
    expect((await search("beta")).index.skills).toBe(1);
    for (const file of await readdir(cache)) await writeFile(path.join(cache, file), "{not json");
    expect((await search("dns")).results[0].id).toBe("alpha");
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
    "single/SKILL.md": '---\nname: single\ndescription: ""\n---\nbody\n',
    "c/bad/SKILL.md": '---\nname: bad\ndescription: ""\n---\nbody\n',
  };

  it.each([
    ["list", ["list", "a", "single", "c"]],
    ["prompt", ["prompt", "a", "single", "c"]],
    ["search", ["search", "good", "a", "single", "c"]],
  ])(
    "%s: a failing single skill folder and a failing skill in a folder are both warned about; exit 1",
    async (_label, args) => {
      const dir = await tree(roots);
      const run = await runInProcess(args, dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("good");
      expect(run.stderr).toMatch(/skipped fs:single:single: .*'description' must be a non-empty string/);
      expect(run.stderr).toMatch(/skipped fs:c:bad: .*'description' must be a non-empty string/);
    },
  );

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
    const list = JSON.parse((await runInProcess(["list", "s", "--json"], dir)).stdout) as {
      skills: Array<{ name: string; description: string }>;
    };
    expect(list.skills.map((s) => [s.name, s.description])).toEqual([["x", expected]]);
    const catalog = JSON.parse((await runInProcess(["prompt", "s", "--format", "json"], dir)).stdout) as {
      skills: Array<{ name: string; description: string }>;
    };
    expect(catalog.skills.map((s) => [s.name, s.description])).toEqual([["x", expected]]);
  });
});
