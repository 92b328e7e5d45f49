import { spawn } from "node:child_process";
import { RemoteSourceError, safeText } from "../errors.js";
import { errorCode } from "@skillport/fs";

export interface GitRunOptions {
  cwd?: string;
  /** Git configuration passed through the environment (an auth header, say); never on the command line, never logged. */
  config?: Record<string, string>;
  /** The environment git starts from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Kill git after this long (ms). */
  timeoutMs: number;
  /** Most stdout bytes kept; more is an error. */
  maxOutputBytes?: number;
  /** Written to git's standard input. */
  input?: string;
  /** Strings to hide from any message (a password from the address). */
  secrets: readonly string[];
  /** What the command does, for messages ("fetch https://host/repo.git"), already redacted. */
  what: string;
  /** Called once git has been started (its output not yet read). */
  onSpawn?: () => void;
}

/**
 * The environment every git command runs with: no terminal prompts (a missing credential fails instead of hanging), no
 * LFS downloads, only the transports a source address can name (never `ext::`, which runs a command), and ssh in batch
 * mode. The user's own configuration, credential helpers, `GIT_ASKPASS` and `GIT_CONFIG_*` entries still apply; `config`
 * entries are appended after the user's.
 */
export function gitEnvironment(
  config: Readonly<Record<string, string>> = {},
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_TERMINAL_PROMPT: "0",
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
    GIT_SSH_COMMAND: base.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes",
    LC_ALL: "C",
  };
  const start = /^\d+$/.test(base.GIT_CONFIG_COUNT ?? "") ? Number(base.GIT_CONFIG_COUNT) : 0;
  const entries = Object.entries(config);
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key;
    env[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  if (entries.length > 0) env.GIT_CONFIG_COUNT = String(start + entries.length);
  return env;
}

/**
 * The parts of an environment through which git may be given credentials: askpass programs, ssh keys and agents, the
 * configuration files it reads (credential helpers, `~/.git-credentials`) and `GIT_CONFIG_*` entries (an extra
 * header). Two callers that differ here may have different rights, so they do not share a cache (decision 0240).
 */
export function ambientCredentials(env: NodeJS.ProcessEnv): [string, string][] {
  const names = [
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "SSH_AUTH_SOCK",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
  ];
  const count = /^\d+$/.test(env.GIT_CONFIG_COUNT ?? "") ? Number(env.GIT_CONFIG_COUNT) : 0;
  for (let i = 0; i < count; i++) names.push(`GIT_CONFIG_KEY_${i}`, `GIT_CONFIG_VALUE_${i}`);
  return names.map((name): [string, string] => [`env:${name}`, env[name] ?? ""]);
}

/** What git prints when the remote refused the credentials (HTTP 401/403, an ssh key refused): not an outage. */
const ACCESS_DENIED =
  /could not read (?:Username|Password)|Authentication failed|terminal prompts disabled|returned error: 40[13]\b|Permission denied \((?:publickey|password)/i;

/** The errors of git commands stopped at their deadline. */
const timeouts = new WeakSet<object>();

/** True for the error of a git command stopped at its deadline: asking the remote again would only wait again. */
export function gitTimedOut(error: unknown): boolean {
  return typeof error === "object" && error !== null && timeouts.has(error);
}

/** Runs the system `git` (no shell) and returns its stdout; a failure names the command and git's last words, redacted. */
export function runGit(args: readonly string[], options: GitRunOptions): Promise<string> {
  const maxOutput = options.maxOutputBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: options.cwd,
      env: gitEnvironment(options.config, options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let overflow = false;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.byteLength;
      if (outBytes > maxOutput) {
        overflow = true;
        child.kill("SIGKILL");
      } else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < 16_384) err += chunk.toString("utf8");
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
    options.onSpawn?.();
    child.on("error", (error) => {
      clearTimeout(timer);
      const missing = errorCode(error) === "ENOENT";
      reject(
        new RemoteSourceError(
          missing ? "git is not installed (no `git` on PATH)" : `git ${options.what} could not start`,
          "REMOTE_FETCH",
          { cause: error },
        ),
      );
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (timedOut) {
        const error = new RemoteSourceError(
          `git ${options.what} took longer than ${options.timeoutMs} ms and was stopped`,
          "REMOTE_FETCH",
        );
        timeouts.add(error);
        return reject(error);
      }
      if (overflow)
        return reject(
          new RemoteSourceError(`git ${options.what} printed more than ${maxOutput} bytes`, "REMOTE_FETCH"),
        );
      if (code !== 0) {
        const last = err
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "" && !l.startsWith("hint:"))
          .slice(-2)
          .join("; ");
        const denied = ACCESS_DENIED.test(err);
        const text = `git ${options.what} failed: ${safeText(last || `exit code ${String(code)}`, options.secrets)}${denied ? " (credentials missing or refused)" : ""}`;
        return reject(new RemoteSourceError(text, denied ? "REMOTE_ACCESS_DENIED" : "REMOTE_FETCH"));
      }
      resolve(Buffer.concat(out).toString("utf8"));
    });
  });
}
