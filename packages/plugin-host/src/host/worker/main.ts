/**
 * The worker process: loads one plugin, then runs calls the host sends over its channel (fd 3, ./frames.ts).
 * It runs under Node's permission model (and, where available, in a bubblewrap network namespace), so
 * everything here must work with read access to the plugin only and write access to one temp dir.
 * It never prints: stdout/stderr are captured by the host for crash diagnosis and never shown to callers.
 */
import { Socket } from "node:net";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type {
  CallMessage,
  HostToWorker,
  InvokeMethod,
  InvokeTuple,
  StreamResponseEvent,
  WorkerError,
  WorkerToHost,
} from "../protocol.js";
import { readDefinition, type RunnablePlugin } from "./definition.js";
import { encodeFrame, FrameReader, MAX_FRAME_BYTES } from "./frames.js";
import { formatIssues } from "./issues.js";

let plugin: RunnablePlugin | undefined;
let pluginDir = "";
let nextInvokeId = 1;
const pendingInvokes = new Map<number, (result: InvokeTuple) => void>();
const activeCalls = new Set<number>();

/** fd 3: the host's channel (a socket pair), framed by ./frames.ts. */
const channel = new Socket({ fd: 3, readable: true, writable: true });

/** Throws (DataCloneError) when the message cannot be serialised; callers turn that into a failure. */
function send(message: WorkerToHost): void {
  channel.write(encodeFrame(message));
}

// The host is trusted; its messages are not size-capped here.
const reader = new FrameReader(MAX_FRAME_BYTES, (event) => {
  if (event.kind === "message") onMessage(event.message as HostToWorker);
  else process.exit(1); // a broken stream from the host: nothing sensible is left to do
});
channel.on("data", (chunk: Buffer) => reader.push(chunk));

function onMessage(raw: HostToWorker): void {
  switch (raw.kind) {
    case "init":
      void init(raw.entry, raw.pluginId, raw.toolIds);
      break;
    case "call":
      void runCall(raw);
      break;
    case "invoke-result": {
      const resolve = pendingInvokes.get(raw.invokeId);
      pendingInvokes.delete(raw.invokeId);
      resolve?.(raw.result);
      break;
    }
  }
}

// The host owns our lifetime: when the channel closes, nobody can receive results any more.
channel.on("end", () => process.exit(0));
channel.on("error", () => process.exit(0));

async function init(entry: string, expectedPluginId: string, toolIds: readonly string[]): Promise<void> {
  pluginDir = dirname(entry);
  try {
    const loaded = readDefinition(await import(pathToFileURL(entry).href));
    if (loaded.pluginId !== expectedPluginId) {
      throw new Error(`index.js exports plugin "${loaded.pluginId}" but manifest.json says "${expectedPluginId}"`);
    }
    for (const id of toolIds) {
      if (!loaded.tools.has(id)) throw new Error(`manifest.json lists tool "${id}" but index.js does not define it`);
    }
    plugin = loaded;
    send({ kind: "ready" });
  } catch (error) {
    send({ kind: "init-failed", message: `could not load index.js: ${describe(error)}` });
  }
}

async function runCall(call: CallMessage): Promise<void> {
  activeCalls.add(call.callId);
  let outcome: { ok: true; output: unknown } | { ok: false; error: WorkerError };
  try {
    outcome = { ok: true, output: await execute(call) };
  } catch (error) {
    outcome = { ok: false, error: toWorkerError(error) };
  }
  activeCalls.delete(call.callId);
  try {
    send({ kind: "result", callId: call.callId, ...outcome });
  } catch (error) {
    // Structured clone refuses functions, symbols and the like in the output.
    const message = `output cannot be sent to the host: ${describe(error)}`;
    send({ kind: "result", callId: call.callId, ok: false, error: { code: "PLUGIN_OUTPUT_INVALID", message } });
  }
}

class ToolFailure extends Error {
  constructor(
    readonly code: WorkerError["code"],
    message: string,
  ) {
    super(message);
  }
}

