import type { Command } from "commander";
import type { CliOutput } from "../io.js";

/**
 * A command module adds one command (or a group) to the program.
 * `setExit` raises the process exit code (0 ok, 1 problems found, 2 error); thrown errors become exit 2.
 */
export type RegisterCommand = (program: Command, io: CliOutput, setExit: (code: number) => void) => void;

export interface CommandEntry {
  name: string;
  /** One line for the top-level help; the module's own description is what `<command> --help` shows. */
  summary: string;
  /** Loaded only when this command runs (or its help is asked for), so start-up stays small. */
  load: () => Promise<RegisterCommand>;
}
