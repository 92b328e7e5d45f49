export { SkillServer, type SkillServerOptions, type SnapshotChange } from "./server.js";
export type { Refusal, ServedFile, ServedSkill, Snapshot, SnapshotLimits } from "./snapshot.js";
export { CATALOG_URI, SCRIPT_TOOL_NAME, SEARCH_TOOL_NAME } from "./fallback.js";
export { McpServeError, serveHttp, type HttpServeHandle, type HttpServeOptions } from "./http.js";
export { createMcpRequestHandler, type McpRequestHandler, type McpRequestHandlerOptions } from "./handler.js";
export { hostOriginGuard, isLoopback, type HostOriginGuardOptions } from "./guards.js";
export { serveStdioSkills } from "./stdio.js";
export { McpSkillSource, McpSourceError, type McpSkillSourceOptions } from "./client-source.js";
