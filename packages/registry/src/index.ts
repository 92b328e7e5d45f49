// @skillport/registry: a skill registry teams can run (decisions 0340–0349; docs/registry.md).
export {
  RegistryStore,
  DEFAULT_REGISTRY_LIMITS,
  type RegistryStoreOptions,
  type RegistryLimits,
  type PublishRequest,
  type PublishResult,
  type ListQuery,
} from "./store.js";
export { FileBlobStore, type BlobStore } from "./blobs.js";
export { RegistryError, type RegistryErrorCode } from "./errors.js";
export { REGISTRY_SCHEMA_VERSION } from "./schema.js";
export type { RunPackageView } from "./run-packages.js";
export {
  SCOPES,
  type Scope,
  type Actor,
  type FileEntry,
  type AuditSummary,
  type HoldState,
  type VersionView,
  type SkillSummary,
  type SkillView,
  type LogEntry,
} from "./types.js";
export {
  createRegistryApp,
  BUILT_IN_MODULES,
  DEFAULT_RATE_LIMIT,
  type RegistryAppOptions,
  type RateLimit,
} from "./http/app.js";
export { openApiDocument } from "./http/openapi.js";
export {
  route,
  type RouteDef,
  type RouteModule,
  type RouteInput,
  type ResponseDoc,
  type Method,
} from "./http/route.js";
export { DISCOVERY_SCHEMA } from "./http/well-known.js";
export { serveRegistry, type ServeRegistryOptions, type RunningRegistry } from "./serve.js";
export { renderMarkdown, DEFAULT_MAX_MARKDOWN_BYTES } from "./web/markdown.js";
export { WEB_CSP } from "./web/module.js";
