/**
 * One worker: a child process (inside bubblewrap when available) speaking the protocol of protocol.ts. It knows nothing
 * about policy (timeouts, recycling, queues); the pool decides, this class starts, dispatches and kills.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { InvokeCapability } from "@skillport/plugin";
import { isPluginHostErrorCode, PluginHostError } from "./errors.js";
import type { CallMessage, HostToWorker, InvokeTuple, WorkerError, WorkerToHost, WorkerWarning } from "./protocol.js";
import type { Command } from "./sandbox.js";
import { encodeFrame, FrameReader, type FrameEvent } from "./worker/frames.js";

type CallOutcome = { ok: true; output: unknown; warnings: WorkerWarning[] } | { ok: false; error: PluginHostError };

export interface CallHandlers {
  onStream(data: unknown): void;
  onInvoke(method: InvokeCapability, args: unknown): Promise<InvokeTuple>;
  onDone(outcome: CallOutcome): void;
}

export interface WorkerStartOptions {
  id: number;
  command: Command;
  entry: string;
  pluginId: string;
  toolIds: string[];
  readyTimeoutMs: number;
  maxHeapMb: number;
  /** The largest message (result, stream event, reverse call) the worker may send, in serialised bytes. */
  maxMessageBytes: number;
  /** Called as soon as the process exists (before it is ready), so an owner can stop it at any time. */
  onSpawn?(worker: WorkerProcess): void;
  /** Called once when the process is gone, for whatever reason. */
  onExit(worker: WorkerProcess): void;
}

const STDERR_TAIL_BYTES = 16 * 1024;

export class WorkerProcess {
  readonly id: number;
  /** Settles when the process is gone. */
  readonly exited: Promise<void>;
  #markExited: () => void = () => {};
  /** Calls dispatched over the worker's life (for recycling). */
  served = 0;
  retiring = false;
  /** Set by the pool at the first call: the only partition (secret set) this worker ever serves. */
  partition: string | undefined;
  #child: ChildProcess;
  /** fd 3 of the worker: our framed channel (Node's IPC would buffer any message whole before we could size it). */
  #channel: Socket;
  #maxMessageBytes: number;
  #calls = new Map<number, CallHandlers>();
  #stderr = "";
  #alive = true;
  #killReason: ((callId: number) => PluginHostError) | undefined;
  #maxHeapMb: number;
  #onExit: (worker: WorkerProcess) => void;
  #idleTimer: NodeJS.Timeout | undefined;

