import type { SkillProvider } from "@skillport/core";

/** Which group a case belongs to; the runner gives content-limit cases the limited provider. */
export type ConformanceSuite = "core" | "content-limit" | "confinement" | "files" | "filesystem";

export interface ConformanceContext {
  /** A fresh provider serving the fixture (for content-limit cases: the one made with the tiny limit). */
  provider: SkillProvider;
  /** Makes another provider like `provider` (cases that change the fixture on disk first use this). */
  makeProvider: () => Promise<SkillProvider>;
}

export interface ConformanceCase {
  /** Stable id, e.g. `7.bytes.scripts`; the number is the reference suite's. */
  id: string;
  title: string;
  suite: ConformanceSuite;
  run(ctx: ConformanceContext): Promise<void>;
}

export interface FilesystemConformanceOptions {
  /** The directory `writeConformanceFixture` wrote to (the provider's root). Enables the symlink cases. */
  root: string;
}

export interface ConformanceOptions {
  /** The provider implements listResources. Default true. */
  supportsListing?: boolean;
  /** The provider implements discover. Default true. */
  supportsDiscovery?: boolean;
  /** The provider implements listFiles/readFile. Default true. */
  supportsFileAccess?: boolean;
  /**
   * Adds the content-limit suite: `makeProvider` must serve the fixture with a size limit smaller than every fixture
   * file (4 bytes works).
   */
  contentLimit?: { makeProvider: () => SkillProvider | Promise<SkillProvider> };
  /** Filesystem extras (symlinks that escape the skill). */
  filesystem?: FilesystemConformanceOptions;
}
