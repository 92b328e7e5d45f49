// Issue 7 "Done when": ONE skill-directory policy. For each case, validate, list --json, show, export, pack, deploy
// (the CLI, in process) and every provider method give the same answer: served, or refused and reported.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AgentSkillsError } from "@skillport/core";
import { DEFAULT_MAX_FILE_BYTES, LocalFileSystemSkillProvider } from "@skillport/fs";
import { tempTree, type TempTree } from "@skillport/testing";
import { readArchive } from "@skillport/pack";
import { runInProcess, skillMd } from "./test-support.js";

type Answer = "served" | "refused";

interface PolicyCase {
  label: string;
  /** `skill`: the case is about the skill file or folder; `file`: about one file of an otherwise fine skill. */
  level: "skill" | "file";
  answer: Answer;
  /** The file the case is about (file level), relative to the skill folder. */
  file?: string;
  /** Turns a plain skill folder `dir` (SKILL.md + references/real.md) into the case; `base` is the temp dir. */
  make: (dir: string, base: string) => Promise<void>;
}

const CASES: PolicyCase[] = [
  {
    label: "a symlinked SKILL.md inside the skill",
    level: "skill",
    answer: "served",
    make: async (dir) => {
      await mkdir(path.join(dir, "docs"));
      await rename(path.join(dir, "SKILL.md"), path.join(dir, "docs", "main.md"));
      await symlink("docs/main.md", path.join(dir, "SKILL.md"));
    },
  },
  {
    label: "a symlinked SKILL.md pointing into another skill of the root",
    level: "skill",
    answer: "refused",
    make: async (dir) => {
      await rm(path.join(dir, "SKILL.md"));
      await symlink("../other/SKILL.md", path.join(dir, "SKILL.md"));
    },
  },
  {
    label: "a symlinked SKILL.md pointing outside the root",
    level: "skill",
    answer: "refused",
    make: async (dir, base) => {
      await rm(path.join(dir, "SKILL.md"));
      await symlink(path.join(base, "outside", "SKILL.md"), path.join(dir, "SKILL.md"));
    },
  },
  {
    label: "skill.md instead of SKILL.md",
    level: "skill",
    answer: "served",
    make: (dir) => rename(path.join(dir, "SKILL.md"), path.join(dir, "skill.md")),
  },
  {
    label: "a folder without SKILL.md",
    level: "skill",
    answer: "refused",
    make: (dir) => rm(path.join(dir, "SKILL.md")),
  },
  {
    label: "an in-skill link (references/alias.md -> real.md)",
    level: "file",
    answer: "served",
    file: "references/alias.md",
    make: (dir) => symlink("real.md", path.join(dir, "references", "alias.md")),
  },
  {
    label: "a link leaving the skill",
    level: "file",
    answer: "refused",
    file: "references/out.md",
    make: (dir) => symlink("../../other/SKILL.md", path.join(dir, "references", "out.md")),
  },
  {
    label: "a dangling link",
    level: "file",
    answer: "refused",
    file: "references/gone.md",
    make: (dir) => symlink("nowhere.md", path.join(dir, "references", "gone.md")),
  },
  {
    label: "a file over the limit",
    level: "file",
    answer: "refused",
    file: "references/big.bin",
    make: (dir) => writeFile(path.join(dir, "references", "big.bin"), Buffer.alloc(DEFAULT_MAX_FILE_BYTES + 1, 0x61)),
  },
];

const OTHER = skillMd("other");

/** The same case in a folder of skills (`skills/s`) and in a package (`pkg/skills/s`), next to a fine skill `other`. */
async function layout(c: PolicyCase): Promise<TempTree> {
  const t = await tempTree(
    {
      "skills/s/SKILL.md": skillMd("s"),
      "skills/s/references/real.md": "real\n",
      "skills/other/SKILL.md": OTHER,
      "pkg/skills/s/SKILL.md": skillMd("s"),
      "pkg/skills/s/references/real.md": "real\n",
      "pkg/skills/other/SKILL.md": OTHER,
      "outside/SKILL.md": skillMd("s", "Planted outside the root. Use never."),
    },
    "skillport-policy-",
  );
  await c.make(path.join(t.dir, "skills", "s"), t.dir);
  await c.make(path.join(t.dir, "pkg", "skills", "s"), t.dir);
  return t;
}