  private constructor(options: WorkerStartOptions, child: ChildProcess) {
    this.id = options.id;
    this.exited = new Promise((resolve) => (this.#markExited = resolve));
    this.#child = child;
    this.#channel = child.stdio[3] as Socket;
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#maxHeapMb = options.maxHeapMb;
    this.#onExit = options.onExit;
  }

  /** Spawns the worker and resolves once the plugin is loaded; rejects with PLUGIN_WORKER_START_FAILED. */
  static start(options: WorkerStartOptions): Promise<WorkerProcess> {
    const child = spawn(options.command.file, options.command.args, {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
      env: options.command.env,
      cwd: options.command.cwd,
      detached: true, // own process group, so a kill reaches everything the worker started
    });
    const worker = new WorkerProcess(options, child);
    options.onSpawn?.(worker);
    return worker.#handshake(options);
  }

  #handshake(options: WorkerStartOptions): Promise<WorkerProcess> {
    const child = this.#child;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_BYTES);
    });
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.kill(() => new PluginHostError("PLUGIN_WORKER_START_FAILED", message));
        reject(new PluginHostError("PLUGIN_WORKER_START_FAILED", `worker failed to start: ${message}`));
      };
      const timer = setTimeout(() => fail(`not ready within ${options.readyTimeoutMs} ms`), options.readyTimeoutMs);
      child.on("error", (error) => fail(error.message));
      // "close", not "exit": it waits for stderr to drain, which the heap-limit diagnosis reads.
      child.on("close", (code, signal) => {
        this.#exited();
        fail(`the process exited (${signal ?? `code ${code}`}) before it was ready${this.#stderrHint()}`);
      });
      const onMessage = (message: WorkerToHost) => {
        if (!settled && message.kind === "ready") {
          settled = true;
          clearTimeout(timer);
          resolve(this);
        } else if (!settled && message.kind === "init-failed") {
          fail(String(message.message));
        } else if (settled) {
          this.#onMessage(message);
        }
      };
      // Everything from the worker is untrusted: its size is judged from the frame header, before buffering.
      const reader = new FrameReader(this.#maxMessageBytes, (event) => {
        if (event.kind === "message") {
          if (isWorkerMessage(event.message)) onMessage(event.message);
          return;
        }
        const error = this.#channelError(event);
        if (!settled) fail(error.message);
        else this.kill(() => error);
      });
      this.#channel.on("data", (chunk: Buffer) => reader.push(chunk));
      this.#channel.on("error", () => {}); // the process's exit reports what happened
      this.#send({ kind: "init", entry: options.entry, pluginId: options.pluginId, toolIds: options.toolIds });
    });
  }

  get inFlight(): number {
    return this.#calls.size;
  }

  get alive(): boolean {
    return this.#alive;
  }

  dispatch(call: CallMessage, handlers: CallHandlers): void {
    this.served++;
    this.#calls.set(call.callId, handlers);
    if (!this.#send(call)) {
      this.#calls.delete(call.callId);
      handlers.onDone({ ok: false, error: new PluginHostError("PLUGIN_WORKER_CRASHED", "the worker is gone") });
    }
  }

  /** Arms (or with undefined, clears) a timer that fires when the worker has been idle long enough. */
  setIdleTimer(ms: number | undefined, onIdle: () => void): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = ms === undefined ? undefined : setTimeout(onIdle, ms);
    this.#idleTimer?.unref();
  }

  /** SIGKILLs the worker's process group; in-flight calls fail with the error `reason` gives for each. */
  kill(reason: (callId: number) => PluginHostError): void {
    this.#killReason ??= reason;
    clearTimeout(this.#idleTimer);
    if (!this.#alive) return;
    const pid = this.#child.pid;
    try {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
    } catch {
      this.#child.kill("SIGKILL"); // the group is already gone; make sure the leader is too
    }
  }

  #send(message: HostToWorker): boolean {
    if (!this.#alive || this.#channel.destroyed || !this.#channel.writable) return false;
    let frame: Buffer;
    try {
      frame = encodeFrame(message);
    } catch {
      return false;
    }
    this.#channel.write(frame);
    return true;
  }

  #channelError(event: Exclude<FrameEvent, { kind: "message" }>): PluginHostError {
    if (event.kind === "oversize") {
      return new PluginHostError(
        "PLUGIN_LIMIT_EXCEEDED",
        `the worker sent a message of ${event.bytes} bytes, over the host's limit of ${this.#maxMessageBytes} (maxResultBytes); its worker was stopped`,
      );
    }
    return new PluginHostError(
      "PLUGIN_WORKER_CRASHED",
      `the worker sent a malformed message (${event.reason.slice(0, 200)}); it was stopped`,
    );
  }

  #onMessage(message: WorkerToHost): void {
    switch (message.kind) {
      case "stream":
        this.#calls.get(message.callId)?.onStream(message.data);
        break;
      case "invoke": {
        const handlers = this.#calls.get(message.callId);
        if (!handlers) return;
        void handlers.onInvoke(message.method, message.args).then((result) => {
          if (this.#send({ kind: "invoke-result", invokeId: message.invokeId, result })) return;
          // The application's answer could not be serialised: the plugin still gets a tuple, never a hang.
          const en = `ctx.invoke.${message.method}: the host's answer cannot be sent to the plugin`;
          const failure = {
            reason: { en, "zh-CN": `ctx.invoke.${message.method} 的结果无法发送给插件` },
            error: "ServiceError",
            message: en,
          };
          this.#send({ kind: "invoke-result", invokeId: message.invokeId, result: [null, failure] });
        });
        break;
      }
      case "result": {
        const handlers = this.#calls.get(message.callId);
        if (!handlers) return;
        this.#calls.delete(message.callId);
        handlers.onDone(
          message.ok
            ? { ok: true, output: message.output, warnings: warningsOf(message.warnings) }
            : { ok: false, error: fromWorker(message.error) },
        );
        break;
      }
    }
  }

  #exited(): void {
    if (!this.#alive) return;
    this.#alive = false;
    clearTimeout(this.#idleTimer);
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const [callId, handlers] of calls) handlers.onDone({ ok: false, error: this.#exitError(callId) });
    this.#onExit(this);
    this.#markExited();
  }

  #exitError(callId: number): PluginHostError {
    if (this.#killReason) return this.#killReason(callId);
    if (/heap limit|heap out of memory/i.test(this.#stderr)) {
      return new PluginHostError(
        "PLUGIN_HEAP_LIMIT",
        `the worker ran out of memory (heap limit ${this.#maxHeapMb} MB) and was stopped`,
      );
    }
    const { exitCode, signalCode } = this.#child;
    return new PluginHostError(
      "PLUGIN_WORKER_CRASHED",
      `the worker exited unexpectedly (${signalCode ?? `code ${exitCode}`})`,
    );
  }

  #stderrHint(): string {
    const line = this.#stderr
      .trim()
      .split("\n")
      .filter((text) => /error/i.test(text))
      .pop();
    // Host paths stay out of messages.
    return line
      ? `: ${line
          .trim()
          .replace(/(?:\/[^\s:'"]+)+/g, "<path>")
          .slice(0, 300)}`
      : "";
  }
}

/** The shape check every worker message passes before any field is used. */
function isWorkerMessage(value: unknown): value is WorkerToHost {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  switch (message.kind) {
    case "ready":
      return true;
    case "init-failed":
      return typeof message.message === "string";
    case "stream":
      return typeof message.callId === "number";
    case "invoke":
      return (
        typeof message.callId === "number" && typeof message.invokeId === "number" && typeof message.method === "string"
      );
    case "result":
      return typeof message.callId === "number" && typeof message.ok === "boolean";
    default:
      return false;
  }
}

function fromWorker(error: WorkerError | undefined): PluginHostError {
  const code = isPluginHostErrorCode(error?.code) ? error.code : "PLUGIN_HANDLER_ERROR";
  const detail = error?.detail;
  return new PluginHostError(
    code,
    String(error?.message ?? "the tool failed without a message"),
    detail === undefined ? undefined : { detail },
  );
}

/** Worker messages are untrusted: keep only well-formed warnings of the two known codes, and not too many. */
function warningsOf(value: unknown): WorkerWarning[] {
  if (!Array.isArray(value)) return [];
  const known = new Set<unknown>(["PLUGIN_INPUT_INVALID", "PLUGIN_OUTPUT_INVALID"]);
  return value
    .filter(
      (item): item is WorkerWarning =>
        typeof item === "object" && item !== null && known.has(item.code) && typeof item.message === "string",
    )
    .slice(0, 20)
    .map((item) => ({ code: item.code, message: item.message.slice(0, 4000) }));
}
