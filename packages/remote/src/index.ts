// Read-only remote skill sources: each keeps a local copy and serves it through @skillport/fs (docs/sources.md).
export {
  SnapshotSource,
  type Snapshot,
  type SnapshotSourceOptions,
  type SnapshotStatus,
  type SyncResult,
  type RemoteSkipped,
} from "./snapshot-source.js";
export { RemoteSourceError, type RemoteSourceErrorCode } from "./errors.js";
export { defaultCacheRoot } from "./cache-dir.js";
export { GitSkillSource, type GitSkillSourceOptions } from "./git/source.js";
export { parseGitAddress, type GitAddress } from "./git/address.js";
export { HttpSkillSource, WELL_KNOWN_INDEX_PATH, type HttpSkillSourceOptions } from "./http/source.js";
export { parseDiscoveryIndex, type IndexEntry, type ParsedIndex } from "./http/index-format.js";
export { NpmSkillSource, type NpmSkillSourceOptions } from "./npm/source.js";
// Bounded GETs (size, deadline, retries, same-origin redirects) for other packages that fetch by HTTP (runners).
export { fetchBounded, type HttpFetchOptions, type HttpResult } from "./http/fetch-bounded.js";
