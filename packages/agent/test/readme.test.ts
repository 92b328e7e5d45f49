// The README's "Give your agent skills" examples: each ```ts block is compiled by tsc (strict, nodenext) against the
// built packages and run against the scripted model server, from the repository root (so examples/skills resolves).
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "./scripted-server.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const readme = readFileSync(path.join(repo, "README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("## Give your agent skills"),
  readme.indexOf("\n## ", readme.indexOf("## Give your agent skills") + 5),
);
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
// Inside the repository, so `@skillport/*` resolve to the workspace packages' built dist.
const work = mkdtempSync(path.join(repo, "packages/agent/test/.readme-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("README: give your agent skills", () => {
  it("has an OpenAI and an Anthropic example of about 15 lines", () => {
    expect(blocks).toHaveLength(2);
    for (const block of blocks) expect(block.trim().split("\n").length).toBeLessThanOrEqual(18);
  });

  it("both examples compile (strict nodenext) and run against the scripted server", { timeout: 180_000 }, async () => {
    blocks.forEach((block, i) => writeFileSync(path.join(work, `example-${i}.ts`), `${block}\nexport {};\n`));
    writeFileSync(
      path.join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          rootDir: ".",
          outDir: "out",
          skipLibCheck: true,
          types: ["node"],
        },
        include: ["*.ts"],
      }),
    );
    const tsc = spawnSync(process.execPath, [path.join(repo, "node_modules/typescript/bin/tsc"), "-p", work], {
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    const server = await startScriptedServer([
      { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: "csv-insights", path: "SKILL.md" } }] },
      { text: "Columns with gaps: price." },
      { toolCalls: [{ name: "load_skill_through_path", arguments: { skillId: "git-changelog", path: "SKILL.md" } }] },
      { text: "## 1.2.0" },
    ]);
    try {
      const node = (file: string) =>
        promisify(execFile)(process.execPath, [path.join(work, "out", file)], {
          cwd: repo,
          env: {
            PATH: process.env.PATH ?? "",
            OPENAI_API_KEY: "sk-readme",
            OPENAI_BASE_URL: `${server.url}/v1`,
            ANTHROPIC_API_KEY: "sk-ant-readme",
            ANTHROPIC_BASE_URL: server.url,
          },
        });
      expect((await node("example-0.js")).stdout).toBe("→ load_skill_through_path\nColumns with gaps: price.\n");
      expect((await node("example-1.js")).stdout).toBe("## 1.2.0 [ 'git-changelog_fs:skills' ]\n");
      expect(server.requests.map((r) => r.protocol)).toEqual(["openai", "openai", "anthropic", "anthropic"]);
      expect(server.requests[1]?.toolResults[0]).toContain("Successfully loaded skill csv-insights_");
    } finally {
      await server.close();
    }
  });
});
