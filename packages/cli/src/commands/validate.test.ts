import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, skillMd, useTempTrees } from "../test-support.js";

const tree = useTempTrees();

describe("skillport validate", () => {
  it("prints the documented JSON shape with paths relative to the working directory", async () => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good"), "skills/Bad/SKILL.md": skillMd("Bad") });
    const run = await runInProcess(["validate", "skills", "--format", "json"], dir);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report)).toEqual(["skills", "summary"]);
    expect(report.skills.map((s: { path: string; name: string; valid: boolean }) => [s.path, s.name, s.valid])).toEqual(
      [
        ["skills/Bad/SKILL.md", "Bad", false],
        ["skills/good/SKILL.md", "good", true],
      ],
    );
    const diagnostic = report.skills[0].diagnostics[0];
    expect(Object.keys(diagnostic)).toEqual(["code", "severity", "message", "line", "column"]);
    expect(diagnostic).toMatchObject({ severity: "error", line: 2 });
    expect(report.summary).toEqual({
      skills: 2,
      errors: report.skills[0].diagnostics.filter((d: { severity: string }) => d.severity === "error").length,
      warnings: expect.any(Number),
    });
  });

  it.each([
    ["a skill directory", "skills/good", 1],
    ["a SKILL.md file", "skills/good/SKILL.md", 1],
    ["a folder of skills", "skills", 2],
  ])("accepts %s", async (_label, target, count) => {
    const dir = await tree({ "skills/good/SKILL.md": skillMd("good"), "skills/other/SKILL.md": skillMd("other") });
    const run = await runInProcess(["validate", target, "--format", "json"], dir);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary.skills).toBe(count);
  });

  it("prints tsc-style lines: path:line:col  severity  code  message", async () => {
    const dir = await tree({
      "demo/SKILL.md": "---\nname: demo\ndescription: ok. Use when testing.\nwhatever: 1\n---\nBody\n",
    });
    const run = await runInProcess(["validate", "demo"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^demo\/SKILL\.md:4:1 {2}error {2}field-unexpected {2}.*whatever/m);
    expect(run.stdout).toContain("1 skill checked: 1 error");
    expect(run.stdout).not.toContain("\u001b["); // no colours when not a TTY
  });

  it.each([
    ["no frontmatter", "# just markdown\n"],
    ["unclosed frontmatter", "---\nname: x\n"],
    ["invalid YAML", "---\nname: [unclosed\n---\n"],
    ["binary garbage", new Uint8Array([0, 159, 146, 150, 0, 1, 2])],
    [
      "an alias bomb",
      "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n",
    ],
  ])("reports %s as a diagnostic without hiding the other skills", async (_label, content) => {
    const dir = await tree({ "skills/broken/SKILL.md": content, "skills/fine/SKILL.md": skillMd("fine") });
    const run = await runInProcess(["validate", "skills", "--format", "json"], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const skills = JSON.parse(run.stdout).skills;
    expect(skills.map((s: { valid: boolean }) => s.valid)).toEqual([false, true]);
    expect(skills[0].diagnostics.length).toBeGreaterThan(0);
  });

  it("reports a directory named SKILL.md and a dangling symlink", async () => {
    const dir = await tree({ "skills/fine/SKILL.md": skillMd("fine") });
    await mkdir(path.join(dir, "skills/dir-skill/SKILL.md"), { recursive: true });
    await mkdir(path.join(dir, "skills/dangling"));
    await symlink(path.join(dir, "nowhere.md"), path.join(dir, "skills/dangling/SKILL.md"));
    const run = await runInProcess(["validate", "skills", "--format", "json"], dir);
    const byPath = Object.fromEntries(
      JSON.parse(run.stdout).skills.map((s: { path: string; diagnostics: Array<{ code: string }> }) => [
        s.path,
        s.diagnostics.map((d) => d.code),
      ]),
    );
    expect(byPath).toEqual({
      "skills/dangling/SKILL.md": ["skill-md-link-dangling"],
      "skills/dir-skill/SKILL.md": ["skill-md-not-file"],
      "skills/fine/SKILL.md": [],
    });
    expect(run.code).toBe(1);
  });

  // Issue 8 weakness: validate followed a SKILL.md link to any file and echoed its values; list and show refused it.
  it("refuses a SKILL.md link leaving the skill and echoes nothing of its target", async () => {
    const dir = await tree({
      "secret.md": "---\nname: top-secret-token-4711\ndescription: hunter2-password\n---\n",
      "skills/fine/SKILL.md": skillMd("fine"),
      "skills/other/SKILL.md": skillMd("other"),
    });
    await mkdir(path.join(dir, "skills/evil"));
    await mkdir(path.join(dir, "skills/sibling"));
    await symlink(path.join(dir, "secret.md"), path.join(dir, "skills/evil/SKILL.md"));
    await symlink("../other/SKILL.md", path.join(dir, "skills/sibling/SKILL.md"));
    for (const args of [
      ["validate", "skills"],
      ["validate", "skills", "--format", "json"],
      ["validate", "skills/evil"],
      ["validate", "skills/evil/SKILL.md"],
    ]) {
      const run = await runInProcess(args, dir);
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).not.toMatch(/top-secret|hunter2/);
      expect(run.stdout).toContain("skill-md-link-outside");
    }
    const json = JSON.parse((await runInProcess(["validate", "skills", "--format", "json"], dir)).stdout);
    expect(json.skills.map((s: { path: string; valid: boolean }) => [s.path, s.valid])).toEqual([
      ["skills/evil/SKILL.md", false],
      ["skills/fine/SKILL.md", true],
      ["skills/other/SKILL.md", true],
      ["skills/sibling/SKILL.md", false],
    ]);
  });

  it("reports broken references through referenced files, and unreferenced resources only with --unreferenced", async () => {
    const body = "# Pdf\n\nSee [forms](FORMS.md) and references/guide.md.\n";
    const dir = await tree({
      "pdf/SKILL.md": skillMd("pdf", undefined, body),
      "pdf/forms.md": "Fill with scripts/fill.py.\n",
      "pdf/references/guide.md": "Then run `scripts/missing.sh`.\n",
      "pdf/scripts/fill.py": "print(1)\n",
      "pdf/assets/unused.png": "png",
    });
    const run = await runInProcess(["validate", "pdf"], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('pdf/SKILL.md:7:13  error  reference-case-mismatch  "FORMS.md" is "forms.md" on disk');
    expect(run.stdout).toContain(
      'pdf/references/guide.md:1:11  error  reference-missing  "scripts/missing.sh" is referenced but the skill has no such file',
    );
    expect(run.stdout).not.toContain("resource-unreferenced");
    const withUnreferenced = await runInProcess(["validate", "pdf", "--unreferenced", "--format", "json"], dir);
    const codes = (
      JSON.parse(withUnreferenced.stdout) as {
        skills: Array<{ diagnostics: Array<{ code: string; severity: string; message: string }> }>;
      }
    ).skills[0]?.diagnostics
      .filter((d) => d.code === "resource-unreferenced")
      .map((d) => [d.severity, d.message.split(" ")[0]]);
    expect(codes).toEqual([["info", "assets/unused.png"]]);
  });

  it("reports every missing, present and case-mismatched reference, in every form, exactly as before the scan's shortcuts", async () => {
    // Expected output recorded from the build before the mention scan skipped patterns and the line index: links,
    // resource paths and bare names, in SKILL.md and in referenced files, next to the file-tree policy's findings.
    const fm = (name: string) =>
      `---\nname: ${name}\ndescription: Checks references of every kind. Use when testing reference lint.\n---\n`;
    const dir = await tree({
      "skills/links/SKILL.md": `${fm("links")}# Links\n\nSee [present](references/a.md), [missing](references/nope.md#part) and [case](References/A.md).\n![logo](assets/Logo.PNG) [site](https://example.com/x.md) [top](#links)\n`,
      "skills/links/references/a.md": "Back to [the skill](../SKILL.md) and [gone](b.md).\n",
      "skills/links/assets/logo.png": "png",
      "skills/links/assets/spare.png": "png",
      "skills/paths/SKILL.md": `${fm("paths")}# Paths\n\nRun \`scripts/run.sh\`, then scripts/Missing.py and scripts/gone.sh.\nSee references/Guide.md; scripts/<tool>.sh is a pattern.\n`,
      "skills/paths/scripts/run.sh": "echo\n",
      "skills/paths/scripts/missing.py": "print(1)\n",
      "skills/paths/references/guide.md": "Then open assets/none.txt and NOTES.md.\n",
      "skills/paths/notes.md": "notes\n",
      "skills/names/SKILL.md": `${fm("names")}# Names\n\nFill FORMS.md, then other.md and README.MD.\n`,
      "skills/names/forms.md": "forms\n",
      "skills/names/readme.md": "readme\n",
      "skills/clean/SKILL.md": `${fm("clean")}# Clean\n\nNothing mentioned here.\n`,
    });
    await symlink("../../clean/SKILL.md", path.join(dir, "skills/links/references/out.md"));
    const unreferenced =
      "skills/links/SKILL.md:5:1  info  resource-unreferenced  assets/spare.png is never mentioned in the body or the files it references, so a model will not know to load it";
    const expected = [
      'skills/links/references/a.md:1:45  error  reference-missing  "b.md" is referenced but the skill has no such file',
      unreferenced,
      'skills/links/SKILL.md:7:43  error  reference-missing  "references/nope.md" is referenced but the skill has no such file',
      'skills/links/SKILL.md:7:79  error  reference-case-mismatch  "References/A.md" is "references/a.md" on disk; names are case-sensitive outside macOS and Windows',
      'skills/links/SKILL.md:8:9  error  reference-case-mismatch  "assets/Logo.PNG" is "assets/logo.png" on disk; names are case-sensitive outside macOS and Windows',
      "skills/links/references/out.md  error  file-link-outside  references/out.md is a symbolic link that leads outside the skill",
      'skills/names/SKILL.md:7:6  error  reference-case-mismatch  "FORMS.md" is "forms.md" on disk; names are case-sensitive outside macOS and Windows',
      'skills/names/SKILL.md:7:34  error  reference-case-mismatch  "README.MD" is "readme.md" on disk; names are case-sensitive outside macOS and Windows',
      'skills/paths/references/guide.md:1:11  error  reference-missing  "assets/none.txt" is referenced but the skill has no such file',
      'skills/paths/references/guide.md:1:31  error  reference-case-mismatch  "NOTES.md" is "notes.md" on disk; names are case-sensitive outside macOS and Windows',
      'skills/paths/SKILL.md:7:28  error  reference-case-mismatch  "scripts/Missing.py" is "scripts/missing.py" on disk; names are case-sensitive outside macOS and Windows',
      'skills/paths/SKILL.md:7:51  error  reference-missing  "scripts/gone.sh" is referenced but the skill has no such file',
      'skills/paths/SKILL.md:8:5  error  reference-case-mismatch  "references/Guide.md" is "references/guide.md" on disk; names are case-sensitive outside macOS and Windows',
      "",
      "✖ 4 skills checked: 12 errors, 0 warnings",
    ];
    const withUnreferenced = await runInProcess(["validate", "skills", "--unreferenced"], dir);
    expect(withUnreferenced.code).toBe(1);
    expect(withUnreferenced.stdout.trimEnd().split("\n")).toEqual(expected);
    const plain = await runInProcess(["validate", "skills"], dir);
    expect(plain.stdout.trimEnd().split("\n")).toEqual(expected.filter((line) => line !== unreferenced));
  });

  it("refuses a SKILL.md over --max-file-bytes", async () => {
    const dir = await tree({ "big/SKILL.md": skillMd("big", "Big. Use when testing.", "x".repeat(5000)) });
    const run = await runInProcess(["validate", "big", "--max-file-bytes", "1000", "--format", "json"], dir);
    expect(JSON.parse(run.stdout).skills[0].diagnostics[0].code).toBe("skill-md-too-large");
  });

  it("selects rules by profile", async () => {
    const dir = await tree({ "my_skill/SKILL.md": skillMd("my_skill") });
    const verdict = async (profile: string) =>
      (await runInProcess(["validate", "my_skill", "--profile", profile], dir)).code;
    expect(await verdict("spec")).toBe(1); // underscores are not allowed by the spec
    expect(await verdict("agentscope")).toBe(0);
  });

  it("writes SARIF 2.1.0 with one result per diagnostic", async () => {
    const dir = await tree({ "Bad/SKILL.md": skillMd("Bad") });
    const run = await runInProcess(["validate", "Bad", "--format", "sarif"], dir);
    const sarif = JSON.parse(run.stdout);
    expect(sarif.version).toBe("2.1.0");
    const result = sarif.runs[0].results[0];
    expect(result.level).toBe("error");
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe("Bad/SKILL.md");
    expect(result.locations[0].physicalLocation.region.startLine).toBe(2);
    expect(sarif.runs[0].tool.driver.rules.map((r: { id: string }) => r.id)).toContain(result.ruleId);
  });

  it("exits 2 with one line for a missing path or a bad option", async () => {
    const dir = await tree({});
    const missing = await runInProcess(["validate", "nope"], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("skillport: no such file or directory: nope\n");
    const badProfile = await runInProcess(["validate", ".", "--profile", "strictest"], dir);
    expect(badProfile.code).toBe(2);
    expect(badProfile.stderr).toContain("strictest");
  });
});
