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
  WorkerWarning,
} from "../protocol.js";
import { readDefinition, type RunnablePlugin } from "./definition.js";
import { encodeFrame, FrameReader, MAX_FRAME_BYTES } from "./frames.js";
import { errorDetail, renderError } from "./error-text.js";
import { formatIssues } from "./issues.js";
import { legacyKeysStandingIn, withUndeclaredKeys } from "./input.js";

let plugin: RunnablePlugin | undefined;
let pluginDir = "";
let nextInvokeId = 1;
const pendingInvokes = new Map<number, (result: InvokeTuple) => void>();
const activeCalls = new Set<number>();
/** Calls already answered by the uncaughtException handler: their handler's late result is dropped. */
const abandoned = new Set<number>();

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

// A plugin's stray rejection (a driver's background promise nobody awaited) must not kill the calls in flight:
// Node would exit the worker. The call that caused it still settles (or times out) on its own.
process.on("unhandledRejection", () => {});

// An exception thrown outside any call's promise chain (a socket callback) would make Node exit the worker and fail
// every call in flight as a crash. When exactly one call is running it is the cause: fail that call with the
// plugin's own message. With several, none can be blamed: each settles or times out on its own. The worker stays.
process.on("uncaughtException", (error) => {
  const [only, ...others] = activeCalls;
  if (only === undefined || others.length > 0) return;
  activeCalls.delete(only);
  abandoned.add(only);
  const detail = errorDetail(error);
  const message = describe(`uncaught error in the plugin: ${renderError(error)}`);
  send({
    kind: "result",
    callId: only,
    ok: false,
    error: { code: "PLUGIN_HANDLER_ERROR", message, ...(detail === undefined ? {} : { detail }) },
  });
});

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
    send({ kind: "init-failed", message: `could not load index.js: ${describe(renderError(error))}` });
  }
}

async function runCall(call: CallMessage): Promise<void> {
  activeCalls.add(call.callId);
  let outcome: { ok: true; output: unknown; warnings: WorkerWarning[] } | { ok: false; error: WorkerError };
  try {
    outcome = { ok: true, ...(await execute(call)) };
  } catch (error) {
    outcome = { ok: false, error: toWorkerError(error) };
  }
  activeCalls.delete(call.callId);
  if (abandoned.delete(call.callId)) return;
  try {
    send({ kind: "result", callId: call.callId, ...outcome });
  } catch (error) {
    // Structured clone refuses functions, symbols and the like in the output.
    const message = `output cannot be sent to the host: ${describe(renderError(error))}`;
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

async function execute(call: CallMessage): Promise<{ output: unknown; warnings: WorkerWarning[] }> {
  const tool = plugin?.tools.get(call.toolId);
  if (!tool) throw new ToolFailure("PLUGIN_TOOL_NOT_FOUND", `no tool "${call.toolId}" in this plugin`);

  let secrets: unknown = call.secrets;
  if (tool.secretSchema) {
    const parsed = tool.secretSchema.safeParse(call.secrets ?? {});
    if (!parsed.success) throw new ToolFailure("PLUGIN_SECRETS_INVALID", formatIssues("secret", parsed.error.issues));
    // As with input: upstream hands secrets over unparsed, and tool sets read keys their shared schema lacks.
    secrets = withUndeclaredKeys(call.secrets ?? {}, parsed.data);
  }
  const warnings: WorkerWarning[] = [];
  const input = tool.inputSchema.safeParse(call.input);
  let handlerInput: unknown;
  if (input.success) {
    // Declared fields are validated; undeclared ones (legacy keys plugins still read) pass through, as upstream
    // hands the handler its input unparsed.
    handlerInput = withUndeclaredKeys(call.input, input.data);
  } else {
    const problem = formatIssues("input", input.error.issues);
    const standIns =
      call.strictInput === true ? undefined : legacyKeysStandingIn(tool.inputSchema, call.input, input.error.issues);
    if (standIns === undefined) throw new ToolFailure("PLUGIN_INPUT_INVALID", problem);
    // Declared fields are missing and undeclared keys may stand in for them: the tool's own code decides, on the
    // input as given, as in FastGPT.
    const keys = standIns
      .slice(0, 5)
      .map((key) => JSON.stringify(key))
      .join(", ");
    warnings.push({
      code: "PLUGIN_INPUT_INVALID",
      message: `${problem}; the input carries keys inputSchema does not declare (${keys}), so the tool's own code decides`,
    });
    handlerInput = call.input;
  }
  const output = await tool.handler(handlerInput, makeContext(call, secrets));

  const checked = tool.outputSchema.safeParse(output);
  if (checked.success) return { output: checked.data, warnings };
  const problem = formatIssues("output", checked.error.issues);
  // Upstream returns whatever the handler returned: a mismatch is a warning unless the host asks for strictness.
  if (call.strictOutput === true) throw new ToolFailure("PLUGIN_OUTPUT_INVALID", problem);
  return {
    output,
    warnings: [
      ...warnings,
      { code: "PLUGIN_OUTPUT_INVALID", message: `the output does not match outputSchema: ${problem}` },
    ],
  };
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
      uploadFile: async (request?: unknown) => invoke(call.callId, "uploadFile", await uploadArgs(request)),
      getWecomCorpToken: reverse("getWecomCorpToken"),
    },
  };
}

/** A stream cannot cross the IPC channel: read it into bytes first (the host caps the size it accepts). */
async function uploadArgs(request: unknown): Promise<unknown> {
  if (typeof request !== "object" || request === null) return request;
  const file = (request as { file?: unknown }).file;
  if (!isReadable(file)) return request;
  const chunks: Uint8Array[] = [];
  for await (const chunk of file) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Uint8Array));
  return { ...request, file: Buffer.concat(chunks) };
}

function isReadable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { pipe?: unknown }).pipe === "function" &&
    Symbol.asyncIterator in value
  );
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
      const en = `ctx.invoke.${method}: the arguments cannot be sent to the host: ${describe(renderError(error))}`;
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
    return {
      code: "PLUGIN_SANDBOX_DENIED",
      message: `the plugin sandbox refused to let the tool ${action} (${denied})`,
    };
  }
  const detail = errorDetail(error);
  return {
    code: "PLUGIN_HANDLER_ERROR",
    message: describe(renderError(error)),
    ...(detail === undefined ? {} : { detail }),
  };
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

/** A message without the staged package's absolute location. */
function describe(text: string): string {
  return pluginDir === ""
    ? text
    : text.split(pathToFileURL(pluginDir).href).join("<plugin>").split(pluginDir).join("<plugin>");
}
