import path from "node:path";
import { AgentSkillsError } from "@skillport/core";
import { isInside } from "@skillport/fs";
import pc from "picocolors";
import { neutralise, safeJson } from "./terminal-text.js";

/**
 * A path as people see it in every message and report (decision 0315): inside the working directory, relative to it
 * with forward slashes (`.` for the directory itself); outside it, the shorter of the relative form (`../x` beside it)
 * and the absolute path (`/tmp/out.zip` rather than `../../../tmp/out.zip`); another drive stays absolute.
 */
export function displayPath(target: string, cwd: string): string {
  const rel = path.relative(cwd, target);
  if (rel === "") return ".";
  if (path.isAbsolute(rel)) return target;
  const shown = rel.split(path.sep).join("/");
  return isInside(cwd, target) || shown.length <= target.length ? shown : target;
}

/**
 * Where the CLI writes: the process streams (`processIO`) or a caller's buffers. These are raw sinks; commands never
 * write to them directly but through the output layer `runCli` builds over them (`outputFor`).
 */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Bytes to stdout as they are (`show --file` of a binary file); without it, bytes are written as UTF-8 text. */
  stdoutBytes?: (bytes: Uint8Array) => void;
  /** Colours (see `colorWanted`); the output layer keeps the CLI's own colour sequences only when this is on. */
  color: boolean;
  /** Show progress on stderr (it is a terminal). Progress never goes to stdout, so piped data stays clean. */
  progress?: boolean;
  /** stdout is a terminal: a command's data (a body, a file, command output) is neutralised there too. */
  terminal?: boolean;
  cwd: string;
}

/**
 * What commands write through. `stdout` and `stderr` carry text for people (listings, reports, messages): every
 * control character in it is neutralised, on a terminal or not. `data` carries a command's payload (a skill body, a
 * file, a catalog, a command's output, a model's answer): byte-exact into a pipe or file, neutralised on a terminal.
 * `status` redraws a one-line progress indicator on stderr (`""` clears it).
 */
export interface CliOutput extends Omit<CliIO, "stdoutBytes"> {
  data: (payload: string | Uint8Array) => void;
  status: (line: string) => void;
}

/** The output layer over raw sinks: the one place untrusted text is made safe for a terminal (decision 0260). */
export function outputFor(sinks: CliIO): CliOutput {
  // Text for people may carry the CLI's own colours; data and the status line never do, so nothing passes there.
  const text = (t: string) => neutralise(t, out.color);
  // The raw byte sink stays in here: commands reach stdout only through the channels below.
  const { stdoutBytes: _raw, ...shared } = sinks;
  const out: CliOutput = {
    ...shared,
    stdout: (t) => sinks.stdout(text(t)),
    stderr: (t) => sinks.stderr(text(t)),
    data: (payload) => {
      if (sinks.terminal === true)
        sinks.stdout(neutralise(typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8")));
      else if (typeof payload === "string") sinks.stdout(payload);
      else if (sinks.stdoutBytes) sinks.stdoutBytes(payload);
      else sinks.stdout(Buffer.from(payload).toString("utf8"));
    },
    status: (line) => {
      if (sinks.progress) sinks.stderr(line === "" ? "\r\u001b[2K" : `\r${neutralise(line)}\u001b[K`);
    },
  };
  return out;
}

/**
 * Colours on or off by the usual conventions, first match wins: NO_COLOR set and not empty turns them off;
 * FORCE_COLOR `0` or `false` off, any other non-empty value on (also into a pipe); otherwise on when stdout is a
 * terminal that is not `dumb`. A `--color`/`--no-color` flag overrides all of these (runCli; decision 0264).
 */
function colorWanted(env: NodeJS.ProcessEnv, stdoutIsTerminal: boolean): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return !/^(?:0|false)$/i.test(force.trim());
  return stdoutIsTerminal && env.TERM !== "dumb";
}

export function processIO(): CliIO {
  const terminal = Boolean(process.stdout.isTTY);
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdoutBytes: (b) => process.stdout.write(b),
    color: colorWanted(process.env, terminal),
    progress: Boolean(process.stderr.isTTY),
    terminal,
    cwd: process.cwd(),
  };
}

export function colors(io: CliIO) {
  return pc.createColors(io.color);
}

/** Exit codes: 0 ok, 1 problems found, 2 usage or runtime error. */
export const EXIT_OK = 0;
export const EXIT_PROBLEMS = 1;
export const EXIT_ERROR = 2;

/** An error the CLI reports as one line (no stack) with the given exit code. */
export class CliError extends AgentSkillsError<"CLI_USAGE" | "CLI_PROBLEMS"> {
  readonly exitCode: number;
  constructor(message: string, exitCode = EXIT_ERROR) {
    super(message, { code: exitCode === EXIT_PROBLEMS ? "CLI_PROBLEMS" : "CLI_USAGE" });
    this.exitCode = exitCode;
  }
}

/** JSON to stdout; control and bidi characters inside strings are `\u` escapes, so it is safe anywhere. */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(safeJson(value, 2) + "\n");
}

/** A one-line progress counter on stderr, redrawn in place; a no-op unless `io.progress`. */
export function progressLine(io: CliOutput, label: string, total: number): { tick: () => void; done: () => void } {
  if (!io.progress || total < 50) return { tick: () => undefined, done: () => undefined };
  let count = 0;
  let last = 0;
  return {
    tick: () => {
      count++;
      const now = Date.now();
      if (now - last < 100 && count < total) return;
      last = now;
      io.status(`${label} ${count}/${total}`);
    },
    done: () => io.status(""),
  };
}

/** A one-line warning on stderr (`warning: …`), as sources and loaders report what the user should know. */
export function warnOn(io: CliIO): (message: string) => void {
  return (message) => io.stderr(`warning: ${message}\n`);
}
