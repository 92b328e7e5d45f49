// `plugin run` says how to fix the two mistakes new users make first (issue 9, item 9): a file passed to --input
// without its `@`, and a plugin that fails with Node's bare "fetch failed" because it runs without network access.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findBubblewrap } from "@skillport/sandbox";

const main = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const PLUGIN = `import { createToolHandler, defineTool } from '@skillport/plugin';
import z from 'zod';
export default defineTool({
  manifest: { pluginId: 'fetcher', version: '1.0.0', name: { en: 'Fetcher', 'zh-CN': 'Fetcher' }, description: { en: 'Fetches a URL', 'zh-CN': 'Fetches a URL' }, permission: [] },
  handler: createToolHandler({
    inputSchema: z.object({ url: z.string().meta({ title: 'URL', isToolParam: true }) }),
    outputSchema: z.object({ status: z.number().meta({ title: 'Status' }) }),
    handler: async ({ url }) => ({ status: (await fetch(url)).status }),
  }),
});
`;

let work: string;
const skillport = (...args: string[]) => {
  const result = spawnSync(process.execPath, [main, ...args], {
    cwd: work,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

beforeAll(async () => {
  if (!existsSync(main)) throw new Error("build the CLI first: npx tsc -b packages/cli");
  work = await mkdtemp(join(tmpdir(), "skillport-plugin-hints-"));
  await chmod(work, 0o755); // the build loader runs as an unprivileged user and must read the plugin folder
  await writeFile(join(work, "index.ts"), PLUGIN);
  await writeFile(join(work, "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n');
  await writeFile(join(work, "README.md"), "# fetcher\n");
  await writeFile(join(work, "in.json"), '{"url":"http://127.0.0.1:9/"}');
  const built = skillport("plugin", "build", "--entry", ".");
  expect(built.code, built.stderr).toBe(0);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("skillport plugin run: hints", () => {
  it("--input naming a file without @ says to write @file", () => {
    const result = skillport("plugin", "run", ".", "--input", "in.json");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--input is not valid JSON");
    expect(result.stderr).toContain('(to read the file "in.json", write --input @in.json)');
  });

  it("--input that is simply bad JSON gets no file hint", () => {
    const result = skillport("plugin", "run", ".", "--input", "{url:");
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("write --input @");
  });

  it.skipIf(findBubblewrap() === undefined && process.env.SKILLPORT_REQUIRE_SYSTEM_DEPS !== "1")(
    "a network failure inside the isolated sandbox points at --allow-network",
    () => {
      const result = skillport("plugin", "run", ".", "--input", "@in.json");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("pass --allow-network to let it connect");
    },
  );
});
