export { runCli } from "./program.js";
export { type CliIO, CliError, EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR } from "./io.js";
