/**
 * Reverse calls (`ctx.invoke.*`): the embedding application implements `HostServices`; the host checks the
 * manifest's permissions and the arguments first, and turns every outcome into a `[result, null]` or
 * `[null, failure]` tuple (a reverse call never throws inside the plugin).
 */
import { createHash } from "node:crypto";
import { writeFileAtomic } from "@skillport/fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  INVOKE_PERMISSIONS,
  permissionDenied,
  type DatasetSearchRequest,
  type DatasetSearchResult,
  type InvokeCapability,
  type InvokeFailure,
  type ModelChatRequest,
  type ModelChatResult,
  type PluginPermission,
  type SystemVar,
  type TeamInfo,
  type UploadFileRequest,
  type UploadFileResult,
  type UserInfo,
  type WecomCorpToken,
} from "@skillport/plugin";
import { z } from "zod";
import type { InvokeTuple } from "./protocol.js";

/** Who is calling: passed to every service so one application can serve many plugins. */
export interface ServiceCall {
  pluginId: string;
  version: string;
  toolId: string;
  systemVar: SystemVar;
}

/** What the embedding application provides. A missing method answers "not configured". Throwing = failure. */
export interface HostServices {
  userInfo?(call: ServiceCall): Promise<UserInfo> | UserInfo;
  teamInfo?(call: ServiceCall): Promise<TeamInfo> | TeamInfo;
  model?(request: ModelChatRequest, call: ServiceCall): Promise<ModelChatResult> | ModelChatResult;
  dataset?(request: DatasetSearchRequest, call: ServiceCall): Promise<DatasetSearchResult> | DatasetSearchResult;
  /** `file` always arrives as bytes or text: the worker reads a plugin's stream before sending it. */
  uploadFile?(request: UploadFileRequest, call: ServiceCall): Promise<UploadFileResult> | UploadFileResult;
  /** FastGPT's `getWecomCorpToken` (guarded by `teamInfo:read`). */
  wecomCorpToken?(call: ServiceCall): Promise<WecomCorpToken> | WecomCorpToken;
}

export interface InvokeLimits {
  /** Largest file a tool may upload through the host. */
  maxUploadBytes: number;
}

export const DEFAULT_INVOKE_LIMITS: InvokeLimits = { maxUploadBytes: 20 * 1024 * 1024 };

// Arguments come from plugin code: check them before the application sees them.
const ARGUMENT_SCHEMAS: Record<InvokeCapability, z.ZodType> = {
  userInfo: z.unknown(),
  teamInfo: z.unknown(),
  model: z.object({
    model: z.string().optional(),
    messages: z.array(z.object({ role: z.enum(["system", "user", "assistant"]), content: z.string() })).min(1),
    temperature: z.number().optional(),
    maxTokens: z.number().int().positive().optional(),
  }),
  dataset: z.object({
    datasetIds: z.array(z.string()).min(1),
    query: z.string().min(1),
    limit: z.number().int().positive().optional(),
    similarity: z.number().min(0).max(1).optional(),
  }),
  uploadFile: z.object({
    fileName: z.string().optional(),
    contentType: z.string().optional(),
    file: z.union([z.instanceof(Uint8Array), z.string()]),
  }),
  getWecomCorpToken: z.unknown(),
};

export async function dispatchInvoke(
  method: InvokeCapability,
  args: unknown,
  context: {
    permissions: readonly PluginPermission[];
    services: HostServices;
    call: ServiceCall;
    limits: InvokeLimits;
  },
): Promise<InvokeTuple> {
  if (!Object.hasOwn(INVOKE_PERMISSIONS, method)) {
    return [
      null,
      failure("InvalidArgument", `ctx.invoke.${String(method)} does not exist`, `ctx.invoke.${String(method)} 不存在`),
    ];
  }
  if (!context.permissions.includes(INVOKE_PERMISSIONS[method])) return [null, permissionDenied(method)];
  const parsed = ARGUMENT_SCHEMAS[method].safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` (${issue.path.join(".")})` : "";
    const en = `ctx.invoke.${method}: invalid arguments${where}: ${issue?.message ?? "invalid"}`;
    return [null, failure("InvalidArgument", en, `ctx.invoke.${method} 的参数无效${where}`)];
  }
  try {
    const result = await callService(method, parsed.data, context);
    return result === NOT_CONFIGURED
      ? [
          null,
          failure(
            "NotConfigured",
            `ctx.invoke.${method} is not configured on this host`,
            `宿主未配置 ctx.invoke.${method}`,
          ),
        ]
      : [result, null];
  } catch (error) {
    if (error instanceof UploadTooLargeError) {
      return [
        null,
        failure("UploadTooLarge", error.message, `上传文件超过宿主限制（${context.limits.maxUploadBytes} 字节）`),
      ];
    }
    const message = error instanceof Error ? error.message : String(error);
    return [
      null,
      failure("ServiceError", `ctx.invoke.${method} failed: ${message}`, `ctx.invoke.${method} 调用失败：${message}`),
    ];
  }
}

