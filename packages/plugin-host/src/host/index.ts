export { PluginHost, DEFAULT_MAX_RESULT_BYTES } from "./host.js";
export type {
  PluginHostOptions,
  RunOptions,
  PluginEvent,
  InvokeResult,
  SandboxStatus,
  NeutralTool,
  ToolExecuteContext,
} from "./host.js";
export { PluginHostError, isPluginHostErrorCode } from "./errors.js";
export type { PluginHostErrorCode } from "./errors.js";
export { DEFAULT_POOL_OPTIONS } from "./pool.js";
export type { PoolOptions, PoolStats } from "./pool.js";
export { createLocalServices, dispatchInvoke, safeFileName, DEFAULT_INVOKE_LIMITS } from "./services.js";
export type { HostServices, ServiceCall, LocalServicesOptions, InvokeLimits } from "./services.js";
export { contentHash } from "./load.js";
export type { PluginIdentity, PluginToolInfo } from "./load.js";
export { REDACTED, createRedactor, redactText, secretValues, textRedactor, type TextRedactor } from "./redact.js";
export type { BubblewrapMode } from "./sandbox.js";
export type { InvokeTuple } from "./protocol.js";