interface Observed {
  validate: Answer;
  list: Answer;
  show: Answer;
  export: Answer;
  pack: Answer;
  deploy: Answer;
  provider: Answer;
}

async function observe(c: PolicyCase, dir: string): Promise<{ observed: Observed; notes: string[] }> {
  const notes: string[] = [];
  const run = (args: string[]) => runInProcess(args, dir);

  // validate: the folder's report.
  const validated = JSON.parse((await run(["validate", "skills", "--format", "json"])).stdout) as {
    skills: Array<{ path: string; valid: boolean; diagnostics: Array<{ code: string; message: string }> }>;
  };
  const report = validated.skills.find((s) => s.path.startsWith("skills/s/"));
  const policyCodes = (report?.diagnostics ?? []).filter((d) => /^(skill-md|skill-dir|file)-/.test(d.code));
  const validate: Answer = report !== undefined && report.valid && policyCodes.length === 0 ? "served" : "refused";
  if (validate === "refused" && (report === undefined || policyCodes.length === 0))
    notes.push(`validate refused without a report: ${JSON.stringify(report)}`);

  // list --json: lists skills, so a file-level case is answered by the skill being listed.
  const listed = JSON.parse((await run(["list", "skills", "--json"])).stdout) as {
    skills: Array<{ id: string }>;
    failures: Array<{ id: string | null }>;
    skipped: Array<{ folder: string }>;
  };
  const inList = listed.skills.some((s) => s.id === "s");
  const reportedInList = listed.failures.some((f) => f.id === "s") || listed.skipped.some((s) => s.folder === "s");
  let list: Answer = inList ? "served" : "refused";
  if (!inList && !reportedInList) notes.push("list dropped the skill silently");
  if (c.level === "file") list = inList ? c.answer : "refused";

  // show: the skill, or (file level) the file.
  const shown =
    c.level === "skill"
      ? await run(["show", "skills/s", "--json"])
      : await run(["show", "skills/s", "--file", c.file!, "--json"]);
  const show: Answer = shown.code === 0 ? "served" : "refused";
  if (show === "refused" && shown.stderr.trim() === "") notes.push("show refused without saying why");

  // export: the .skill archive, holding the file (file level).
  const exported = await run(["export", "skills/s", "-o", "s.skill", "--json"]);
  let exportAnswer: Answer = exported.code === 0 ? "served" : "refused";
  if (exportAnswer === "served") {
    const paths = (await readArchive(path.join(dir, "s.skill"), { stripWrapper: false })).files.map((f) => f.path);
    if (!paths.includes("s/SKILL.md")) exportAnswer = "refused";
    if (c.file !== undefined && !paths.includes(`s/${c.file}`)) exportAnswer = "refused";
  } else if (exported.stderr.trim() === "") notes.push("export refused without saying why");

  // pack: the package archive, holding the skill and the file.
  const packed = await run(["pack", "pkg", "-o", "pkg.zip", "--json"]);
  let pack: Answer = packed.code === 0 ? "served" : "refused";
  if (pack === "served") {
    const paths = (await readArchive(path.join(dir, "pkg.zip"), { stripWrapper: false })).files.map((f) => f.path);
    if (!paths.includes("skills/s/SKILL.md")) pack = "refused";
    if (c.file !== undefined && !paths.includes(`skills/s/${c.file}`)) pack = "refused";
  } else if (packed.stdout + packed.stderr === "") notes.push("pack refused without saying why");

  // deploy: the package directory into a workspace; the skill is found and (file level) its file is there.
  const deployed = await run([
    "deploy",
    "pkg",
    "--workspace",
    "ws",
    "--no-entrypoints",
    "--sandbox",
    "process",
    "--json",
  ]);
  let deploy: Answer = deployed.code === 0 ? "served" : "refused";
  if (deploy === "served") {
    const result = JSON.parse(deployed.stdout) as { skills: Array<{ id: string; directory: string }> }; // directory: relative to the workspace
    const skill = result.skills.find((s) => s.id === "s");
    if (skill === undefined) deploy = "refused";
    else if (c.file !== undefined && !existsSync(path.join(dir, "ws", skill.directory, ...c.file.split("/"))))
      deploy = "refused";
  } else if (deployed.stderr.trim() === "") notes.push("deploy refused without saying why");

  // Every provider method.
  const provider = new LocalFileSystemSkillProvider(path.join(dir, "skills"));
  const ids = await provider.discover();
  const answers: Answer[] = [];
  const attempt = async (what: string, call: () => Promise<unknown>): Promise<void> => {
    try {
      await call();
      answers.push("served");
    } catch (error) {
      if (!(error instanceof AgentSkillsError)) throw error;
      if (error.message.includes(dir)) notes.push(`${what} names a host path`);
      answers.push("refused");
    }
  };
  if (c.level === "skill") {
    answers.push(ids.includes("s") ? "served" : "refused");
    if (!ids.includes("s") && !provider.skipped().some((s) => s.where === "s"))
      notes.push("discover dropped the skill silently");
    await attempt("getMetadata", () => provider.getMetadata("s"));
    await attempt("getBody", () => provider.getBody("s"));
    await attempt("listFiles", () => provider.listFiles("s"));
  } else {
    const name = c.file!.split("/")[1]!;
    await attempt("readFile", () => provider.readFile("s", c.file!));
    await attempt("getReference", () => provider.getReference("s", name));
    // listResources lists names without sizes: for a file over the limit it can only list it (reading is refused).
    if (c.label !== "a file over the limit") {
      await attempt("listResources", async () => {
        if (!(await provider.listResources("s")).references.includes(name)) throw new AgentSkillsError("not listed");
      });
    }
    // listFiles lists the tree: a link leaving the skill or dangling refuses the listing; a file over the limit is
    // listed with its real size (that is the report), and only reading it is refused.
    await attempt("listFiles", async () => {
      const files = await provider.listFiles("s");
      const entry = files.find((f) => f.path === c.file);
      if (entry === undefined || entry.size > provider.maxFileBytes)
        throw new AgentSkillsError(`listed as ${JSON.stringify(entry)}`);
    });
  }
  const providerAnswer: Answer = answers.every((a) => a === "served")
    ? "served"
    : answers.every((a) => a === "refused")
      ? "refused"
      : "refused";
  if (new Set(answers).size > 1) notes.push(`provider methods disagree: ${answers.join(", ")}`);

  return { observed: { validate, list, show, export: exportAnswer, pack, deploy, provider: providerAnswer }, notes };
}

