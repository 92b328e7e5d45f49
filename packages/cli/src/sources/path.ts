import { stat } from "node:fs/promises";
import path from "node:path";
import { FileSystemSkillRepository, LocalFileSystemSkillProvider } from "@skillport/fs";
import { displayPath, CliError } from "../io.js";
import { probeSkillFolder } from "../targets.js";
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
    if (info && probeSkillFolder(absolute) !== undefined)
      throw new CliError(`${root} is a skill folder; copy into the folder that holds skills`);
    const repository = new FileSystemSkillRepository(absolute, { name: label, create: true });
    return { label, provider: repository, repository, close };
  }
  if (!info) throw new CliError(`no such folder: ${root}${gitHint(root)}`);
  if (!info.isDirectory()) throw new CliError(`not a directory: ${root}`);
  if (probeSkillFolder(absolute) !== undefined) {
    const provider = new LocalFileSystemSkillProvider(path.dirname(absolute), { name: label });
    const only = path.basename(absolute);
    return { label, provider, only, rootPath: path.join(provider.root, only), close };
  }
  const probe = new LocalFileSystemSkillProvider(absolute, { name: label });
  const index = options.metadataIndex?.(probe.root);
  const provider =
    index === undefined
      ? probe
      : new LocalFileSystemSkillProvider(absolute, {
          name: label,
          metadataIndex: index,
          ...(options.warn !== undefined && { warn: options.warn }),
        });
  return { label, provider, skipped: () => skippedOf(provider), rootPath: provider.root, close };
}

/** What a folder of skills holds and does not serve, in the shape every opened source reports it. */
export function skippedOf(provider: LocalFileSystemSkillProvider): ReturnType<NonNullable<OpenedSource["skipped"]>> {
  return provider
    .skipped()
    .map((s) => ({ folder: s.where, path: s.path, code: s.code, message: s.message, severity: s.severity }));
}

/** `owner/repo` that is not a folder here is most likely a GitHub repository: say how to write one. */
function gitHint(given: string): string {
  const parts = /^([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(given);
  return parts
    ? ` (a git repository? write its address: git+https://github.com/${parts[1]}/${parts[2]}.git, with #<ref>:<folder> for a folder in it)`
    : "";
}
