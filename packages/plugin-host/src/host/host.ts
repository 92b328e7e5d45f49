/**
 * PluginHost: one loaded plugin, its worker pool, and the API callers use — `run()` (events as they happen),
 * `invoke()` (collected), `tools()` (neutral tool descriptions for agents). Everything that leaves the host
 * passes through the secret redactor.
 */
import { randomUUID } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BuiltManifest, JsonSchema, StreamResponseEvent, SystemVar } from "@skillport/plugin";
import { PluginHostError, type PluginHostErrorCode } from "./errors.js";
import { EventChannel } from "./events.js";
import { stagePlugin, type PluginIdentity, type PluginToolInfo, type StagedPlugin } from "./load.js";
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./package-files.js";
import { DEFAULT_POOL_OPTIONS, WorkerPool, type PoolOptions, type PoolStats } from "./pool.js";
import { createPartitioner, type Partitioner } from "./partition.js";
import { compileOutputCheck, toPlainData, type OutputCheck } from "./output.js";
import { createRedactor } from "./redact.js";
import { findBubblewrap } from "@skillport/sandbox";
import { workerCommand, type BubblewrapMode } from "./sandbox.js";
import {
  createLocalServices,
  DEFAULT_INVOKE_LIMITS,
  dispatchInvoke,
  type HostServices,
  type InvokeLimits,
} from "./services.js";
import { installWorkerScript } from "./worker-script.js";
import { WorkerProcess } from "./worker-process.js";

export interface PluginHostOptions {
  /** Pool policy; defaults follow the upstream host (see DEFAULT_POOL_OPTIONS). */
  pool?: Partial<PoolOptions>;
  /** V8 old-space cap per worker (`--max-old-space-size`). Default 512. */
  maxHeapMb?: number;
  /** A worker must load the plugin within this time. Default 10 000 ms. */
  readyTimeoutMs?: number;
  /** Let plugin code reach the network. Default false. */
  allowNetwork?: boolean;
  /**
   * "auto" (default): run workers in bubblewrap when it works here, else without (status says so);
   * "require": refuse to load without it; "off": never use it (no network isolation).
   */
  bubblewrap?: BubblewrapMode;
  /** What `ctx.invoke.*` reaches. Default: nothing configured (every reverse call fails with NotConfigured). */
  services?: HostServices;
  invokeLimits?: Partial<InvokeLimits>;
  packageLimits?: Partial<PackageLimits>;
  /** Parent of the host's private work dir (staged package, worker temp dirs). Default os.tmpdir(). */
  tempDir?: string;
  /** The node binary workers run. Default process.execPath. */
  nodePath?: string;
  /**
   * The largest message a worker may send (a result, a stream event, a reverse call's arguments), in serialised
   * bytes. Judged from the message's header before it is buffered; a larger one stops the worker and fails its
   * calls with PLUGIN_LIMIT_EXCEEDED. Default 32 MiB (room for an uploadFile at its 20 MiB default limit).
   */
  maxResultBytes?: number;
  /**
   * An output that breaks the tool's outputSchema (checked on the host) fails the call with PLUGIN_OUTPUT_INVALID.
   * Default false: as upstream, the output is returned as the handler gave it, after a `warning` event.
   */
  strictOutput?: boolean;
  /**
   * Input the tool's inputSchema rejects fails the call with PLUGIN_INPUT_INVALID, always. Default false: when the
   * only problems are declared fields that are absent and the input carries keys the schema does not declare (a
   * legacy key the tool maps itself, mathExprVal's `数学表达式` for `expr`), the handler gets the input as given
   * after a `warning` event, as FastGPT lets the tool's own schema decide.
   */
  strictInput?: boolean;
}

export const DEFAULT_MAX_RESULT_BYTES = 32 * 1024 * 1024;

export interface RunOptions {
  secrets?: Record<string, unknown>;
  systemVar?: Partial<SystemVar>;
}

/**
 * What a run yields, in order: any number of `stream` events, then one `response` (after any `warning` events) or
 * one `error`. An error's `detail` is what the tool threw as JSON-safe data (secrets redacted), when it says more
 * than the message.
 */
export type PluginEvent =
  | { type: "stream"; data: StreamResponseEvent }
  | { type: "warning"; data: string; code: PluginHostErrorCode }
  | { type: "response"; data: unknown }
  | { type: "error"; data: string; code: PluginHostErrorCode; detail?: unknown };