const NOT_CONFIGURED = Symbol("not configured");

class UploadTooLargeError extends Error {}

async function callService(
  method: InvokeCapability,
  args: unknown,
  { services, call, limits }: { services: HostServices; call: ServiceCall; limits: InvokeLimits },
): Promise<unknown> {
  switch (method) {
    case "userInfo":
      return services.userInfo ? await services.userInfo(call) : NOT_CONFIGURED;
    case "teamInfo":
      return services.teamInfo ? await services.teamInfo(call) : NOT_CONFIGURED;
    case "model":
      return services.model ? await services.model(args as ModelChatRequest, call) : NOT_CONFIGURED;
    case "dataset":
      return services.dataset ? await services.dataset(args as DatasetSearchRequest, call) : NOT_CONFIGURED;
    case "getWecomCorpToken":
      return services.wecomCorpToken ? await services.wecomCorpToken(call) : NOT_CONFIGURED;
    case "uploadFile": {
      const request = args as UploadFileRequest & { file: Uint8Array | string };
      const size = typeof request.file === "string" ? Buffer.byteLength(request.file) : request.file.byteLength;
      if (size > limits.maxUploadBytes) {
        throw new UploadTooLargeError(
          `ctx.invoke.uploadFile: the file is ${size} bytes, over the host's limit of ${limits.maxUploadBytes}`,
        );
      }
      return services.uploadFile ? await services.uploadFile(request, call) : NOT_CONFIGURED;
    }
  }
}

function failure(error: string, en: string, zh: string): InvokeFailure {
  return { reason: { en, "zh-CN": zh }, error, message: en };
}

export interface LocalServicesOptions {
  /** Where uploadFile writes; uploads are refused ("not configured") without it. */
  uploadDir?: string;
  user?: UserInfo;
  team?: TeamInfo;
  model?: HostServices["model"];
  dataset?: HostServices["dataset"];
  wecomCorpToken?: HostServices["wecomCorpToken"];
}

/**
 * A self-contained implementation for the CLI, tests and local runs: uploads go to a folder and come back as
 * `file://` URLs with a sha256 etag; user and team come from configuration; model and dataset only when supplied.
 */
export function createLocalServices(options: LocalServicesOptions = {}): HostServices {
  const services: HostServices = {};
  if (options.user) {
    const user = options.user;
    services.userInfo = () => structuredClone(user);
  }
  if (options.team) {
    const team = options.team;
    services.teamInfo = () => structuredClone(team);
  }
  if (options.model) services.model = options.model;
  if (options.dataset) services.dataset = options.dataset;
  if (options.wecomCorpToken) services.wecomCorpToken = options.wecomCorpToken;
  if (options.uploadDir !== undefined) {
    const root = options.uploadDir;
    services.uploadFile = (request) => saveUpload(root, request);
  }
  return services;
}

async function saveUpload(root: string, request: UploadFileRequest): Promise<UploadFileResult> {
  const file = request.file;
  if (!(file instanceof Uint8Array) && typeof file !== "string") throw new Error("the file must be bytes or text");
  const bytes = typeof file === "string" ? Buffer.from(file, "utf8") : file;
  const etag = createHash("sha256").update(bytes).digest("hex");
  // One folder per content hash: the same name uploaded twice with different bytes never overwrites.
  const dir = join(root, etag.slice(0, 16));
  const target = join(dir, safeFileName(request.fileName));
  await writeFileAtomic(target, bytes);
  const contentType = request.contentType ?? "application/octet-stream";
  return {
    accessURL: pathToFileURL(target).href,
    fileName: basename(target),
    contentType,
    size: bytes.byteLength,
    etag,
    createTime: new Date(),
  };
}

/** A plugin-chosen name reduced to one harmless path segment. */
export function safeFileName(name: string | undefined): string {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "")
    .slice(0, 120);
  return cleaned === "" ? "file" : cleaned;
}
