// Issue 19 weakness "Huge bodies and descriptions": `show` and `list` over a folder and over SQLite, with a 64 MiB
// body, description and resource. The built CLI runs in a child process whose peak memory is read at exit; every
// source applies the one size policy (10 MiB per file, 256 KiB of frontmatter; decision 0256) before reading.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { Skill } from "@skillport/core";
import { SqlSkillRepository } from "@skillport/sql";
import { writeTree } from "@skillport/testing";
import { skillMd } from "../test-support.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "..", "dist", "main.js");
const MiB = 1024 * 1024;
const PAYLOAD = 64 * MiB;
// What a refused read may cost over a small skill's `show`: 2x the 10 MiB file limit. The payload is 64 MiB.
const BOUND = 2 * 10 * MiB;

let dir: string;
let preload: string;
let sqlite: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "skillport-show-sizes-"));
  preload = path.join(dir, "peak.mjs");
  // Written at exit: the process's peak resident memory, to the file named by SKILLPORT_TEST_PEAK.
  writeFileSync(
    preload,
    'import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(process.env.SKILLPORT_TEST_PEAK, String(process.resourceUsage().maxRSS * 1024)));\n',
  );
  const big = "a".repeat(PAYLOAD);
  await writeTree(path.join(dir, "skills"), {
    "small/SKILL.md": skillMd("small"),
    "small/assets/small.txt": "x\n",
    "big-body/SKILL.md": skillMd("big-body", "A huge body. Use in tests.", big),
    // Under the file limit, so the frontmatter limit is what refuses it (a 64 MiB one is refused by its file size).
    "big-desc/SKILL.md": `---\nname: big-desc\ndescription: ${big.slice(0, 8 * MiB)}\n---\n# Body\n`,
    "big-file/SKILL.md": skillMd("big-file"),
    "big-file/assets/big.txt": big,
  });
  sqlite = path.join(dir, "skills.db");
  const repository = await SqlSkillRepository.open({ connection: `sqlite:${sqlite}` });
  const skill = (name: string, resource: string) =>
    new Skill({
      frontmatter: { name, description: `The ${name} skill. Use in tests.` },
      body: `# ${name}\n`,
      resources: new Map([[resource, "x\n"]]),
    });
  await repository.save([
    skill("small", "assets/small.txt"),
    skill("big-body", "assets/a.txt"),
    skill("big-desc", "assets/a.txt"),
    skill("big-file", "assets/big.txt"),
  ]);
  await repository.close();
  // Forged behind the repository's back, as a hostile writer of the database would (skill_md_bytes stays small).
  const db = new Database(sqlite);
  const fill = `replace(hex(zeroblob(${PAYLOAD / 2})), '0', 'a')`;
  db.exec(`update agentscope_skills set skill_content = ${fill} where name = 'big-body'`);
  db.exec(`update agentscope_skills set description = ${fill} where name = 'big-desc'`);
  db.exec(`update agentscope_skill_resources set resource_content = ${fill} where resource_path = 'assets/big.txt'`);
  db.close();
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; peak: number }> {
  const peakFile = path.join(dir, `peak-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", preload, cli, ...args],
      { cwd: dir, maxBuffer: 256 * MiB, env: { ...process.env, NO_COLOR: "1", SKILLPORT_TEST_PEAK: peakFile } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr, peak: Number(readFileSync(peakFile, "utf8")) });
      },
    );
  });
}

/** [label, the address `list` takes, how `show` names a skill there]. */
const SOURCES: Array<[string, string, (name: string) => string[]]> = [
  ["a folder", "skills", (name) => [`skills/${name}`]],
  ["SQLite", "sqlite:skills.db", (name) => [name, "-r", "sqlite:skills.db"]],
];

describe.each(SOURCES)(
  "show and list over %s: huge content is refused before it is read",
  (_label, address, skillArgs) => {
    let baseline: number;
    beforeAll(async () => {
      const small = await run(["show", ...skillArgs("small")]);
      expect(small.code).toBe(0);
      baseline = small.peak;
    }, 60_000);

    it.each([
      ["a huge body", "big-body", [], /big-body.*larger than (the )?10485760/],
      ["a huge resource", "big-file", ["--file", "assets/big.txt"], /assets\/big\.txt.*larger than (the )?10485760/],
    ])("%s: one clear line, exit 2, bounded memory", async (_what, name, extra, message) => {
      const result = await run(["show", ...skillArgs(name), ...extra]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(result.peak - baseline).toBeLessThan(BOUND);
    });

    it("a huge description: list names the problem and lists the rest, in bounded memory", async () => {
      const result = await run(["list", address]);
      expect(result.stdout).toContain("small");
      expect(`${result.stdout}${result.stderr}`).toMatch(
        /big-desc[^\n]*frontmatter is larger than the limit of 262144 bytes/,
      );
      expect(result.stdout.length + result.stderr.length).toBeLessThan(64 * 1024);
      expect(result.peak - baseline).toBeLessThan(BOUND);
    });
  },
);
