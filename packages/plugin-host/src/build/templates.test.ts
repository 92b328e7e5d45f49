import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { createPlugin } from "./create.js";
import { tempPlugins } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

const repoModules = fileURLToPath(new URL("../../../../node_modules/", import.meta.url));

/** What `npm install` would give a created plugin, as links into this repository's node_modules. */
async function linkDependencies(dir: string): Promise<void> {
  for (const name of ["@skillport/plugin", "zod", "vitest", "typescript", "@types/node"]) {
    await mkdir(join(dir, "node_modules", name, ".."), { recursive: true });
    await symlink(join(repoModules, name), join(dir, "node_modules", name), "dir");
  }
}

function run(dir: string, script: string, args: string[]) {
  const result = spawnSync(process.execPath, [join(repoModules, script), ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", CI: "1" } });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe("created templates, once their dependencies are installed", () => {
  it.each(["tool", "tool-suite"] as const)("%s: type-checks and its own tests pass", async (type) => {
    const parent = await temp.make({});
    const { dir } = await createPlugin({ name: `t-${type}`, type, cwd: parent });
    await linkDependencies(dir);
    const tsc = run(dir, "typescript/bin/tsc", ["-p", "tsconfig.json"]);
    expect(tsc.output.trim()).toBe("");
    expect(tsc.status).toBe(0);
    const tests = run(dir, "vitest/vitest.mjs", ["run", "--root", dir]);
    expect(tests.status, tests.output).toBe(0);
    expect(tests.output).toMatch(type === "tool" ? /Tests\s+2 passed/ : /Tests\s+3 passed/);
  });
});
