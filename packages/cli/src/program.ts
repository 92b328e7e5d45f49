import { Command, CommanderError } from "commander";
import { AgentSkillsError } from "@skillport/core";
import { redactUriCredentials } from "@skillport/core/internal";
import { CliError, EXIT_ERROR, outputFor, type CliIO, type CliOutput } from "./io.js";
import { commands } from "./commands/index.js";
import { describeFsError } from "./fs-errors.js";
import { VERSION } from "./version.js";

/** Runs the CLI with the given arguments (without `node` and the script) and resolves to the exit code. */
export async function runCli(argv: readonly string[], sinks: CliIO): Promise<number> {
  // Everything below writes through the output layer, which neutralises control sequences (decision 0260).
  const io = outputFor(sinks);
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = Math.max(exitCode, code);
  };
  const program = new Command()
    .name("skillport")
    .description("Agent Skills: validate, list, package, deploy and serve skills.")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError("(add --help for usage)")
    .option("--color", "colour the output even when it is not a terminal")
    .option("--no-color", "no colours (also: NO_COLOR=1; FORCE_COLOR=1 forces them)")
    .hook("preAction", () => {
      const flag = (program.opts() as { color?: boolean }).color;
      if (flag !== undefined) io.color = flag;
    });
  try {
    await registerCommands(program, argv, io, setExit);
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here with exit code 0.
      return error.exitCode === 0 ? 0 : EXIT_ERROR;
    }
    // Last line of defence: an address with a password never reaches the terminal, whoever built the message.
    if (error instanceof CliError) {
      io.stderr(`skillport: ${redactUriCredentials(error.message)}\n`);
      return error.exitCode;
    }
    if (error instanceof AgentSkillsError) {
      io.stderr(`skillport: ${redactUriCredentials(error.message)}\n`);
      return EXIT_ERROR;
    }
    // A file-system error nobody translated: in words, never a raw errno with a host path.
    const message = describeFsError(error, io.cwd) ?? (error instanceof Error ? error.message : String(error));
    io.stderr(`skillport: ${redactUriCredentials(message)}\n`);
    return EXIT_ERROR;
  }
  return exitCode;
}

/**
 * Loads only the command being run; for top-level help (or an unknown command) every command is listed by its
 * summary without loading any module.
 */
async function registerCommands(
  program: Command,
  argv: readonly string[],
  io: CliOutput,
  setExit: (code: number) => void,
): Promise<void> {
  const words = argv.filter((a) => !a.startsWith("-"));
  const wanted = words[0] === "help" ? words[1] : words[0];
  const entry = commands.find((c) => c.name === wanted);
  if (entry) {
    (await entry.load())(program, io, setExit);
    return;
  }
  for (const command of commands) program.command(command.name).description(command.summary);
}
