import type { Command } from "commander";
import { stat } from "node:fs/promises";
import path from "node:path";
import { SkillNotFoundError, type RegistryEntry } from "@skillport/core";
import { CliError, colors, printJson, type CliOutput } from "../io.js";
import { loadSkills, type LoadedSkills } from "../load.js";

export function registerShow(program: Command, io: CliOutput): void {
  program
    .command("show")
    .description("show a skill's metadata, instructions and files, or one of its files")
    .argument(
      "<skill>",
      "a skill folder or SKILL.md path, or a skill id (qualified ids like fs:examples/skills:csv-insights work too)",
    )
    .option("--file <path>", "print this file of the skill (relative to the skill folder) instead")
    .option(
      "-r, --root <dir...>",
      "folders of skills or source addresses (sqlite:…, postgres://…, git+https://…, https://…, npm:…) to look the id up in (default: .agents/skills and .claude/skills around here)",
    )
    .option("--json", "print JSON")
    .action(async (skill: string, options: { file?: string; root?: string[]; json?: boolean }) => {
      const { entry, loaded } = await findSkill(skill, options.root ?? [], io);
      try {
        await showEntry(entry, skill, options, io);
      } finally {
        await loaded.close();
      }
    });
}

async function showEntry(
  entry: RegistryEntry,
  skill: string,
  options: { file?: string; json?: boolean },
  io: CliOutput,
): Promise<void> {
  if (options.file !== undefined) {
    const bytes = await entry.readFile(options.file);
    const text = utf8Text(bytes);
    if (options.json) {
      const content =
        text === undefined
          ? { encoding: "base64", content: Buffer.from(bytes).toString("base64") }
          : { encoding: "utf8", content: text };
      printJson(io, { id: entry.id, path: options.file, size: bytes.length, ...content });
    } else if (text === undefined && io.terminal === true) {
      // A binary file on a terminal would be noise (or escape sequences): say what it is and how to get it.
      io.stdout(
        `${options.file}: binary file, ${bytes.length} bytes, not printed on a terminal; redirect it: skillport show ${skill} --file ${options.file} > ${path.basename(options.file)}\n`,
      );
    } else io.data(bytes);
    return;
  }
  const [body, files, location] = await Promise.all([entry.getBody(), entry.listFiles(), entry.getLocation()]);
  const metadata = entry.getMetadata();
  if (options.json) {
    printJson(io, {
      id: entry.id,
      qualifiedId: entry.qualifiedId,
      source: entry.source,
      location: location ?? null,
      metadata,
      body,
      files,
    });
    return;
  }
  const c = colors(io);
  io.stdout(`${c.bold(entry.id)}  ${c.dim(entry.qualifiedId)}\n`);
  const fields = Object.entries(metadata).filter(([key]) => key !== "name");
  const width = Math.max(8, ...fields.map(([key]) => key.length));
  if (location) io.stdout(`${c.dim("location".padEnd(width))}  ${location}\n`);
  for (const [key, value] of fields) {
    const text = typeof value === "string" ? value.replace(/\s+/g, " ").trim() : JSON.stringify(value);
    io.stdout(`${c.dim(key.padEnd(width))}  ${text}\n`);
  }
  io.stdout(`${c.dim("files".padEnd(width))}  ${files.map((f) => f.path).join(", ")}\n\n`);
  io.data(body.endsWith("\n") ? body : `${body}\n`);
}

/** The file as text when it is UTF-8 without NUL bytes (what a terminal can show); undefined for a binary file. */
function utf8Text(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

async function findSkill(
  skill: string,
  roots: readonly string[],
  io: CliOutput,
): Promise<{ entry: RegistryEntry; loaded: LoadedSkills }> {
  const asPath = path.resolve(io.cwd, skill);
  const info = await stat(asPath).catch(() => undefined);
  if (info) {
    const dir = info.isFile() ? path.dirname(asPath) : asPath;
    const loaded = await loadSkills([path.relative(io.cwd, dir) || "."], io);
    const [only] = loaded.registry.list();
    if (!only) {
      const why = loaded.failures[0]?.message ?? loaded.skipped[0]?.message;
      await loaded.close();
      throw new CliError(`cannot load the skill in ${skill}${why ? `: ${why}` : ""}`);
    }
    return { entry: only, loaded };
  }
  const loaded = await loadSkills(roots, io);
  const { registry } = loaded;
  try {
    return { entry: registry.get(skill), loaded };
  } catch (error) {
    await loaded.close();
    if (error instanceof SkillNotFoundError) {
      // A skill that is there but cannot be loaded: its reason, as `list` words it, not "no skill".
      const failed = loaded.failures.find(
        (f) => f.id !== undefined && (f.id === skill || `${f.source}:${f.id}` === skill),
      );
      if (failed)
        throw new CliError(
          `cannot load skill ${JSON.stringify(skill)} (${failed.source}:${failed.id}): ${failed.message}`,
        );
      const notSkill = loaded.skipped.find((s) => s.folder === skill || `${s.source}:${s.folder}` === skill);
      if (notSkill) throw new CliError(`${notSkill.source}:${notSkill.folder} is not a skill: ${notSkill.message}`);
      const known = registry.list().map((e) => e.id);
      throw new CliError(
        `no skill ${JSON.stringify(skill)}${known.length ? ` (known: ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})` : " and no skills were found"}`,
      );
    }
    throw error;
  }
}