export interface InvokeResult {
  output: unknown;
  streams: StreamResponseEvent[];
}

export interface SandboxStatus {
  /** Node's permission model confines files, child processes and worker threads (always on). */
  permissionModel: true;
  /** Workers run inside bubblewrap (own pid/ipc/uts namespaces, minimal root). */
  bubblewrap: boolean;
  /** Plugin code cannot open network connections. False without bubblewrap or with allowNetwork. */
  networkIsolated: boolean;
  maxHeapMb: number;
}

/** A tool description any agent layer can adapt: JSON Schema input and an execute function. */
export interface NeutralTool {
  /** The child id `run()` takes. */
  id: string;
  /** A model-safe name (`[A-Za-z0-9_-]`, at most 64 chars) derived from the plugin id and child id. */
  name: string;
  description: string;
  inputSchema: JsonSchema;
  execute(args: unknown, context?: ToolExecuteContext): Promise<unknown>;
}

export interface ToolExecuteContext extends RunOptions {
  onStream?(event: StreamResponseEvent): void;
}

export class PluginHost {
  readonly identity: PluginIdentity;
  readonly manifest: BuiltManifest;
  readonly status: SandboxStatus;
  readonly #staged: StagedPlugin;
  readonly #pool: WorkerPool;
  readonly #workDir: string;
  readonly #services: HostServices;
  readonly #invokeLimits: InvokeLimits;
  /** Each tool's output schema, checked here on the host (the worker's own check is plugin-controlled code). */
  readonly #outputChecks: ReadonlyMap<string, OutputCheck>;
  /** Keyed hash of a call's secrets: workers are never shared between different secret sets. */
  readonly #partition: Partitioner = createPartitioner();
  readonly #strictOutput: boolean;
  readonly #strictInput: boolean;
  /** Every worker process from spawn to exit, so close() can stop them all before deleting the work dir. */
  readonly #workers: Set<WorkerProcess>;
  #nextCallId = 1;
  #closed: Promise<void> | undefined;

  private constructor(
    staged: StagedPlugin,
    workDir: string,
    status: SandboxStatus,
    pool: WorkerPool,
    workers: Set<WorkerProcess>,
    options: PluginHostOptions,
  ) {
    this.#workers = workers;
    this.#staged = staged;
    this.identity = staged.identity;
    this.manifest = staged.manifest;
    this.status = status;
    this.#workDir = workDir;
    this.#pool = pool;
    this.#services = options.services ?? createLocalServices();
    this.#invokeLimits = { ...DEFAULT_INVOKE_LIMITS, ...options.invokeLimits };
    this.#outputChecks = new Map(staged.tools.map((tool) => [tool.id, compileOutputCheck(tool.outputSchema)]));
    this.#strictOutput = options.strictOutput === true;
    this.#strictInput = options.strictInput === true;
  }

