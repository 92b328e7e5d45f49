import { confinementCases } from "./confinement.js";
import { contentLimitCases } from "./content-limit.js";
import { coreCases } from "./core.js";
import { fileCases } from "./files.js";
import { filesystemCases } from "./filesystem.js";
import type { ConformanceCase, ConformanceOptions } from "./types.js";

export type {
  ConformanceCase,
  ConformanceContext,
  ConformanceOptions,
  ConformanceSuite,
  FilesystemConformanceOptions,
} from "./types.js";
export { TRAVERSAL_IDENTIFIERS } from "./shared.js";

/**
 * The cases to run for a provider with the given capabilities: the 48 reference cases, Skillport's confinement and
 * file-access cases, and the opt-in content-limit (4) and filesystem suites.
 */
export function conformanceCases(options: ConformanceOptions = {}): ConformanceCase[] {
  return [
    ...coreCases(options),
    ...(options.contentLimit ? contentLimitCases() : []),
    ...confinementCases(options),
    ...fileCases(options),
    ...(options.filesystem ? filesystemCases(options.filesystem) : []),
  ];
}
