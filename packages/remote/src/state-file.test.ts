// A copy's state.json is read through its schema (decision 0321): a truncated or foreign file is said through the
// `warn` option and the copy is fetched again, never read in silence as "no copy".
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir } from "@skillport/testing";
import { GitSkillSource } from "./git/source.js";
import { HttpSkillSource } from "./http/source.js";
import type { SnapshotSource } from "./snapshot-source.js";
import { stateFile } from "./test-support/cache.js";
import { commitAndPush, makeRepo } from "./test-support/git-servers.js";
import { publish, startHttpServer, type TestHttpServer } from "./test-support/http-server.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody.\n`;

let root: string;
let server: TestHttpServer;
let gitUrl: string;
let n = 0;

beforeAll(async () => {
  root = await makeTempDir("skillport-state-file-");
  server = await startHttpServer();
  publish(server, [{ name: "alpha", type: "skill-md", file: "alpha/SKILL.md", bytes: skill("alpha") }]);
  const { bare, work } = await makeRepo(root, "team");
  await commitAndPush(work, { "skills/alpha/SKILL.md": skill("alpha") });
  gitUrl = `file://${bare}`;
});
afterAll(async () => {
  await server.stop();
  await removeDir(root);
});

const kinds = [
  [
    "http",
    (cacheDir: string, warn?: (m: string) => void) =>
      new HttpSkillSource({ url: server.url, cacheDir, retries: 0, ...(warn && { warn }) }),
  ],
  [
    "git",
    (cacheDir: string, warn?: (m: string) => void) =>
      new GitSkillSource({ url: gitUrl, cacheDir, ...(warn && { warn }) }),
  ],
] as const;

const damaged = [
  ["truncated", (text: string) => text.slice(0, text.length >> 1), /state file .*state\.json is not JSON/],
  [
    "a wrong type inside",
    (text: string) => JSON.stringify({ ...JSON.parse(text), checkedAt: "yesterday" }),
    /not the expected shape: at checkedAt, expected number/,
  ],
  ["foreign", () => JSON.stringify(["not", "a", "state"]), /not the expected shape: at the top/],
] as const;

describe.each(kinds)("%s source state.json", (_kind, open) => {
  it("a good state file is used without a word", async () => {
    const cacheDir = path.join(root, `cache-${++n}`);
    expect(await open(cacheDir).discover()).toEqual(["alpha"]);
    const warnings: string[] = [];
    const again: SnapshotSource = open(cacheDir, (m) => warnings.push(m));
    expect(await again.discover()).toEqual(["alpha"]);
    expect(warnings).toEqual([]);
  });

  it.each(damaged)(
    "%s: the state file is said through warn, and the copy is fetched again and the file replaced",
    async (_label, damage, said) => {
      const cacheDir = path.join(root, `cache-${++n}`);
      expect(await open(cacheDir).discover()).toEqual(["alpha"]);
      const file = stateFile(cacheDir);
      await writeFile(file, damage(await readFile(file, "utf8")));
      const warnings: string[] = [];
      expect(await open(cacheDir, (m) => warnings.push(m)).discover()).toEqual(["alpha"]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(said);
      expect(warnings[0]).toMatch(/fetching a new copy/);
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
        version: 1,
        checkedAt: expect.any(Number) as number,
      });
      // Without the option nothing is printed and nothing throws.
      await writeFile(file, damage(await readFile(file, "utf8")));
      expect(await open(cacheDir).discover()).toEqual(["alpha"]);
    },
  );
});
