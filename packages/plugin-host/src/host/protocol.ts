/**
 * The protocol between the host and a worker process, over the worker's fd 3 (a socket pair) in the frames of
 * worker/frames.ts: a length, then V8 serialisation (structured clone, so Uint8Array file contents cross without
 * base64). Not Node's IPC channel: the host must judge a message's size before buffering it (decision 0153).
 *
 * host → worker: init, call, invoke-result
 * worker → host: ready, init-failed, stream, result, invoke
 */
import type { InvokeCapability, InvokeFailure, SystemVar } from "@skillport/plugin";
import type { PluginHostErrorCode } from "./errors.js";

export type { InvokeCapability as InvokeMethod, StreamResponseEvent } from "@skillport/plugin";

export type InvokeTuple = [unknown, null] | [null, InvokeFailure];

interface InitMessage {
  kind: "init";
  /** Absolute path of the plugin's entry file (index.js) inside the staged package. */
  entry: string;
  pluginId: string;
  /** Tool ids manifest.json lists; the module must define each one. */
  toolIds: string[];
}

export interface CallMessage {
  kind: "call";
  callId: number;
  toolId: string;
  input: unknown;
  secrets: Record<string, unknown> | undefined;
  systemVar: SystemVar;
  /** An output that breaks outputSchema fails the call (else it is returned with a warning). */
  strictOutput?: boolean;
  /**
   * Input the declared inputSchema rejects always fails the call. Else, when only declared fields are missing and
   * the input carries undeclared (legacy) keys, the handler gets the input as given, after a warning.
   */
  strictInput?: boolean;
}

interface InvokeResultMessage {
  kind: "invoke-result";
  invokeId: number;
  result: InvokeTuple;
}

export type HostToWorker = InitMessage | CallMessage | InvokeResultMessage;

interface ReadyMessage {
  kind: "ready";
}

interface InitFailedMessage {
  kind: "init-failed";
  message: string;
}

interface StreamMessage {
  kind: "stream";
  callId: number;
  data: unknown;
}

export interface WorkerError {
  code: PluginHostErrorCode;
  message: string;
  /** The thrown value as JSON-safe data, when it carries more than its message. */
  detail?: unknown;
}

/** Something the call got past that the caller should know of: input or output the declared schema rejected. */
export interface WorkerWarning {
  code: "PLUGIN_INPUT_INVALID" | "PLUGIN_OUTPUT_INVALID";
  message: string;
}

type ResultMessage =
  | { kind: "result"; callId: number; ok: true; output: unknown; warnings?: WorkerWarning[] }
  | { kind: "result"; callId: number; ok: false; error: WorkerError };

interface InvokeMessage {
  kind: "invoke";
  callId: number;
  invokeId: number;
  method: InvokeCapability;
  args: unknown;
}

export type WorkerToHost = ReadyMessage | InitFailedMessage | StreamMessage | ResultMessage | InvokeMessage;
