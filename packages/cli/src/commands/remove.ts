import type { Command } from "commander";
import { agentEnvironment, removeSkills } from "@skillport/install";
import { asCliErrors } from "../install-source.js";
import { printJson, type CliOutput } from "../io.js";

export function registerRemove(program: Command, io: CliOutput): void {
  program
    .command("remove")
    .description(
      "remove installed skills: the links or copies in every agent's folder, the canonical copy and the lock entries",
    )
    .argument("<names...>", "installed skill names")
    .option("-g, --global", "remove from the user's scope (under $HOME)")
    .option("--json", "print one JSON object")
    .action(async (names: string[], options: { global?: boolean; json?: boolean }) => {
      await asCliErrors(async () => {
        const removed = await removeSkills(names, {
          env: agentEnvironment(process.env, io.cwd),
          global: options.global === true,
        });
        if (options.json) return printJson(io, { removed });
        for (const name of removed) io.stdout(`removed ${name}\n`);
      });
    });
}