  /** Loads a built plugin (`dist/`, a folder containing `dist/`, or a `.pkg`). Workers start on the first call. */
  static async load(source: string, options: PluginHostOptions = {}): Promise<PluginHost> {
    const mode = options.bubblewrap ?? "auto";
    const bwrapPath = mode === "off" ? undefined : await findBubblewrap();
    if (mode === "require" && bwrapPath === undefined) {
      throw new PluginHostError(
        "PLUGIN_SANDBOX_UNAVAILABLE",
        "bubblewrap (bwrap) is required but is not installed or cannot create namespaces here",
      );
    }
    const maxHeapMb = options.maxHeapMb ?? 512;
    const allowNetwork = options.allowNetwork ?? false;
    const workDir = await mkdtemp(join(options.tempDir ?? tmpdir(), "skillport-plugin-host-"));
    try {
      // Workers run as a non-root sandbox user on a root host: they must be able to pass through (not list) it.
      await chmod(workDir, 0o711);
      const packageLimits = { ...DEFAULT_PACKAGE_LIMITS, ...options.packageLimits };
      const staged = await stagePlugin(source, join(workDir, "package"), packageLimits);
      const script = await installWorkerScript(join(workDir, "runtime"));
      const status: SandboxStatus = {
        permissionModel: true,
        bubblewrap: bwrapPath !== undefined,
        networkIsolated: bwrapPath !== undefined && !allowNetwork,
        maxHeapMb,
      };
      const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
      const workers = new Set<WorkerProcess>();
      const pool = new WorkerPool({ ...DEFAULT_POOL_OPTIONS, ...options.pool }, async (id, onExit) => {
        const writeDir = join(workDir, "workers", String(id));
        await mkdir(writeDir, { recursive: true });
        const command = await workerCommand({
          readPaths: [join(workDir, "package"), join(workDir, "runtime"), ...staged.providedRoots],
          writeDir,
          workerScript: script,
          maxHeapMb,
          allowNetwork,
          bwrapPath,
          nodePath: options.nodePath ?? process.execPath,
        });
        const worker = await WorkerProcess.start({
          id,
          command,
          entry: staged.entry,
          pluginId: staged.identity.pluginId,
          toolIds: staged.tools.map((tool) => tool.id),
          readyTimeoutMs,
          maxHeapMb,
          maxMessageBytes: options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
          onSpawn: (spawned) => workers.add(spawned),
          onExit: (gone) => {
            workers.delete(gone);
            void command.dispose();
            void rm(writeDir, { recursive: true, force: true });
            onExit(gone);
          },
        });
        return worker;
      });
      return new PluginHost(staged, workDir, status, pool, workers, options);
    } catch (error) {
      await rm(workDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The tools as the manifest describes them. */
  get toolInfo(): readonly PluginToolInfo[] {
    return this.#staged.tools;
  }

  stats(): PoolStats {
    return this.#pool.stats();
  }

  /** Starts a worker ahead of the first call (e.g. at application start); rejects with the start error. */
  async warmUp(): Promise<void> {
    try {
      await this.#pool.warmUp();
    } catch (error) {
      if (!(error instanceof PluginHostError)) throw error;
      throw new PluginHostError(error.code, `plugin "${this.identity.pluginId}": ${error.message}`);
    }
  }

  /** Runs one tool; yields stream events as they happen, then a response or an error. Never throws. */
  run(toolId: string, input: unknown, options: RunOptions = {}): AsyncIterable<PluginEvent> {
    const channel = new EventChannel<PluginEvent>();
    const redact = createRedactor(options.secrets);
    const fail = (error: PluginHostError) => {
      const detail = error.detail === undefined ? {} : { detail: redact(error.detail) };
      channel.push({
        type: "error",
        code: error.code,
        data: redact(`${this.#toolLabel(toolId)}: ${error.message}`),
        ...detail,
      });
      channel.end();
    };
    const problem = this.#checkCall(toolId, input, options);
    if (problem) {
      fail(problem);
      return channel;
    }
    const callId = this.#nextCallId++;
    const systemVar = this.#systemVar(callId, options.systemVar);
    const serviceCall = { pluginId: this.identity.pluginId, version: this.identity.version, toolId, systemVar };
    this.#pool.submit(
      {
        kind: "call",
        callId,
        toolId,
        input,
        secrets: options.secrets,
        systemVar,
        strictOutput: this.#strictOutput,
        strictInput: this.#strictInput,
      },
      {
        onStream: (data) => {
          // Only the two known fields cross: nothing else the worker put in the event reaches callers.
          if (isStreamEvent(data))
            channel.push({ type: "stream", data: redact({ type: data.type, content: data.content }) });
        },
        onInvoke: (method, args) =>
          dispatchInvoke(method, args, {
            permissions: this.manifest.permission,
            services: this.#services,
            call: serviceCall,
            limits: this.#invokeLimits,
          }),
        onDone: (outcome) => {
          if (!outcome.ok) return fail(outcome.error);
          let output: unknown;
          try {
            output = toPlainData(outcome.output);
          } catch (error) {
            return fail(
              error instanceof PluginHostError ? error : new PluginHostError("PLUGIN_OUTPUT_INVALID", String(error)),
            );
          }
          // The worker's own schema check is plugin-controlled code; the host's decides. Not strict (FastGPT's way):
          // the output is returned after a warning. Strict: the call fails.
          const invalid = this.#outputChecks.get(toolId)?.(output);
          if (invalid && this.#strictOutput) return fail(invalid);
          for (const warning of outcome.warnings) {
            channel.push({
              type: "warning",
              code: warning.code,
              data: redact(`${this.#toolLabel(toolId)}: ${warning.message}`),
            });
          }
          if (invalid && !outcome.warnings.some((warning) => warning.code === "PLUGIN_OUTPUT_INVALID")) {
            channel.push({
              type: "warning",
              code: "PLUGIN_OUTPUT_INVALID",
              data: redact(`${this.#toolLabel(toolId)}: ${invalid.message}`),
            });
          }
          channel.push({ type: "response", data: redact(output) });
          channel.end();
        },
      },
      this.#partition(options.secrets),
    );
    return channel;
  }

  /** Runs one tool and collects its streams; throws PluginHostError (secrets redacted) when it fails. */
  async invoke(toolId: string, input: unknown, options: RunOptions = {}): Promise<InvokeResult> {
    const streams: StreamResponseEvent[] = [];
    for await (const event of this.run(toolId, input, options)) {
      if (event.type === "stream") streams.push(event.data);
      else if (event.type === "response") return { output: event.data, streams };
      else if (event.type === "error")
        throw new PluginHostError(
          event.code,
          event.data,
          event.detail === undefined ? undefined : { detail: event.detail },
        );
    }
    throw new PluginHostError("PLUGIN_WORKER_CRASHED", `${this.#toolLabel(toolId)}: the run ended without a result`);
  }

  /** Neutral tool descriptions for the agent layer. */
  tools(): NeutralTool[] {
    const single = this.#staged.tools.length === 1 && this.manifest.children === undefined;
    return this.#staged.tools.map((tool) => ({
      id: tool.id,
      name: modelSafeName(single ? this.identity.pluginId : `${this.identity.pluginId}__${tool.id}`),
      description: tool.toolDescription || tool.description.en,
      inputSchema: tool.inputSchema,
      execute: async (args, context = {}) => {
        const { onStream, ...runOptions } = context;
        for await (const event of this.run(tool.id, args, runOptions)) {
          if (event.type === "stream") onStream?.(event.data);
          else if (event.type === "response") return event.data;
          else if (event.type === "error")
            throw new PluginHostError(
              event.code,
              event.data,
              event.detail === undefined ? undefined : { detail: event.detail },
            );
        }
        throw new PluginHostError(
          "PLUGIN_WORKER_CRASHED",
          `${this.#toolLabel(tool.id)}: the run ended without a result`,
        );
      },
    }));
  }

