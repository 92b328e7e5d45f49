import { Option, type Command } from "commander";
import { SkillBox } from "@skillport/agent";
import { colors, EXIT_PROBLEMS, type CliOutput } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";

export interface BoxOptions {
  codeExec?: boolean;
  sandbox: "bubblewrap" | "process";
}

/** Options `chat` and `tools` share. */
export function boxOptions(command: Command): Command {
  return command
    .option(
      "--code-exec",
      "give the model sandboxed code execution: execute_shell_command, file tools and run_skill_script",
    )
    .addOption(
      new Option("--sandbox <kind>", "where commands run (process isolates nothing)")
        .choices(["bubblewrap", "process"])
        .default("bubblewrap"),
    );
}

/** A SkillBox over the roots (or the agent folders found around the working directory). */
export async function buildBox(
  roots: readonly string[],
  options: BoxOptions,
  io: CliOutput,
  setExit: (code: number) => void,
): Promise<SkillBox> {
  const { registry, failures, skipped } = await loadSkills(roots, io);
  reportLoadProblems(io, failures, registry.shadowed, skipped);
  if (failures.length > 0) setExit(EXIT_PROBLEMS);
  const box = new SkillBox({ registry });
  if (options.codeExec) {
    if (options.sandbox === "process")
      io.stderr(
        `${colors(io).yellow("warning")}  --sandbox process isolates nothing: commands can read and write anything you can, and use the network\n`,
      );
    box
      .codeExecution()
      .withShell()
      .withRead()
      .withWrite()
      .withSkillScripts()
      .sandbox({ kind: options.sandbox })
      .enable();
  }
  return box;
}
