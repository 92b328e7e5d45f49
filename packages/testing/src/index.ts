// The provider conformance kit: run it from any provider's tests (docs/conformance.md).
export {
  conformanceCases,
  TRAVERSAL_IDENTIFIERS,
  type ConformanceCase,
  type ConformanceContext,
  type ConformanceOptions,
  type ConformanceSuite,
  type FilesystemConformanceOptions,
} from "./cases/index.js";
export {
  describeConformance,
  runConformance,
  runConformanceCase,
  type ConformanceFailureReport,
  type ConformanceReport,
  type ProviderFactory,
  type TestRunnerFunctions,
} from "./run.js";
export {
  conformanceFixtureSkill,
  fixtureSkillMd,
  writeConformanceFixture,
  CONFINEMENT_SIBLING_CONTENT,
  CONFINEMENT_SIBLING_DIR,
  CONFINEMENT_SIBLING_FILE,
  CONFORMANCE_SKILL_ID,
  FIXTURE_BODY,
  FIXTURE_FRONTMATTER,
  FIXTURE_RESOURCES,
  MISSING_RESOURCE_NAME,
  MISSING_SKILL_ID,
  type WrittenFixture,
} from "./fixture.js";
export { ConformanceFailure } from "./check.js";
// Real temp trees (files, folders, links) and the folder-swapping attacker, for every package's tests.
export {
  makeTempDir,
  removeDir,
  skillMd,
  startFolderSwapper,
  tempTree,
  writeTree,
  type TempTree,
  type TreeNode,
  type TreeSpec,
} from "./temp-tree.js";
// Real clients from npm (and the Node 22 they need) for oracle tests, installed once into a cache folder.
export { npmTools, type NpmTools } from "./npm-tools.js";
// A free port on 127.0.0.1 for servers a test starts.
export { freePort } from "./free-port.js";
