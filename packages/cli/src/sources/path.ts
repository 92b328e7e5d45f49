import { stat } from "node:fs/promises";
import path from "node:path";
import { FileSystemSkillRepository, LocalFileSystemSkillProvider } from "@skillport/fs";
import { displayPath, CliError } from "../io.js";
import type { OpenedSource, OpenSourceOptions } from "./opened-source.js";

/**
 * A path root. Reading: a folder of skills, or one skill folder (served from its parent, only that skill). Writing:
 * a folder of skills, created when missing.
 */
export async function openPathSource(root: string, options: OpenSourceOptions): Promise<OpenedSource> {
  const absolute = path.resolve(options.cwd, root);
  const label = `fs:${displayPath(absolute, options.cwd).replace(/\s/g, "_")}`;
  const info = await stat(absolute).catch(() => undefined);
  const close = async () => undefined;
  if (options.write) {
    if (info && !info.isDirectory()) throw new CliError(`not a directory: ${root}`);
    if (info && (await isSkillDir(absolute))) throw new CliError(`${root} is a skill folder; copy into the folder that holds skills`);
    const repository = new FileSystemSkillRepository(absolute, { name: label, create: true });
    return { label, provider: repository, repository, close };
  }
  if (!info?.isDirectory()) throw new CliError(`not a directory: ${root}`);
  if (await isSkillDir(absolute)) {
    return { label, provider: new LocalFileSystemSkillProvider(path.dirname(absolute), { name: label }), only: path.basename(absolute), close };
  }
  const provider = new LocalFileSystemSkillProvider(absolute, { name: label });
  const skipped = () => provider.skipped().map((s) => ({ folder: s.where, code: s.code, message: s.message, severity: s.severity }));
  return { label, provider, skipped, close };
}

export async function isSkillDir(dir: string): Promise<boolean> {
  for (const name of ["SKILL.md", "skill.md"]) {
    if ((await stat(path.join(dir, name)).catch(() => undefined))?.isFile()) return true;
  }
  return false;
}