  /** Stops every worker, fails queued calls, and removes the host's work dir. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#pool.close();
      // Also stops workers still starting, which the pool does not hold yet.
      const closed = () => new PluginHostError("PLUGIN_HOST_CLOSED", "the host was closed");
      for (const worker of this.#workers) worker.kill(closed);
      await Promise.all([...this.#workers].map((worker) => worker.exited));
      await rm(this.#workDir, { recursive: true, force: true });
    })();
    return this.#closed;
  }

  #checkCall(toolId: string, input: unknown, options: RunOptions): PluginHostError | undefined {
    if (this.#closed) return new PluginHostError("PLUGIN_HOST_CLOSED", "the host is closed");
    if (!this.#staged.tools.some((tool) => tool.id === toolId)) {
      const known = this.#staged.tools.map((tool) => `"${tool.id}"`).join(", ");
      return new PluginHostError("PLUGIN_TOOL_NOT_FOUND", `no such tool (this plugin has ${known})`);
    }
    if (
      options.secrets !== undefined &&
      (typeof options.secrets !== "object" || options.secrets === null || Array.isArray(options.secrets))
    ) {
      return new PluginHostError("PLUGIN_SECRETS_INVALID", "secrets must be an object");
    }
    try {
      structuredClone([input, options.secrets, options.systemVar]);
    } catch {
      return new PluginHostError(
        "PLUGIN_INPUT_INVALID",
        "input and secrets must be plain data (no functions or class instances)",
      );
    }
    return undefined;
  }

  #systemVar(callId: number, given: Partial<SystemVar> | undefined): SystemVar {
    return {
      app: given?.app ?? { id: "local", name: "skillport" },
      chat: given?.chat ?? { chatId: `local-${callId}` },
      invokeToken: given?.invokeToken ?? randomUUID(),
      time: given?.time ?? new Date().toISOString(),
    };
  }

  #toolLabel(toolId: string): string {
    return `tool "${toolId}" of plugin "${this.identity.pluginId}"`;
  }
}

function isStreamEvent(value: unknown): value is StreamResponseEvent {
  if (typeof value !== "object" || value === null) return false;
  const { type, content } = value as { type?: unknown; content?: unknown };
  return (type === "answer" || type === "fastAnswer") && typeof content === "string";
}

function modelSafeName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}
