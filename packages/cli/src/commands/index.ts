import type { Command } from "commander";
import type { CliIO } from "../io.js";
import { registerDemo } from "./demo.js";
import { registerDeploy } from "./deploy.js";
import { registerExec } from "./exec.js";
import { registerExport } from "./export.js";
import { registerImport } from "./import.js";
import { registerInit } from "./init.js";
import { registerInspect } from "./inspect.js";
import { registerList } from "./list.js";
import { registerPack } from "./pack.js";
import { registerPlugin } from "./plugin.js";
import { registerPrompt } from "./prompt.js";
import { registerSearch } from "./search.js";
import { registerShow } from "./show.js";
import { registerUnpack } from "./unpack.js";
import { registerValidate } from "./validate.js";

/**
 * A command module adds one command (or a group) to the program.
 * `setExit` raises the process exit code (0 ok, 1 problems found, 2 error); thrown errors become exit 2.
 */
export type RegisterCommand = (program: Command, io: CliIO, setExit: (code: number) => void) => void;

// One file per command, in help order: skills, then packages and runtime, then plugins.
export const commands: RegisterCommand[] = [
  registerValidate,
  registerList,
  registerShow,
  registerPrompt,
  registerSearch,
  registerInit,
  registerPack,
  registerInspect,
  registerUnpack,
  registerExport,
  registerImport,
  registerDeploy,
  registerExec,
  registerPlugin,
  registerDemo,
];
