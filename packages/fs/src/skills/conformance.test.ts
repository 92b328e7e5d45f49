import { mkdtempSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONFINEMENT_SIBLING_CONTENT,
  CONFINEMENT_SIBLING_DIR,
  CONFINEMENT_SIBLING_FILE,
  conformanceFixtureSkill,
  describeConformance,
  runConformance,
  writeConformanceFixture,
} from "@skillport/testing";
import { LocalFileSystemSkillProvider } from "./provider.js";
import { FileSystemSkillRepository } from "./repository.js";
import { removeDir } from "@skillport/testing";

// Roots are made synchronously because the kit's filesystem cases need the root when tests are declared.
const providerRoot = mkdtempSync(path.join(os.tmpdir(), "skillport-fs-conformance-"));
const repositoryRoot = mkdtempSync(path.join(os.tmpdir(), "skillport-fs-repo-conformance-"));

beforeAll(async () => {
  await writeConformanceFixture(providerRoot);
  // The repository writes its own fixture through save(); the kit's sibling directory is added by hand.
  const repo = new FileSystemSkillRepository(repositoryRoot);
  await repo.save([conformanceFixtureSkill()]);
  const sibling = path.join(repositoryRoot, CONFINEMENT_SIBLING_DIR, ...CONFINEMENT_SIBLING_FILE.split("/"));
  await mkdir(path.dirname(sibling), { recursive: true });
  await writeFile(sibling, CONFINEMENT_SIBLING_CONTENT);
});
afterAll(async () => {
  await removeDir(providerRoot);
  await removeDir(repositoryRoot);
});

describeConformance(
  "LocalFileSystemSkillProvider",
  () => new LocalFileSystemSkillProvider(providerRoot),
  { describe, it },
  {
    contentLimit: { makeProvider: () => new LocalFileSystemSkillProvider(providerRoot, { maxFileBytes: 4 }) },
    filesystem: { root: providerRoot },
  },
);

// The same provider with asynchronous reads only (what network filesystems should use).
describeConformance(
  "LocalFileSystemSkillProvider {syncReads: false}",
  () => new LocalFileSystemSkillProvider(providerRoot, { syncReads: false }),
  { describe, it },
  {
    contentLimit: {
      makeProvider: () => new LocalFileSystemSkillProvider(providerRoot, { maxFileBytes: 4, syncReads: false }),
    },
    filesystem: { root: providerRoot },
  },
);

describeConformance(
  "FileSystemSkillRepository",
  () => new FileSystemSkillRepository(repositoryRoot),
  { describe, it },
  {
    contentLimit: { makeProvider: () => new FileSystemSkillRepository(repositoryRoot, { maxFileBytes: 4 }) },
    filesystem: { root: repositoryRoot },
  },
);

describe("the whole kit in one report", () => {
  it("passes every case for the provider", async () => {
    const report = await runConformance(() => new LocalFileSystemSkillProvider(providerRoot), {
      contentLimit: { makeProvider: () => new LocalFileSystemSkillProvider(providerRoot, { maxFileBytes: 4 }) },
      filesystem: { root: providerRoot },
    });
    expect(report.failed).toEqual([]);
    expect(report.passed.length).toBeGreaterThanOrEqual(52);
  });
});