describe("one skill-directory policy: every command and every provider method agree", () => {
  for (const c of CASES) {
    it(`${c.label} → ${c.answer} everywhere`, async () => {
      const t = await layout(c);
      try {
        const { observed, notes } = await observe(c, t.dir);
        expect(notes).toEqual([]);
        expect(observed).toEqual({
          validate: c.answer,
          list: c.answer,
          show: c.answer,
          export: c.answer,
          pack: c.answer,
          deploy: c.answer,
          provider: c.answer,
        });
      } finally {
        await t.cleanup();
      }
    });
  }
});

describe("the issue's reproductions", () => {
  let t: TempTree;
  beforeAll(async () => {
    t = await tempTree({ "skills/a/SKILL.md": skillMd("a"), "skills/other/SKILL.md": OTHER }, "skillport-repro-");
    await mkdir(path.join(t.dir, "skills", "linked"));
    await symlink("../other/SKILL.md", path.join(t.dir, "skills", "linked", "SKILL.md"));
  });
  afterAll(() => t.cleanup());

  it("validate and list agree on a symlinked SKILL.md: counted as refused by both, never dropped", async () => {
    const validated = JSON.parse((await runInProcess(["validate", "skills", "--format", "json"], t.dir)).stdout);
    expect(validated.summary.skills).toBe(3);
    expect(validated.skills.find((s: { path: string }) => s.path === "skills/linked/SKILL.md")).toMatchObject({
      valid: false,
    });
    const listed = JSON.parse((await runInProcess(["list", "skills", "--json"], t.dir)).stdout);
    expect(listed.skills.map((s: { id: string }) => s.id)).toEqual(["a", "other"]);
    expect(listed.failures).toEqual([
      {
        source: "fs:skills",
        id: "linked",
        message: expect.stringContaining("SKILL.md is a symbolic link that leads outside the skill"),
      },
    ]);
  });
});
