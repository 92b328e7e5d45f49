// Code execution on the pool: the `RemoteCodeRunner` contract (@skillport/core/internal) SkillBox's code execution and
// the MCP server's run_skill_script call, implemented over QueueClient (the CLI wires them; decision 0440).
import { createHash } from "node:crypto";
import type { RemoteCodeRunner, RemoteRunRequest, RemoteRunResult } from "@skillport/core/internal";
import { randomHex } from "@skillport/fs";
import { QueueClient } from "./client.js";
import { RunnerError } from "./errors.js";
import type { JobResult } from "./protocol.js";
import type { QueueOptions } from "./queue.js";

export interface QueueCodeRunnerOptions extends QueueOptions {
  /** Whose jobs these are (fair share, queue limit). Default `default`. */
  tenant?: string;
  /**
   * Calls of one box session share a pool session (its working folder, kept where runners have `--sessions`). The
   * pool's session name is a digest of this namespace and the box's session id; default: random per QueueCodeRunner,
   * so two boxes never share a folder. Give a stable one to find a conversation's folder again after a restart.
   */
  sessionNamespace?: string;
  /** Run in this package version (deployed by the runner) instead of a scratch workspace. */
  package?: { versionId: string; digest: string };
  /** After a cancellation, how long to wait for the runner's `cancelled` result. Default 10 s. */
  cancelWaitMs?: number;
}

/** Bash single-quoting: the word reaches the program exactly. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs SkillBox's commands and skill scripts as jobs on the pool (`codeExecution().remote(new QueueCodeRunner(…))`).
 * Connects on the first run; `close()` disconnects.
 */
export class QueueCodeRunner implements RemoteCodeRunner {
  readonly #options: QueueOptions;
  #client: Promise<QueueClient> | undefined;
  readonly #tenant: string;
  readonly #namespace: string;
  readonly #package: { versionId: string; digest: string } | undefined;
  readonly #cancelWaitMs: number;

  constructor(options: QueueCodeRunnerOptions) {
    this.#options = options;
    this.#tenant = options.tenant ?? "default";
    this.#namespace = options.sessionNamespace ?? randomHex(16);
    this.#package = options.package;
    this.#cancelWaitMs = options.cancelWaitMs ?? 10_000;
  }

  /** The pool's session name for a box session. */
  sessionName(sessionId: string): string {
    return `s${createHash("sha256").update(`${this.#namespace}\0${sessionId}`).digest("hex").slice(0, 40)}`;
  }

  async run(request: RemoteRunRequest): Promise<RemoteRunResult> {
    const { run } = request;
    const command =
      run.kind === "shell"
        ? run.command
        : `exec ${quote(run.interpreter)} "$SKILLPORT_FILES"/${quote(run.script)}${run.args.map((a) => ` ${quote(a)}`).join("")}`;
    const id = `c${Date.now().toString(36)}${randomHex(8)}`;
    let result: JobResult;
    try {
      const client = await this.#connect();
      const input = {
        id,
        tenant: this.#tenant,
        run: { kind: "command" as const, command },
        timeoutS: Math.max(1, request.timeoutSeconds),
        env: { ...request.env },
        session: this.sessionName(request.sessionId),
        ...(run.kind === "script" && {
          files: run.files.map((f) => ({
            path: f.path,
            base64: Buffer.from(f.bytes).toString("base64"),
            executable: f.executable,
          })),
        }),
        ...(this.#package && { package: this.#package }),
      };
      try {
        result = await client.run(input, request.signal === undefined ? {} : { signal: request.signal });
      } catch (error) {
        if (!request.signal?.aborted) throw error;
        // Cancelled while it waited or ran: the runner kills the sandbox and records `cancelled`.
        await client.cancel(id, "cancelled by the caller");
        result = await client.result(id, { timeoutMs: this.#cancelWaitMs });
      }
    } catch (error) {
      if (error instanceof RunnerError) return failed(error.message);
      throw error;
    }
    if (result.status === "failed" || result.status === "dead-letter")
      return failed(
        `the pool gave up on job ${result.id} (${result.reason ?? result.status}): ${result.message ?? ""}`,
      );
    return {
      stdout: result.stdoutTail,
      stderr: result.stderrTail,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      aborted: result.status === "cancelled",
      outputLimitExceeded: result.reason === "output-limit",
      sandbox: `queue runner ${result.runner}${result.sandbox === undefined ? "" : ` (${result.sandbox})`}`,
      durationMs: result.timing.runMs,
    };
  }

  #connect(): Promise<QueueClient> {
    if (this.#client === undefined) {
      const connecting = QueueClient.connect(this.#options);
      this.#client = connecting;
      connecting.catch(() => (this.#client = undefined)); // the next run tries again
    }
    return this.#client;
  }

  async close(): Promise<void> {
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    await client?.close();
  }
}

function failed(message: string): RemoteRunResult {
  return {
    stdout: "",
    stderr: "",
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    outputLimitExceeded: false,
    sandbox: "queue",
    durationMs: 0,
    failure: message,
  };
}
