import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { SkillValidationError } from "@skillport/core";
import { CliError, colors, EXIT_ERROR, EXIT_PROBLEMS, printJson, type CliOutput } from "../io.js";
import { formatDiagnostics, withFsErrors } from "../package-io.js";
import { callRegistry, resolveRegistry } from "../registry-client.js";

interface PublishOptions {
  registry?: string;
  tag?: string[];
  namespace?: string;
  semver?: string;
  changelog?: string;
  json?: boolean;
}

interface PublishAnswer {
  created: boolean;
  version: {
    skill: string;
    version: string;
    digest: string;
    tags: string[];
    hold: string | null;
    audit: {
      verdict: string;
      findings: Array<{ code: string; level: string; file: string; line: number; message: string }>;
    };
  };
}

/** `skillport publish <dir|zip>`: a skill folder is packed as a .skill (pack's rules: exclusions, secrets, links). */
export function registerPublish(program: Command, io: CliOutput, setExit: (code: number) => void): void {
  program
    .command("publish")
    .description("publish a skill folder (packed as a .skill) or a zip/.skill file to a registry")
    .argument("<dir|zip>", "a skill folder holding SKILL.md, or an archive of one")
    .option("--registry <url>", "the registry (default: $SKILLPORT_REGISTRY, else the last one logged in to)")
    .option(
      "--tag <tag>",
      "point this tag at the version (repeatable; default latest)",
      (v: string, all: string[] = []) => [...all, v],
    )
    .option("--namespace <name>", "publish as @<name>/<skill> (you must be a member)")
    .option(
      "--semver <version>",
      "the version to publish as (default: the frontmatter's version, else the next patch); --version is the CLI's own",
    )
    .option("--changelog <text>", "what changed in this version")
    .option("--json", "print the registry's answer as JSON")
    .addHelpText("after", "\nExamples:\n  skillport publish ./skills/pdf --registry http://127.0.0.1:8787 --tag beta")
    .action(async (input: string, options: PublishOptions) => {
      const { url, token } = await resolveRegistry(options.registry);
      if (!token)
        throw new CliError(
          `no token for ${url}: run skillport login --registry ${url} (or set SKILLPORT_REGISTRY_TOKEN)`,
          EXIT_ERROR,
        );
      const archive = await archiveOf(path.resolve(io.cwd, input), input, io);
      const form = new FormData();
      form.set("archive", new Blob([archive]), "skill.zip");
      if (options.namespace) form.set("namespace", options.namespace.replace(/^@/, ""));
      if (options.semver) form.set("version", options.semver);
      if (options.tag) form.set("tags", options.tag.join(","));
      if (options.changelog !== undefined) form.set("changelog", options.changelog);
      const answer = await callRegistry<PublishAnswer>(url, "/api/v1/skills", { method: "POST", token, body: form });
      const v = answer.version;
      if (v.hold !== null) setExit(EXIT_PROBLEMS);
      if (options.json) return printJson(io, answer);
      const c = colors(io);
      const what = `${v.skill}@${v.version}`;
      io.stdout(
        answer.created
          ? `${c.green("published")} ${what} (${v.digest.slice(0, 19)}…) tags: ${v.tags.join(", ") || "none"}\n`
          : `unchanged: these files are already ${what}\n`,
      );
      io.stdout(`audit: ${v.audit.verdict}\n`);
      for (const f of v.audit.findings) io.stdout(`  ${f.level} ${f.code} ${f.file}:${f.line} ${f.message}\n`);
      if (v.hold !== null)
        io.stderr(
          c.red(
            `${what} is held: its audit verdict is ${v.audit.verdict}; no one can list or download it until an admin decides\n`,
          ),
        );
    });
}

async function archiveOf(target: string, shown: string, io: CliOutput): Promise<Uint8Array> {
  const info = await withFsErrors(() => stat(target), io.cwd);
  if (!info.isDirectory()) return withFsErrors(() => readFile(target), io.cwd);
  const { exportSkill } = await import("@skillport/pack");
  try {
    return (await withFsErrors(() => exportSkill(target), io.cwd)).archive;
  } catch (error) {
    if (error instanceof SkillValidationError) {
      io.stderr(formatDiagnostics(error.diagnostics, io));
      throw new CliError(`${shown}: ${error.message}; nothing published`, EXIT_PROBLEMS);
    }
    throw error;
  }
}
