import type { Command } from "commander";
import type { CliIO } from "../io.js";

/** Adds `skillport plugin run` to the `plugin` command group. */
export function addPluginRunCommand(_plugin: Command, _io: CliIO, _setExit: (code: number) => void): void {}
