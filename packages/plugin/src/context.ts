import type { Readable } from "node:stream";
import type { PluginPermission } from "./manifest.js";

/** Who and where a tool runs for; filled in by the host. */
export interface SystemVar {
  app: { id: string; name: string };
  chat: { chatId: string; uid?: string };
  /** Short-lived token the host issued for this run; plugins pass it on, never log it. */
  invokeToken: string;
  /** The run's start time as an ISO 8601 string. */
  time: string;
}

/** A progress message shown to the user while the tool runs. */
export interface StreamResponseEvent {
  type: "answer" | "fastAnswer";
  content: string;
}

/** Why a reverse call into the host failed, readable by users in English and Chinese. */
export interface InvokeFailure {
  reason: { en: string; "zh-CN": string; "zh-Hant"?: string };
  /** A stable machine-readable name, e.g. `PermissionDenied`, `NotAvailable`, `UploadFailed`. */
  error: string;
  code?: string;
  message?: string;
  data?: unknown;
}

/**
 * Reverse calls never throw: they resolve to `[result, null]` or `[null, failure]`. Mutable tuples, as upstream's
 * `Result`, so plugins' own `[T | null, unknown]` helpers accept them.
 */
export type InvokeResult<T> = [T, null] | [null, InvokeFailure];

/** The caller's identity, shaped as FastGPT's `InvokeUserInfoOutputType`. */
export interface UserInfo {
  username: string;
  contact?: string | null | undefined;
  memberName?: string | null | undefined;
  orgs: { pathId: string; name: string }[];
  groups: { name: string }[];
}

/** A WeCom (企业微信) corp access token, shaped as FastGPT's `InvokeWecomCorpTokenOutputType`. */
export interface WecomCorpToken {
  access_token: string;
  expires_in: number;
}

export interface TeamInfo {
  teamId: string;
  name: string;
  avatar?: string;
  memberCount?: number;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A chat-completion request against a model the host has configured. */
export interface ModelChatRequest {
  /** A model id known to the host; the host's default model when omitted. */
  model?: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
}

export interface ModelChatResult {
  model: string;
  content: string;
  usage?: { inputTokens: number; outputTokens: number };
}

/** A search over knowledge bases (datasets) the host exposes to the app. */
export interface DatasetSearchRequest {
  datasetIds: string[];
  query: string;
  limit?: number;
  /** Minimum similarity in [0, 1]. */
  similarity?: number;
}

export interface DatasetSearchItem {
  id: string;
  datasetId: string;
  content: string;
  score: number;
  sourceName?: string;
}

export interface DatasetSearchResult {
  items: DatasetSearchItem[];
}

export interface UploadFileRequest {
  fileName?: string | undefined;
  contentType?: string | undefined;
  /** File contents: a stream, bytes (a Buffer is a Uint8Array) or, beyond upstream, text. */
  file: Readable | Buffer | Uint8Array | string;
}

/** Upstream's `InvokeUploadFileOutputType`: the file's metadata (all optional) and where to fetch it. */
export interface UploadFileResult {
  accessURL: string;
  fileName?: string | undefined;
  contentType?: string | undefined;
  size?: number | undefined;
  etag?: string | undefined;
  createTime?: Date | undefined;
}

/** Reverse calls into the host; each needs the permission in `INVOKE_PERMISSIONS` declared in the manifest. */
export interface HostInvoke {
  userInfo(): Promise<InvokeResult<UserInfo>>;
  teamInfo(): Promise<InvokeResult<TeamInfo>>;
  model(request: ModelChatRequest): Promise<InvokeResult<ModelChatResult>>;
  dataset(request: DatasetSearchRequest): Promise<InvokeResult<DatasetSearchResult>>;
  uploadFile(request: UploadFileRequest): Promise<InvokeResult<UploadFileResult>>;
  getWecomCorpToken(): Promise<InvokeResult<WecomCorpToken>>;
}

export type InvokeCapability = keyof HostInvoke;

/** The permission each reverse call needs. */
export const INVOKE_PERMISSIONS: Readonly<Record<InvokeCapability, PluginPermission>> = Object.freeze({
  userInfo: "userInfo:read",
  teamInfo: "teamInfo:read",
  model: "model:read",
  dataset: "dataset:read",
  uploadFile: "file-upload:allow",
  getWecomCorpToken: "teamInfo:read",
});

export const INVOKE_CAPABILITIES = Object.keys(INVOKE_PERMISSIONS) as InvokeCapability[];

/** What a handler receives besides its input. `Secrets` is the parsed secret schema (undefined without one). */
export interface ToolHandlerContext<Secrets = Record<string, unknown> | undefined> {
  readonly systemVar: SystemVar;
  readonly secrets: Secrets;
  readonly invoke: HostInvoke;
  streamResponse(event: StreamResponseEvent): void;
}

export function invokeSuccess<T>(value: T): InvokeResult<T> {
  return [value, null];
}

export function invokeFailure<T = never>(failure: InvokeFailure): InvokeResult<T> {
  return [null, failure];
}

/** The failure a host returns when the manifest lacks the permission a reverse call needs. */
export function permissionDenied(capability: InvokeCapability): InvokeFailure {
  const permission = INVOKE_PERMISSIONS[capability];
  return {
    reason: {
      en: `ctx.invoke.${capability} needs the "${permission}" permission; add it to manifest.permission`,
      "zh-CN": `ctx.invoke.${capability} 需要 "${permission}" 权限，请在 manifest.permission 中声明`,
    },
    error: "PermissionDenied",
    code: "PERMISSION_DENIED",
    data: { permission },
  };
}
