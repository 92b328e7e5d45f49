import { realpath } from "node:fs/promises";
import path from "node:path";
import { secretFilePattern } from "@skillport/core/internal";
import type { SkillReader } from "./box-skill.js";

/**
 * Why a skill file is never handed to the model or copied for running, or undefined: its name is on core's one
 * credential list (decision 0255), or — for a skill in a folder — it is a link whose target is (`notes.txt -> .env`),
 * judged like pack judges a followed link.
 */
export async function secretReason(reader: SkillReader, file: string): Promise<string | undefined> {
  if (file === "SKILL.md") return undefined;
  const named = secretFilePattern(file);
  if (named !== undefined) return `its name matches ${named}`;
  const target = await reader.linkTarget?.(file);
  const pattern = target === undefined ? undefined : secretFilePattern(target);
  return pattern === undefined ? undefined : `it is a link to ${target}, which matches ${pattern}`;
}

/**
 * Where `file` leads inside the skill folder that holds `skillMd` (POSIX, relative), when that differs from `file`
 * itself; undefined when it is no link, cannot be resolved, or the skill is not in a folder.
 */
export async function folderLinkTarget(skillMd: string | undefined, file: string): Promise<string | undefined> {
  if (skillMd === undefined || !path.isAbsolute(skillMd)) return undefined;
  try {
    const dir = await realpath(path.dirname(skillMd));
    const target = path
      .relative(dir, await realpath(path.join(dir, ...file.split("/"))))
      .split(path.sep)
      .join("/");
    return target === file ? undefined : target;
  } catch {
    return undefined; // missing or unreadable: the read itself reports it
  }
}
