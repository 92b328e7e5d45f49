import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeConformance, runConformance, writeConformanceFixture, CONFORMANCE_SKILL_ID } from "@skillport/testing";
import { exportSkill } from "@skillport/pack";
import { makeTempDir, removeDir } from "@skillport/testing";
import { GitSkillSource } from "./git/source.js";
import { HttpSkillSource } from "./http/source.js";
import { NpmSkillSource } from "./npm/source.js";
import { commitAndPush, makeRepo } from "./test-support/git-servers.js";
import { publish, startHttpServer, type TestHttpServer } from "./test-support/http-server.js";

// The provider conformance kit through each remote source, against a real git repository, a real HTTP server on
// 127.0.0.1 and a real node_modules tree. Each factory gets a fresh source over a shared cache, as a restart would.
let root: string;
let repoUrl: string;
let server: TestHttpServer;
let project: string;

beforeAll(async () => {
  root = await makeTempDir("skillport-remote-conformance-");
  const { work, bare } = await makeRepo(root, "kit");
  await writeConformanceFixture(work);
  await commitAndPush(work, {}, "fixture");
  repoUrl = `file://${bare}`;

  const fixture = path.join(root, "fixture");
  mkdirSync(fixture);
  await writeConformanceFixture(fixture);
  server = await startHttpServer();
  publish(server, [
    {
      name: CONFORMANCE_SKILL_ID,
      type: "archive",
      file: "kit.skill",
      bytes: (await exportSkill(path.join(fixture, CONFORMANCE_SKILL_ID))).archive,
    },
  ]);

  project = path.join(root, "project");
  const pkg = path.join(project, "node_modules", "kit-skills");
  mkdirSync(path.join(pkg, "skills"), { recursive: true });
  await import("node:fs/promises").then((fs) =>
    fs.writeFile(path.join(pkg, "package.json"), JSON.stringify({ name: "kit-skills", version: "1.0.0" })),
  );
  await writeConformanceFixture(path.join(pkg, "skills"));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await removeDir(root);
});

const git = (maxFileBytes?: number) => () =>
  new GitSkillSource({
    url: repoUrl,
    cacheDir: path.join(root, "cache", `git-${maxFileBytes ?? "all"}`),
    ...(maxFileBytes !== undefined && { maxFileBytes }),
  });
const http = (maxFileBytes?: number) => () =>
  new HttpSkillSource({
    url: server.url,
    cacheDir: path.join(root, "cache", `http-${maxFileBytes ?? "all"}`),
    retries: 0,
    ...(maxFileBytes !== undefined && { maxFileBytes }),
  });
const npm = (maxFileBytes?: number) => () =>
  new NpmSkillSource({ package: "kit-skills", from: project, ...(maxFileBytes !== undefined && { maxFileBytes }) });

for (const [label, make] of [
  ["GitSkillSource", git],
  ["HttpSkillSource", http],
  ["NpmSkillSource", npm],
] as const) {
  describeConformance(label, make(), { describe, it }, { contentLimit: { makeProvider: make(4) } });

  describe(`${label}: the whole kit in one report`, () => {
    it("passes every case", async () => {
      const report = await runConformance(make(), { contentLimit: { makeProvider: make(4) } });
      expect(report.failed).toEqual([]);
      expect(report.passed.length).toBeGreaterThanOrEqual(52);
    }, 120_000);
  });
}
