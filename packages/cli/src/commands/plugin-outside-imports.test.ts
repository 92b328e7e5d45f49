// `skillport plugin build|check|pack` refuse imports from outside the plugin unless --allow-outside-imports
// (issue 8, hole 6). End to end through the BUILT CLI (npx tsc -b packages/cli).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const seedTool = await readFile(new URL("../../../plugin/test/seed-tool.ts", import.meta.url), "utf8");
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n';
const SECRET = "cli-builder-secret-51c2";

let work: string;

beforeAll(async () => {
  if (!existsSync(main)) throw new Error("build the CLI first: npx tsc -b packages/cli");
  work = await mkdtemp(join(tmpdir(), "skillport-plugin-outside-"));
  await chmod(work, 0o755);
  await writeFile(join(work, "shared.json"), JSON.stringify({ token: SECRET }));
  await mkdir(join(work, "probe"));
  // The seed tool, plus one import of a file beside the plugin folder that ends up in the bundle.
  await writeFile(
    join(work, "probe", "index.ts"),
    `import shared from "../shared.json";\nexport const token = shared.token;\n${seedTool}`,
  );
  await writeFile(join(work, "probe", "logo.svg"), LOGO);
});
afterAll(() => rm(work, { recursive: true, force: true }));

function skillport(...args: string[]) {
  const result = spawnSync(process.execPath, [main, ...args], {
    cwd: work,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("skillport plugin: imports from outside the plugin", () => {
  it("build, check and pack refuse them, naming the import, and exit 1", () => {
    for (const args of [["build"], ["check"], ["pack"]]) {
      const result = skillport("plugin", ...args, "--entry", "probe");
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout + result.stderr).toContain(
        'import "../shared.json" in index.ts resolves to ../shared.json, outside the plugin folder',
      );
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    }
    expect(existsSync(join(work, "probe", "dist"))).toBe(false);
  }, 120_000);

  it("--allow-outside-imports bundles them", async () => {
    const result = skillport("plugin", "build", "--entry", "probe", "--allow-outside-imports", "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(work, "probe", "dist", "index.js"), "utf8")).toContain(SECRET);
  }, 120_000);
});