async function execute(call: CallMessage): Promise<unknown> {
  const tool = plugin?.tools.get(call.toolId);
  if (!tool) throw new ToolFailure("PLUGIN_TOOL_NOT_FOUND", `no tool "${call.toolId}" in this plugin`);

  let secrets: unknown = call.secrets;
  if (tool.secretSchema) {
    const parsed = tool.secretSchema.safeParse(call.secrets ?? {});
    if (!parsed.success) throw new ToolFailure("PLUGIN_SECRETS_INVALID", formatIssues("secret", parsed.error.issues));
    secrets = parsed.data;
  }
  const input = tool.inputSchema.safeParse(call.input);
  if (!input.success) throw new ToolFailure("PLUGIN_INPUT_INVALID", formatIssues("input", input.error.issues));

  const output = await tool.handler(input.data, makeContext(call, secrets));

  const checked = tool.outputSchema.safeParse(output);
  if (!checked.success) throw new ToolFailure("PLUGIN_OUTPUT_INVALID", formatIssues("output", checked.error.issues));
  return checked.data;
}

function makeContext(call: CallMessage, secrets: unknown) {
  const reverse = (method: InvokeMethod) => (args?: unknown) => invoke(call.callId, method, args);
  return {
    systemVar: call.systemVar,
    secrets,
    streamResponse(data: StreamResponseEvent): void {
      // A stream after the call finished has nobody listening; drop it rather than confuse the next call.
      if (activeCalls.has(call.callId)) send({ kind: "stream", callId: call.callId, data });
    },
    invoke: {
      userInfo: reverse("userInfo"),
      teamInfo: reverse("teamInfo"),
      model: reverse("model"),
      dataset: reverse("dataset"),
      uploadFile: reverse("uploadFile"),
    },
  };
}

/** A reverse call never throws: every failure comes back as `[null, failure]`. */
function invoke(callId: number, method: InvokeMethod, args: unknown): Promise<InvokeTuple> {
  const invokeId = nextInvokeId++;
  return new Promise((resolve) => {
    pendingInvokes.set(invokeId, resolve);
    try {
      send({ kind: "invoke", callId, invokeId, method, args });
    } catch (error) {
      pendingInvokes.delete(invokeId);
      const en = `ctx.invoke.${method}: the arguments cannot be sent to the host: ${describe(error)}`;
      const zh = `ctx.invoke.${method} 的参数无法发送给宿主`;
      resolve([null, { reason: { en, "zh-CN": zh }, error: "InvalidArgument", code: "INVALID_ARGUMENT", message: en }]);
    }
  });
}

const SANDBOX_ACTIONS: Record<string, string> = {
  FileSystemRead: "read a file outside the plugin package",
  FileSystemWrite: "write a file outside its temp directory",
  ChildProcess: "start a child process",
  WorkerThreads: "start a worker thread",
  InspectorAccess: "use the inspector",
  WASI: "use WASI",
  Addons: "load a native addon",
};

function toWorkerError(error: unknown): WorkerError {
  if (error instanceof ToolFailure) return { code: error.code, message: error.message };
  const denied = findAccessDenied(error);
  if (denied) {
    const action = SANDBOX_ACTIONS[denied] ?? `use ${denied}`;
    return { code: "PLUGIN_SANDBOX_DENIED", message: `the plugin sandbox refused to let the tool ${action} (${denied})` };
  }
  return { code: "PLUGIN_HANDLER_ERROR", message: describe(error) };
}

/** Node's permission model throws ERR_ACCESS_DENIED with a `permission` field; plugins often wrap it as a cause. */
function findAccessDenied(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return undefined;
    const { code, permission, cause } = current as { code?: unknown; permission?: unknown; cause?: unknown };
    if (code === "ERR_ACCESS_DENIED") return typeof permission === "string" ? permission : "a restricted API";
    if (code === "ERR_DLOPEN_DISABLED") return "Addons";
    current = cause;
  }
  return undefined;
}

/** An error's message without the staged package's absolute location. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return pluginDir === "" ? text : text.split(pathToFileURL(pluginDir).href).join("<plugin>").split(pluginDir).join("<plugin>");
}
