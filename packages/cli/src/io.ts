import { AgentSkillsError } from "@skillport/core/errors";
import pc from "picocolors";

/** Where a command writes. Tests pass buffers; the binary passes the process streams. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Colours only when the stream is a terminal (and NO_COLOR is unset). */
  color: boolean;
  /** Show progress on stderr (it is a terminal). Progress never goes to stdout, so piped data stays clean. */
  progress?: boolean;
  /** stdout is a terminal (a person reads it as it comes): `chat -p` streams the answer. */
  interactive?: boolean;
  cwd: string;
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
    progress: Boolean(process.stderr.isTTY),
    interactive: Boolean(process.stdout.isTTY),
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

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2) + "\n");
}

/** A one-line progress counter on stderr, redrawn in place; a no-op unless `io.progress`. */
export function progressLine(io: CliIO, label: string, total: number): { tick: () => void; done: () => void } {
  if (!io.progress || total < 50) return { tick: () => undefined, done: () => undefined };
  let count = 0;
  let last = 0;
  return {
    tick: () => {
      count++;
      const now = Date.now();
      if (now - last < 100 && count < total) return;
      last = now;
      io.stderr(`\r${label} ${count}/${total}`);
    },
    done: () => io.stderr("\r\u001b[2K"),
  };
}

/** A one-line warning on stderr (`warning: …`), as sources and loaders report what the user should know. */
export function warnOn(io: CliIO): (message: string) => void {
  return (message) => io.stderr(`warning: ${message}\n`);
}
