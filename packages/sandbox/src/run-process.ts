import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { closeInheritedFds } from "./fds.js";
import { TailBuffer } from "./tail-buffer.js";

export type OutputStream = "stdout" | "stderr";

/** What one spawn of a process needs; the sandboxes build this from a RunRequest. */
export interface SpawnSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes of each stream kept (the tail); the rest is counted and dropped. */
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Total bytes (both streams) after which the process group is killed. */
  maxOutputBytes: number;
  /** Sees every chunk in arrival order, before any cap applies. */
  onOutput?: (stream: OutputStream, chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Only with a WaitingProcess: the launcher points stderr at the stdout pipe before it execs (one pipe, exact order). */
  mergeStderr?: boolean;
}

export interface ProcessOutcome {
  stdout: TailBuffer;
  stderr: TailBuffer;
  /** Null when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  outputLimitExceeded: boolean;
  aborted: boolean;
  durationMs: number;
  pid: number | undefined;
}

/**
 * Spawns a process in its own process group and always reaps the whole group: on timeout, on the output
 * limit, on abort, and after a normal exit (background children left behind are killed too, so a run can
 * never leak processes or hold its pipes open).
 */
export function runProcess(spec: SpawnSpec, waiting?: WaitingProcess): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    // hrtime, not performance.now(): the `performance` global loads perf_hooks (~1 ms of a one-shot CLI's start).
    const started = process.hrtime.bigint();
    const stdout = new TailBuffer(spec.maxStdoutBytes);
    const stderr = new TailBuffer(spec.maxStderrBytes);
    let timedOut = false;
    let outputLimitExceeded = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const child =
      waiting?.child ??
      spawn(spec.file, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    if (!child.stdout || !child.stderr) throw new Error("child process without output pipes");

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();

    const take = (stream: OutputStream, buffer: TailBuffer) => (chunk: Buffer) => {
      if (outputLimitExceeded) return;
      const before = stdout.total + stderr.total;
      const room = spec.maxOutputBytes - before;
      const piece = chunk.byteLength > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
      if (piece.byteLength > 0) {
        buffer.write(piece);
        spec.onOutput?.(stream, piece);
      }
      if (piece.byteLength < chunk.byteLength) {
        outputLimitExceeded = true;
        killGroup();
      }
    };
    child.stdout.on("data", take("stdout", stdout));
    child.stderr.on("data", take("stderr", stderr));
    if (waiting) {
      // A pre-started launcher: hand it the rest of the real argv; it execs it (see startWaiting).
      const argv = [spec.file, ...spec.args];
      if (!fitsLauncher(waiting, argv)) throw new Error("the argv does not start with the launcher's head");
      child.ref();
      for (const stream of [child.stdout, child.stderr] as Array<{ ref?: () => void }>) stream.ref?.();
      waiting.argvPipe.on("error", () => undefined); // the launcher died: its exit is reported below
      const mode = spec.mergeStderr ? "merge" : "keep";
      waiting.argvPipe.end(Buffer.from([mode, ...argv.slice(waiting.head.length)].map((a) => `${a}\0`).join("")));
    }

    child.once("error", (error) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      killGroup();
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      const final = exit ?? { code, signal };
      resolve({
        stdout,
        stderr,
        exitCode: final.code,
        signal: final.signal,
        timedOut,
        outputLimitExceeded,
        aborted,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        pid: child.pid,
      });
    });
  });
}

/** A launcher already running (its limits already applied) that waits for the rest of its argv on fd 3. */
export interface WaitingProcess {
  child: ChildProcess;
  argvPipe: Writable;
  /** The argv's first words, given at start: a run's argv must begin with them. */
  head: readonly string[];
}

/**
 * Starts `bash` now, lets it run `prologue` (join the run's cgroup, set rlimits), then makes it wait for a
 * NUL-separated argv on fd 3, close every other inherited descriptor above 2 (fds.ts) but `input`'s, and exec `head`
 * followed by it. `input`, when given, is a pipe at fd 4 already holding those bytes (the seccomp filter). The first word sent is `merge` (stderr joins the stdout
 * pipe first) or `keep`. bash reads a pipe one byte per system call, so what every run shares (bwrap's policy
 * arguments, ~750 bytes) is passed as `head` at start rather than through the pipe. Joining a cgroup can take several milliseconds on a busy host (an RCU grace
 * period); doing it ahead of time takes that off the path of the next run. The process is unref'd so an unused one
 * never keeps Node alive; if Node exits, the launcher reads EOF and exits without running anything.
 */
export function startWaiting(
  prologue: string,
  cwd: string,
  env: Record<string, string>,
  head: readonly string[] = [],
  input?: Buffer,
  wrap?: (wait: string) => string,
): WaitingProcess {
  const keep = input === undefined ? [] : [LAUNCHER_INPUT_FD];
  const wait =
    `mapfile -d "" -t argv <&${LAUNCHER_ARGV_FD}; exec ${LAUNCHER_ARGV_FD}<&-; ${closeInheritedFds(keep)}; ` +
    '[ "${#argv[@]}" -gt 1 ] || exit 125; [ "${argv[0]}" != merge ] || exec 2>&1; exec "$@" "${argv[@]:1}"';
  // `wrap`: statements that run before the wait and end by exec'ing a shell that runs it (egress-forwarder.ts).
  const body = wrap === undefined ? wait : wrap(wait);
  const script = prologue === "" ? body : `${prologue}; ${body}`;
  const stdio = ["ignore", "pipe", "pipe", "pipe", ...(input === undefined ? [] : ["pipe" as const])] as const;
  const child = spawn("/bin/bash", ["-c", script, "bash", ...head], { cwd, env, detached: true, stdio: [...stdio] });
  child.on("error", () => undefined); // reported by the run that uses it (or nobody, if unused)
  child.unref();
  const argvPipe = child.stdio[3] as Writable;
  const inputPipe = input === undefined ? undefined : (child.stdio[LAUNCHER_INPUT_FD] as Writable);
  if (inputPipe !== undefined) {
    // Smaller than a pipe's buffer: written at once, whether or not the launcher is ever used.
    inputPipe.on("error", () => undefined);
    inputPipe.end(input);
  }
  for (const stream of [child.stdout, child.stderr, argvPipe, inputPipe] as Array<
    { unref?: () => void } | null | undefined
  >)
    stream?.unref?.();
  return { child, argvPipe, head };
}

/** Where a launcher reads the rest of its argv. */
export const LAUNCHER_ARGV_FD = 3;

/** Where a launcher's `input` waits for the command it execs (bwrap's --seccomp reads its filter there). */
export const LAUNCHER_INPUT_FD = 4;

/** Whether `argv` starts with the words the launcher was given at start (the rest then goes through its pipe). */
export function fitsLauncher(w: WaitingProcess, argv: readonly string[]): boolean {
  return w.head.every((word, i) => argv[i] === word);
}

export function isWaiting(w: WaitingProcess): boolean {
  return w.child.exitCode === null && w.child.signalCode === null && w.child.pid !== undefined;
}
