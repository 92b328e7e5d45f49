import { Option, type Command } from "commander";
import { SkillBox } from "@skillport/agent";
import { importOptional } from "@skillport/core/internal";
import { CliError, colors, EXIT_PROBLEMS, type CliOutput } from "../io.js";
import { loadSkills, reportLoadProblems } from "../load.js";

export interface BoxOptions {
  codeExec?: boolean;
  sandbox: "bubblewrap" | "process";
  queue?: string;
  tenant: string;
  prefix: string;
}

/** A box and what closes it (its sandboxes and temporary folders, the queue connection). */
export interface BuiltBox {
  box: SkillBox;
  close(): Promise<void>;
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
    )
    .option(
      "--queue <url>",
      "with --code-exec: run commands and skill scripts on the runner pool at this NATS address (no file tools)",
    )
    .option("--tenant <name>", "with --queue: whose jobs they are (fair share per tenant)", "default")
    .option("--prefix <name>", "with --queue: subject and stream prefix", "skillport");
}

/** A SkillBox over the roots (or the agent folders found around the working directory). */
export async function buildBox(
  roots: readonly string[],
  options: BoxOptions,
  io: CliOutput,
  setExit: (code: number) => void,
): Promise<BuiltBox> {
  if (options.queue !== undefined && !options.codeExec)
    throw new CliError("--queue needs --code-exec: it says where the model's commands run");
  const { registry, failures, skipped } = await loadSkills(roots, io);
  reportLoadProblems(io, failures, registry.shadowed, skipped);
  if (failures.length > 0) setExit(EXIT_PROBLEMS);
  const box = new SkillBox({ registry });
  if (options.codeExec && options.queue !== undefined) {
    // Commands and skill scripts become jobs of the pool (decision 0440); the file tools would see a local folder
    // those jobs never touch, so they are left out.
    const { QueueCodeRunner, parseQueueAddress } = await importOptional(
      "@skillport/runners",
      "--queue",
      () => import("@skillport/runners"),
    );
    parseQueueAddress(options.queue);
    const runner = new QueueCodeRunner({ queue: options.queue, prefix: options.prefix, tenant: options.tenant });
    box.codeExecution().withShell().withSkillScripts().remote(runner).enable();
    return {
      box,
      close: async () => {
        await box.close();
        await runner.close();
      },
    };
  }
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
  return { box, close: () => box.close() };
}
