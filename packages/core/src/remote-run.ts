// Code execution somewhere else (a runner pool): the contract between the packages that ask (SkillBox's code execution
// in @skillport/agent, the MCP server's run_skill_script) and the one that runs (@skillport/runners' QueueCodeRunner,
// over NATS). Here, on the floor all three stand on, so neither side imports the other and the agent and MCP packages
// never load a queue client; the CLI wires them (`chat --queue`, `mcp --queue`; decision 0440).

/** A file a remote run needs (a skill's script and its neighbours), sent with the run. */
export interface RemoteFile {
  /** Relative, `/`-separated. */
  path: string;
  bytes: Uint8Array;
  executable: boolean;
}

export type RemoteRun =
  /** `bash -c command` in the session's working folder. */
  | { kind: "shell"; command: string }
  /** `interpreter <files>/<script> args…` (no shell), with `files` staged read-only beside the working folder. */
  | { kind: "script"; interpreter: string; script: string; args: readonly string[]; files: readonly RemoteFile[] };

export interface RemoteRunRequest {
  /** The box session: calls of one session share a working folder wherever the runner keeps one. */
  sessionId: string;
  run: RemoteRun;
  timeoutSeconds: number;
  env?: Readonly<Record<string, string>>;
  /** Cancels the run (the runner kills the sandboxed process). */
  signal?: AbortSignal;
}

/** What came back: the fields the shell tool's result is made of, as a local sandbox run gives them. */
export interface RemoteRunResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  outputLimitExceeded: boolean;
  /** Where it ran, e.g. `queue runner-a (bubblewrap)`. */
  sandbox: string;
  durationMs: number;
  /** Could not run at all (the pool refused it, or gave up on it): the one line says why. */
  failure?: string;
}

/** Runs code-execution commands somewhere else: `codeExecution().remote(runner)`, `SkillServer`'s `scripts`. */
export interface RemoteCodeRunner {
  run(request: RemoteRunRequest): Promise<RemoteRunResult>;
}

/** The folders and extensions whose files a skill's scripts may need when they run (upstream's upload defaults). */
export const RUN_FILE_FOLDERS: readonly string[] = Object.freeze(["scripts/", "assets/"]);
export const RUN_FILE_EXTENSIONS: readonly string[] = Object.freeze([".py", ".js", ".sh"]);

/** Is this skill-relative path one of those files (the default filter of SkillBox's upload and of remote runs)? */
export function isRunFile(path: string): boolean {
  return RUN_FILE_FOLDERS.some((f) => path.startsWith(f)) || RUN_FILE_EXTENSIONS.some((e) => path.endsWith(e));
}

/** Whether such a file is written executable (mode 0o755) where it is put to run. */
export function isExecutableRunFile(path: string): boolean {
  return path.startsWith("scripts/") || /\.(sh|py|js)$/.test(path);
}

/** `run_skill_script`'s interpreters by extension: the script runs as `<interpreter> <script> <args…>`, no shell. */
const INTERPRETERS: ReadonlyArray<[RegExp, string]> = [
  [/\.py$/, "python3"],
  [/\.(m|c)?js$/, "node"],
  [/\.sh$/, "bash"],
];

export function scriptInterpreter(path: string): string | undefined {
  return INTERPRETERS.find(([pattern]) => pattern.test(path))?.[1];
}

/** `scripts/<name>` for a bare name: what `run_skill_script` takes as the script. */
export function scriptPath(script: string): string {
  return script.includes("/") ? script.trim() : `scripts/${script.trim()}`;
}

/** A finished run as upstream's tool result shows it (local or remote). */
export interface RunOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  outputLimitExceeded: boolean;
  /** The tails kept, when cut: noted in front of the text. */
  stdoutCut?: { kept: number; total: number };
  stderrCut?: { kept: number; total: number };
}

/**
 * `<returncode>…</returncode><stdout>…</stdout><stderr>…</stderr>` (upstream's format), with a note when the run was
 * stopped, and whether it is an error (stopped, cancelled, too much output). `seconds` is the timeout it had.
 */
export function runResultText(outcome: RunOutcome, seconds: number): { text: string; isError: boolean } {
  let stdout = outcome.stdout;
  let stderr = outcome.stderr;
  if (outcome.stdoutCut)
    stdout = `[stdout truncated: the last ${outcome.stdoutCut.kept} of ${outcome.stdoutCut.total} bytes]\n${stdout}`;
  if (outcome.stderrCut)
    stderr = `[stderr truncated: the last ${outcome.stderrCut.kept} of ${outcome.stderrCut.total} bytes]\n${stderr}`;
  const notes: string[] = [];
  if (outcome.timedOut) notes.push(`TimeoutError: the command ran longer than ${seconds} seconds and was stopped.`);
  if (outcome.outputLimitExceeded) notes.push("Error: the command printed too much output and was stopped.");
  if (outcome.aborted) notes.push("Error: the command was cancelled.");
  if (notes.length > 0) stderr = stderr === "" ? notes.join("\n") : `${stderr}\n${notes.join("\n")}`;
  const code = outcome.timedOut || outcome.aborted ? -1 : (outcome.exitCode ?? -1);
  return {
    text: returnCodeText(code, stdout, stderr),
    isError: outcome.timedOut || outcome.aborted || outcome.outputLimitExceeded,
  };
}

/** The bare format, for a run that did not happen (`-1`, the reason in stderr). */
export function returnCodeText(code: number, stdout: string, stderr: string): string {
  return `<returncode>${code}</returncode><stdout>${stdout}</stdout><stderr>${stderr}</stderr>`;
}
