import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { createPlugin } from "./create.js";
import { fastgptTool, fastgptToolSet, seedTool, seedToolSet, tempPlugins } from "./__fixtures__/plugins.js";

const temp = tempPlugins();
afterEach(() => temp.cleanup());

const repoModules = fileURLToPath(new URL("../../../../node_modules/", import.meta.url));

/**
 * What `npm install` would give a created plugin, as links into this repository's node_modules — plus
 * `@fastgpt-plugin/sdk-factory` as `npm i @fastgpt-plugin/sdk-factory@npm:@skillport/plugin` would install it.
 */
async function linkDependencies(dir: string): Promise<void> {
  const links: [string, string][] = [
    ["@skillport/plugin", "@skillport/plugin"],
    ["@fastgpt-plugin/sdk-factory", "@skillport/plugin"],
    ["zod", "zod"],
    ["vitest", "vitest"],
    ["typescript", "typescript"],
    ["@types/node", "@types/node"],
  ];
  for (const [name, target] of links) {
    await mkdir(join(dir, "node_modules", name, ".."), { recursive: true });
    await symlink(join(repoModules, target), join(dir, "node_modules", name), "dir");
  }
}

function run(dir: string, script: string, args: string[]) {
  const result = spawnSync(process.execPath, [join(repoModules, script), ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", CI: "1" },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe("created templates, once their dependencies are installed", () => {
  it.each(["tool", "tool-suite"] as const)(
    "%s: type-checks, with the seed's templates verbatim beside it, and its own tests pass",
    async (type) => {
      const parent = await temp.make({});
      const { dir } = await createPlugin({ name: `t-${type}`, type, cwd: parent });
      await linkDependencies(dir);
      // The seed's two templates, with either import path, type-check under the created tsconfig.json (strict).
      const seeds = {
        "seed-tool.ts": seedTool,
        "seed-tool-set.ts": seedToolSet,
        "fastgpt-tool.ts": fastgptTool,
        "fastgpt-tool-set.ts": fastgptToolSet,
      };
      for (const [file, text] of Object.entries(seeds)) await writeFile(join(dir, file), text);
      const tsc = run(dir, "typescript/bin/tsc", ["-p", "tsconfig.json"]);
      expect(tsc.output.trim()).toBe("");
      expect(tsc.status).toBe(0);
      const tests = run(dir, "vitest/vitest.mjs", ["run", "--root", dir]);
      expect(tests.status, tests.output).toBe(0);
      expect(tests.output).toMatch(type === "tool" ? /Tests\s+2 passed/ : /Tests\s+3 passed/);
    },
  );
});

describe("a created plugin's own tests inside another vitest project (this repository)", () => {
  // Under the repository, with no npm install: imports resolve through the repository's node_modules, and the
  // plugin's own vitest.config.ts must win over the repository's config (which would find "No test files").
  const inside = fileURLToPath(new URL("../../.test-created/", import.meta.url));
  afterEach(() => rm(inside, { recursive: true, force: true }));

  it.each(["tool", "tool-suite"] as const)(
    "%s: `vitest run` in the plugin folder runs its spec and passes",
    async (type) => {
      await mkdir(inside, { recursive: true });
      const parent = await mkdtemp(join(inside, "p-"));
      const { dir } = await createPlugin({ name: type === "tool" ? "InsideTool" : "InsideSet", type, cwd: parent });
      const tests = run(dir, "vitest/vitest.mjs", ["run"]);
      expect(tests.status, tests.output).toBe(0);
      expect(tests.output).toMatch(type === "tool" ? /Tests\s+2 passed/ : /Tests\s+3 passed/);
    },
    120_000,
  );
});

describe("a created plugin's build dependencies", () => {
  // esbuild is an optional peer of the CLI and of this package (decision 0295): the plugin's own build script needs
  // it, in the range the toolchain declares.
  it("lists esbuild in devDependencies, in plugin-host's peer range", async () => {
    const { dir } = await createPlugin({ name: "needs-esbuild", type: "tool", cwd: await temp.make({}) });
    const created = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      devDependencies?: Record<string, string>;
    };
    const host = JSON.parse(await readFile(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
      peerDependencies?: Record<string, string>;
    };
    expect(host.peerDependencies?.esbuild).toBeDefined();
    expect(created.devDependencies?.esbuild).toBe(host.peerDependencies?.esbuild);
  });
});
