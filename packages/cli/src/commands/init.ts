import type { Command } from "commander";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { validateFrontmatter } from "@skillport/core";
import { displayPath, CliError, type CliOutput } from "../io.js";
import { errorCode } from "@skillport/fs";

export function registerInit(program: Command, io: CliOutput): void {
  program
    .command("init")
    .description("create a new skill folder with a SKILL.md template")
    .argument("<name>", "skill name: lowercase letters, digits and hyphens (it is also the folder name)")
    .option("-d, --dir <dir>", "where to create the skill folder", ".")
    .option("--description <text>", "what the skill does and when to use it")
    .action(async (name: string, options: { dir: string; description?: string }) => {
      const description =
        options.description ?? `Describe what ${name} does and when to use it (e.g. "Use when the user asks to …").`;
      const problems = validateFrontmatter(
        { name, description },
        { profile: "spec", dirName: name, lint: false },
      ).filter((d) => d.severity === "error");
      if (problems.length > 0)
        throw new CliError(`invalid skill name ${JSON.stringify(name)}: ${problems[0]!.message}`); // a usage error: exit 2, as plugin create

      const dir = path.resolve(io.cwd, options.dir, name);
      try {
        await mkdir(dir, { recursive: false });
      } catch (error) {
        if (errorCode(error) === "EEXIST")
          throw new CliError(`${displayPath(dir, io.cwd)} already exists; not overwriting it`);
        throw error;
      }
      await Promise.all(["scripts", "references", "assets"].map((sub) => mkdir(path.join(dir, sub))));
      await writeFile(path.join(dir, "SKILL.md"), template(name, description), { flag: "wx" });
      io.stdout(
        `Created ${displayPath(dir, io.cwd)}/\n  SKILL.md\n  scripts/\n  references/\n  assets/\n\n` +
          `Next: edit SKILL.md, then run \`skillport validate ${displayPath(dir, io.cwd)}\`.\n`,
      );
    });
}

function template(name: string, description: string): string {
  const quoted = JSON.stringify(description);
  return `---
name: ${name}
description: ${quoted}
---

# ${name}

## When to use
Say in one or two sentences which requests this skill is for, and which it is not for.

## Steps
1. The first thing the agent should do.
2. Point at files instead of pasting them: \`scripts/…\` to run, \`references/…\` to read when needed.

## Rules
- Constraints the agent must respect.
`;
}
